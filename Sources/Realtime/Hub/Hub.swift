import Core
import Foundation

/// The realtime layer's one entry point: a router that takes each `HubEvent` with the time
/// it happened and returns the actions that follow. It never touches a socket, a disk or a
/// clock; the shell carries the actions out. Behind it, small parts each own their state:
///
/// - `SessionTable`: every connection's protocol state (rate limit, held frames, waits);
/// - a `NodeLink` (a cluster node only): asked where a request goes and what crosses nodes;
/// - `Admission` (create, join, watch, leave), `Play` (commands in a game);
/// - `RoomTable` and `GameRoom`: live games, their members, windows and outboxes;
/// - `Durability`: commit tickets, the outbox gate, the rewind after a failed write;
/// - `SolverDesk`, `LobbyFeed`, `HTTPAPI`, and one `PendingTable` of what waits off-thread.
///
/// Confined to one thread (the service thread in the server), so it needs no locks.
public final class Hub {
    let config: Config
    let sessions = SessionTable()
    let pending = PendingTable<PendingRequest>()
    let rooms: RoomTable
    let durability: Durability
    let lobby: LobbyFeed
    let solver: SolverDesk
    let play: Play
    let admission: Admission
    /// Set when this server is one node of a cluster (`attach`).
    private(set) var link: (any NodeLink)?
    /// Set when the store is shared by nodes: claims, takeovers, hand-overs.
    let handover: Handover?
    /// Seeds for bots' random choices.
    private var random: HubRandom
    /// Why commands are refused: this node's name taken by another process, or its
    /// store out of reach (section 11.1); the first wins.
    private var clusterRefusal: ProtocolError?
    private var storeRefusal: ProtocolError?
    /// The instant of the last `wake` asked of the shell, until its `due` comes.
    private var wakeAskedFor: Instant?
    private var api: HTTPAPI { HTTPAPI(rooms: rooms, lobby: lobby, pending: pending, games: config.games, pages: config.pages) }
    private var replies: Replies { Replies(sessions: sessions, durability: durability) }

    /// - Parameters:
    ///   - random: the source of game ids and tokens (the system's secure generator in the server).
    ///   - provenSeeds: the stored pools of seeds the catalog's prover proved.
    init(config: Config, random: @escaping @Sendable () -> UInt64, provenSeeds: [ProvenSeed] = []) {
        self.config = config
        let random = HubRandom(next: random)
        self.random = random
        rooms = RoomTable(config: config)
        durability = Durability(durable: config.durable, fenceAs: config.sharedStoreNode, sessions: sessions, rooms: rooms,
                                pending: pending)
        lobby = LobbyFeed(rooms: rooms)
        solver = SolverDesk(config: config, sessions: sessions, pending: pending, random: random, seeds: provenSeeds)
        let parts = HubParts(sessions: sessions, rooms: rooms, durability: durability, pending: pending, solver: solver,
                             lobby: lobby)
        play = Play(parts, games: config.games)
        admission = Admission(config: config, parts: parts, play: play, random: random)
        play.signIn.required = config.requireAuth
        admission.createRate = config.createsPerMinute.map { CreateRatePerAddress(perMinute: $0) }
        admission.touches.interval = config.touchInterval
        if let node = config.sharedStoreNode {
            let handover = Handover(node: node, parts: parts, admission: admission)
            self.handover = handover
            // A game not in memory is claimed from the store before it is served here.
            rooms.loadRequest = { [unowned handover] game in
                .acquire(game: game, node: node, takeover: handover.takeoverPolicy)
            }
        } else {
            handover = nil
        }
    }

    /// Makes this hub one node of a cluster: `link` decides where requests go and carries
    /// what crosses nodes. Called once, before the first event.
    func attach(_ link: any NodeLink) {
        self.link = link
        handover?.link = link
        if let prefix = link.gameIDPrefix { admission.idPrefix = prefix }
    }

    // MARK: What the shell may read

    public var liveGameCount: Int { rooms.count }

    /// A ping or pong the client sent counts against the connection's rate limit, as a message
    /// does (PROTOCOL section 14); true while within it. Nothing is sent either way: lws answers
    /// pings itself, and the shell handles a flood (`ControlFloodGuard`).
    func admitControlFrame(_ id: ConnectionID, at now: Instant) -> Bool { sessions.admitFrame(id, now: now) }
    /// Proven seeds ready in a pool of the catalog's prover.
    public func provenPoolCount(_ pool: Int) -> Int { solver.poolCount(pool) }
    func room(_ id: String) -> GameRoom? { rooms[id] }

    // MARK: Events

    func handle(_ event: HubEvent, at now: Instant) -> [HubAction] {
        var effects = Effects()
        switch event {
        case .opened(let id, let address, let query, let user):
            opened(id, address: address, query: query, user: user, now: now, into: &effects)
        case .frame(let id, let text): frame(id, text, now: now, into: &effects)
        case .binaryFrame(let id):
            guard admit(id, now: now, into: &effects) else { break }
            accept(id, .request(.failure(.bad("binary frames are not part of the protocol: send text"), id: nil),
                                arrival: now), now: now, into: &effects)
        case .closed(let id): closed(id, now: now, into: &effects)
        case .http(let request, let path, let query):
            if let link, link.routeHTTP(request, path: path, query: query, now: now, into: &effects) { break }
            api.request(request, path: path, query: query, into: &effects)
        case .committed(let ticket, let refused):
            let commit = durability.committed(upTo: ticket, refused: refused, now: now, into: &effects)
            var resumable = commit.resumable
            for (room, owner, cutShort) in commit.lost {
                resumable += handover?.lose(room, to: owner, cutShort: cutShort, now: now, into: &effects) ?? []
            }
            resume(resumable, now: now, into: &effects)
        case .storageFailed(let tickets, let reason):
            durability.storageFailed(tickets, reason: reason, now: now, into: &effects)
        case .read(let answer): read(answer, now: now, into: &effects)
        case .solved(let result): solved(result, now: now, into: &effects)
        case .tick: tick(now: now, into: &effects)
        case .storeHealth(let problem):
            storeRefusal = problem.map { _ in .unavailable("the store cannot be reached now; try again") }
            play.refusal = clusterRefusal ?? storeRefusal
        case .due:
            wakeAskedFor = nil
            releaseDelayed(now: now, into: &effects)
            turnsDue(now: now, into: &effects)
        }
        return finish(&effects)
    }

    /// Something the node link heard from other nodes: `decide` is the link's part, and what
    /// it asks of the hub is carried out here, in order.
    func handleLink(at now: Instant, _ decide: (inout Effects) -> [NodeRequest]) -> [HubAction] {
        var effects = Effects()
        carryOut(decide(&effects), now: now, into: &effects)
        return finish(&effects)
    }

    private func finish(_ effects: inout Effects) -> [HubAction] {
        askToWake(into: &effects)
        let actions = effects.take()
        return link?.outgoing(actions) ?? actions
    }

    // MARK: Connections

    private func opened(_ id: ConnectionID, address: ClientAddress, query: [String: String], user: SignedUser?,
                        now: Instant, into effects: inout Effects) {
        sessions.open(id, address: address, user: config.auth == nil ? nil : user, now: now)
        effects.log(.debug, "connection opened", ["conn": "\(id)"])
        // `/ws?watch=GAME` and `/ws?game=GAME&token=TOKEN` join at once, as the message would.
        var message: JSON?
        if let game = query["watch"] {
            message = .object(["type": "watch", "game": .string(game)])
        } else if let game = query["game"], let token = query["token"] {
            message = .object(["type": "join", "game": .string(game), "token": .string(token)])
        }
        if let message { process(id, .request(ClientMessageParser.parse(message: message, games: config.games), arrival: nil), now: now, into: &effects) }
    }

    private func frame(_ id: ConnectionID, _ text: [UInt8], now: Instant, into effects: inout Effects) {
        guard admit(id, now: now, into: &effects) else { return }
        accept(id, .request(ClientMessageParser.parse(text, games: config.games), arrival: now), now: now, into: &effects)
    }

    /// Counts a frame against the connection's rate limit; a frame over it is answered
    /// `rate-limited` unread (so its error carries no id).
    private func admit(_ id: ConnectionID, now: Instant, into effects: inout Effects) -> Bool {
        guard sessions.isOpen(id) else { return false }
        guard sessions.admitFrame(id, now: now) else {
            replies.error(id, ProtocolError(.rateLimited, "over \(Int(SessionTable.rateLimit)) frames a second"),
                          requestID: nil, now: now, into: &effects)
            return false
        }
        return true
    }

    /// A frame from a waiting connection is held, so replies keep the order of requests.
    private func accept(_ id: ConnectionID, _ item: HeldItem, now: Instant, into effects: inout Effects) {
        guard sessions.isWaiting(id) else {
            process(id, item, now: now, into: &effects)
            return
        }
        if !sessions.hold(id, item) {
            replies.error(id, ProtocolError(.rateLimited, "too many requests while the last one waits"), requestID: nil,
                          now: now, into: &effects)
        }
    }

    /// Answers what a connection sent while it waited, until it waits again.
    private func resume(_ ids: [ConnectionID], now: Instant, into effects: inout Effects) {
        for id in ids {
            while let item = sessions.nextHeld(id) { process(id, item, now: now, into: &effects) }
        }
    }

    private func process(_ id: ConnectionID, _ item: HeldItem, now: Instant, into effects: inout Effects) {
        switch item {
        case .marker(let number):
            replies.marker(id, number, now: now, into: &effects)
        case .request(.failure(let error, let requestID), _):
            replies.error(id, error, requestID: requestID, now: now, into: &effects)
        case .request(.request(let request), let arrival):
            // Another node's connection: who it is signed in as comes with each of its requests.
            if id.isRemote { sessions.modify(id) { $0.user = SignedUser(forwarded: request.message) } }
            if let link, !id.isRemote {
                guard link.route(id, request, now: now, into: &effects) == .here else { return }
                handle(id, request, now: now, arrival: arrival, into: &effects)
                link.settle(id, into: &effects)
                return
            }
            handle(id, request, now: now, arrival: arrival, into: &effects)
        }
    }

    private func handle(_ id: ConnectionID, _ request: ClientRequest, now: Instant, arrival: Instant?,
                        into effects: inout Effects) {
        switch request.command {
        case .create(let kind, let options):
            admission.create(id, kind: kind, options: options, requestID: request.id, now: now, into: &effects)
        case .join(let game, _, let since, _), .watch(let game, let since, _, _):
            if let refusal = handover?.refusal(for: game) {
                replies.error(id, refusal, requestID: request.id, now: now, into: &effects)
                return
            }
            if handover?.doubts(id, request, game: game, since: since, into: &effects) == true { return }
            guard let entry = GameEntry(request.command) else { return }
            admission.enter(id, request, entry, now: now, into: &effects)
        case .auth(let jwt):
            SignIn(verifier: config.auth, sessions: sessions, replies: replies)
                .auth(id, jwt: jwt, requestID: request.id, remoteSeq: link?.seenSeq(id), now: now, into: &effects)
        case .leave: admission.leave(id, requestID: request.id, now: now, into: &effects)
        case .list(let follow):
            lobby.follow(id, follow)
            replies.answer(id, [lobby.frame()], requestID: request.id, now: now, into: &effects)
        case .show: play.show(id, requestID: request.id, now: now, into: &effects)
        case .hint: play.hint(id, requestID: request.id, now: now, into: &effects)
        case .say(let text, let room): play.say(id, text: text, to: room, requestID: request.id, now: now, into: &effects)
        case .mute(let who): play.mute(id, who: who, requestID: request.id, now: now, into: &effects)
        case .gesture(let type, let message):
            play.gesture(CommandOrigin(connection: id, requestID: request.id, arrival: arrival), type: type,
                         message: message, now: now, into: &effects)
        }
    }

    private func closed(_ id: ConnectionID, now: Instant, into effects: inout Effects) {
        guard let session = sessions[id] else { return }
        if case .gameLoad(let game)? = session.wait { rooms.stopWaiting(id, for: game) }
        admission.leaveGame(id, now: now, into: &effects)
        lobby.forget(id)
        link?.closed(id, into: &effects)
        sessions.close(id)
        effects.log(.debug, "connection closed", ["conn": "\(id)"])
    }

    // MARK: Off-thread answers

    private func read(_ answer: StorageAnswer, now: Instant, into effects: inout Effects) {
        switch answer {
        case .loaded(let game, let result):
            var resumable: [ConnectionID]
            if let rebuilt = durability.rebuilt(game, result, now: now, into: &effects) {
                resumable = rebuilt
                if !durability.isRewinding(game), let room = rooms[game] { admission.rebuilt(room, now: now, into: &effects) }
            } else {
                resumable = admission.loaded(game, result, now: now, into: &effects)
            }
            if case .loaded = result { lobby.changed() }
            resume(resumable, now: now, into: &effects)
        case .history(let token, let frames):
            guard case .history(let catchUp)? = pending.take(token) else { return }
            if admission.historyRead(catchUp, token: token, frames: frames, now: now, into: &effects) {
                resume([catchUp.connection], now: now, into: &effects)
            }
        case .command(let token, let seq):
            guard case .commandLookup(let lookup)? = pending.take(token) else { return }
            play.commandFound(lookup, token: token, seq: seq, now: now, into: &effects)
            resume([lookup.connection], now: now, into: &effects)
        case .listing(let token, let games):
            guard case .listing(let request, let query)? = pending.take(token) else { return }
            api.listed(request, query, games: games, into: &effects)
        case .chat(let token, let lines):
            guard case .replayChat(let catchUp)? = pending.take(token) else { return }
            if admission.replayChat(catchUp, token: token, lines: lines, now: now, into: &effects) {
                resume([catchUp.connection], now: now, into: &effects)
            }
        case .acquired(let game, let acquisition):
            guard let handover else { return }
            resume(handover.acquired(game, acquisition, now: now, into: &effects), now: now, into: &effects)
        case .ownerships(let token, let owners, let unchecked):
            guard case .ownershipCheck(let asked)? = pending.take(token), let handover else { return }
            resume(handover.verified(owners, asked: asked, unchecked: unchecked, now: now, into: &effects),
                   now: now, into: &effects)
        }
    }

    private func solved(_ result: SolveResult, now: Instant, into effects: inout Effects) {
        switch solver.solved(result) {
        case .proof(let proof, .success(let seed)):
            switch proof.waiting {
            case .create(let kind, let options):
                admission.finishCreate(proof.origin, kind: kind, options: options, seed: seed.map { ChosenSeed(value: $0) },
                                       now: now, into: &effects)
            case .command(let room, let gesture):
                if sessions.room(of: proof.origin.connection) === room {
                    play.applyGesture(proof.origin, seed.map { room.game.seeded(gesture, seed: $0) } ?? gesture, in: room,
                                      now: now, into: &effects)
                }
            }
            resume([proof.origin.connection], now: now, into: &effects)
        case .proof(let proof, .failure(let error)):
            replies.error(proof.origin.connection, error, requestID: proof.origin.requestID, now: now, into: &effects)
            resume([proof.origin.connection], now: now, into: &effects)
        case .hints(let answers):
            for (asker, answer) in answers {
                play.answerHint(asker.connection, answer, requestID: asker.requestID, now: now, into: &effects)
                resume([asker.connection], now: now, into: &effects)
            }
        case .botMoved(let room, let seat, let move):
            play.botMoved(room, seat: seat, move, isLive: rooms.isLive(room), now: now, into: &effects)
        case .poolGrew(let batch):
            durability.store(batch, for: nil, into: &effects)
        case .none:
            break
        }
    }

    // MARK: Time

    /// Merged presence, lobby updates, games going to rest, the solver pool, the node link's rounds.
    private func tick(now: Instant, into effects: inout Effects) {
        for room in rooms.duePresence(now: now) {
            room.enqueue(.broadcast(room.presenceFrame))
            durability.release(room, now: now, into: &effects)
            lobby.changed()
        }
        releaseDelayed(now: now, into: &effects)
        turnsDue(now: now, into: &effects)
        lobby.tick(now: now, into: &effects)
        // A game whose clock runs, or whose bot is to move, stays live: its turn goes on without anyone.
        let busy = { (room: GameRoom) in
            self.durability.isRewinding(room.id) || room.game.clockRunning || room.bots.seats.contains(where: room.game.awaits)
        }
        for room in rooms.restingNow(now: now, isBusy: busy) {
            play.timers.forget(room)
            lobby.changed()
            effects.log(.debug, "game resting", ["game": room.id])
            handover?.rested(room, into: &effects)
        }
        durability.retryRebuilds(now: now, into: &effects)
        if storeRefusal == nil { handover?.askAgain(into: &effects) }
        admission.touches.sweep(now: now, into: &effects)
        solver.refill(now: now, into: &effects)
        if let link { carryOut(link.tick(now: now, lobby: lobby.ownEntries, into: &effects), now: now, into: &effects) }
    }

    /// Clocks that ran out and bots due to move (PROTOCOL sections 17 and 18).
    private func turnsDue(now: Instant, into effects: inout Effects) {
        var random = self.random
        play.turnsDue(now: now, isLive: rooms.isLive, seed: { random.next() }, into: &effects)
    }

    /// What has come due to delayed spectators (PROTOCOL section 15), at the `wake` asked for it.
    private func releaseDelayed(now: Instant, into effects: inout Effects) {
        for room in rooms.dueDelayedRooms(now: now) {
            let seen = room.spectatorSeq
            durability.releaseDelayed(room, now: now, into: &effects)
            if room.spectatorSeq != seen { lobby.changed() }
        }
    }

    /// Asks the shell for a `due` event when the next delayed output comes due, unless it is
    /// already asked for that instant (one timer: a new wake replaces the last).
    private func askToWake(into effects: inout Effects) {
        let next = [rooms.nextDelayDue, play.timers.next].compactMap { $0 }.min()
        guard let due = next, due != wakeAskedFor else { return }
        wakeAskedFor = due
        effects.append(.wake(at: due))
    }

    // MARK: What the node link asks of the hub

    /// Does what the node link handed back: requests of other nodes' connections (this node
    /// owns their games), their ends, and local connections whose forwarded requests are answered.
    private func carryOut(_ requests: [NodeRequest], now: Instant, into effects: inout Effects) {
        for request in requests {
            switch request {
            case .frame(let id, let text):
                frame(id, text, now: now, into: &effects)
            case .marker(let id, let number):
                accept(id, .marker(number), now: now, into: &effects)
            case .closed(let id):
                closed(id, now: now, into: &effects)
            case .http(let request, let path, let query):
                api.request(request, path: path, query: query, into: &effects)
            case .resume(let id):
                resume([id], now: now, into: &effects)
            case .refuse(let id, let error, let requestID):
                replies.error(id, error, requestID: requestID, now: now, into: &effects)
                resume([id], now: now, into: &effects)
            case .leaveLocalGame(let id):
                admission.leaveGame(id, now: now, into: &effects)
            case .lobbies(let lobbies):
                lobby.setRemote(lobbies)
            case .refuseCommands(let refusal):
                clusterRefusal = refusal
                play.refusal = clusterRefusal ?? storeRefusal
            case .takeOver(let game):
                handover?.takeOver(game, now: now, into: &effects)
            case .admitQuietly(let id, let join):
                handover?.admitQuietly(id, join, now: now, into: &effects)
            case .verifyOwnership:
                handover?.verify(into: &effects)
            }
        }
    }
}
