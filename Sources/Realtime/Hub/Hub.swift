import Core
import Foundation
import Logging

/// The protocol's logic for every connection and game, as a state machine: each
/// method takes one event (a connection opened, a frame, a commit, a tick, a game
/// loaded, ...) and returns the actions that follow from it (send these bytes to
/// these connections, store this batch, load that game, close, log). It never
/// touches a socket, a disk or a clock; `ServerDriver` carries the actions out.
///
/// Confined to one thread (the service thread in the server), so it needs no locks.
public final class Hub {
    public struct Config: Sendable {
        /// Seconds without a member or a command after which a game rests (leaves memory).
        public var idleSeconds: Double = 600
        /// Diff frames kept in memory per game for `since`; older ones are read from storage.
        public var windowSize = 128
        /// Stored diff frames read per page when a `since` reaches past the window.
        public var historyPageSize = 256
        /// Presence is merged: at most one update per this many seconds per game,
        /// and at most one a second for a game with more than `crowdSize` members.
        public var presenceInterval = 0.1
        public var crowdSize = 100
        /// Positions a solve may expand (about a second of one core; see the solver benchmark).
        public var solverBudget = KlondikeSolver.defaultBudget
        /// Proven seeds kept ready per draw, so `winnable: true` deals at once.
        public var winnablePoolTarget = 16
        /// Positions whose hint is remembered.
        public var hintCacheLimit = 20_000
        /// Seconds after start before the pool of proven seeds is topped up.
        public var poolRefillDelay = 10.0
        /// Games are stored (`--data DIR`). Without storage (`--data :memory:`) nothing waits
        /// for a commit, and games keep their whole history in memory and never rest.
        public var durable = true

        public init() {}
    }

    static let rateLimit = 100.0
    /// Frames held for a waiting connection beyond this are refused (it is far past the rate limit's worth).
    static let maxHeld = 256

    let config: Config
    var random: HubRandom
    /// Whether a game id is already used by a stored game (memory holds only live ones).
    let gameIDIsTaken: (String) -> Bool

    var rooms: [String: GameRoom] = [:]
    /// Games being loaded from storage, with who waits for each, in arrival order.
    var loading: [String: [Waiter]] = [:]
    /// Rooms with no member: the candidates to rest.
    var memberless: [String: GameRoom] = [:]
    var presenceDirty: [GameRoom] = []
    var lobbyFollowers: [ConnectionID: Connection] = [:]
    var lobbyDirty = false
    var lobbyCache: OutFrame?
    var lastLobbySent = -Double.infinity

    var lastTicket: UInt64 = 0
    var committed: UInt64 = 0
    /// Rooms whose outbox waits for a ticket.
    var waitingRooms: [ObjectIdentifier: GameRoom] = [:]
    var nextToken: UInt64 = 0
    var historyReads: [UInt64: HistoryCatchUp] = [:]
    var commandLookups: [UInt64: PendingLookup] = [:]
    var storedListings: [UInt64: (HTTPRequestID, LobbyQuery)] = [:]

    var actions: [HubAction] = []

    enum Waiter {
        case connection(Connection)
        case http(HTTPRequestID)
        /// `/api/games/GAME` asked through another cluster node.
        case remoteHTTP(node: String, token: UInt64)
    }

    /// A connection reading a game's old diffs from storage before it joins the live stream.
    struct HistoryCatchUp {
        var connection: Connection
        var room: GameRoom
        var after: Int
        var requestID: JSON?
        /// The ack of a `create`: if the game's row fails to store, it becomes an error.
        var isCreation = false
    }

    struct PendingLookup {
        var connection: Connection
        var room: GameRoom
        var gesture: ParsedGesture
        var requestID: JSON
        var arrival: ContinuousClock.Instant?
    }

    /// - Parameters:
    ///   - random: the source of game ids and tokens (the system's secure generator in the server).
    ///   - gameIDIsTaken: whether storage already holds a game with this id.
    ///   - winnableSeeds: the stored pool of seeds the solver proved winnable.
    ///   - cluster: this node's identity when it is one node of a cluster on Redis.
    public init(config: Config = Config(), random: @escaping @Sendable () -> UInt64,
                gameIDIsTaken: @escaping (String) -> Bool = { _ in false }, winnableSeeds: [WinnableSeed] = [],
                cluster: ClusterIdentity? = nil) {
        self.config = config
        self.random = HubRandom(next: random)
        self.gameIDIsTaken = gameIDIsTaken
        self.cluster = cluster.map(ClusterState.init)
        for seed in winnableSeeds { pool[seed.draw, default: []].append(seed.seed) }
    }

    /// Set when this server is one node of a cluster.
    let cluster: ClusterState?
    var counters = ClusterCounters()

    // MARK: Solver state

    /// Proven winnable seeds per draw, and the draws whose refill is under way.
    var pool: [Int: [UInt64]] = [:]
    var refilling: Set<Int> = []
    var hintCache: [KlondikePositionKey: HintAnswer] = [:]
    /// Positions being solved for a hint, and who waits for each answer.
    var hintsSolving: [KlondikePositionKey: UInt64] = [:]
    var hintWaiters: [UInt64: [(connection: Connection, requestID: JSON?)]] = [:]
    var pendingDeals: [UInt64: PendingDeal] = [:]
    var firstTick: Double?

    /// A `create` or `reset` with `winnable: true` waiting for the solver.
    enum PendingDeal {
        case create(Connection, kind: GameKind, options: JSON, requestID: JSON?)
        case reset(Connection, room: GameRoom, gesture: ParsedGesture, requestID: JSON?, arrival: ContinuousClock.Instant?)

        var connection: Connection {
            switch self {
            case .create(let connection, _, _, _), .reset(let connection, _, _, _, _): return connection
            }
        }
    }

    // MARK: What the driver may read

    public var liveGameCount: Int { rooms.count }
    var liveRooms: Dictionary<String, GameRoom>.Values { rooms.values }
    func room(_ id: String) -> GameRoom? { rooms[id] }

    // MARK: Connection events

    func opened(_ connection: Connection, query: [String: String], now: Double) -> [HubAction] {
        log(.debug, "connection opened", ["conn": "\(connection.id)"])
        if let game = query["watch"] {
            let message: JSON = .object(["type": "watch", "game": .string(game)])
            process(connection, .request(ClientRequest(id: nil, command: .watch(game: game, since: nil), message: message)),
                    now: now, arrival: nil)
        } else if let game = query["game"], let token = query["token"] {
            let message: JSON = .object(["type": "join", "game": .string(game), "token": .string(token)])
            process(connection, .request(ClientRequest(id: nil, command: .join(game: game, token: token, since: nil),
                                                       message: message)),
                    now: now, arrival: nil)
        }
        return takeActions()
    }

    func received(_ connection: Connection, text: [UInt8], now: Double,
                  arrival: ContinuousClock.Instant? = nil) -> [HubAction] {
        if admitFrame(connection, now: now) {
            accept(connection, ClientMessageParser.parse(text), now: now, arrival: arrival)
        }
        return takeActions()
    }

    func receivedBinary(_ connection: Connection, now: Double) -> [HubAction] {
        if admitFrame(connection, now: now) {
            accept(connection, .failure(.bad("binary frames are not part of the protocol: send text"), id: nil),
                   now: now, arrival: nil)
        }
        return takeActions()
    }

    func closed(_ connection: Connection, now: Double) -> [HubAction] {
        guard connection.session.isOpen else { return [] }
        connection.session.isOpen = false
        connection.session.held = []
        connection.session.heldHead = 0
        if case .solver(let token)? = connection.session.wait {
            pendingDeals[token] = nil
            hintWaiters[token]?.removeAll { $0.connection === connection }
        }
        if case .gameLoad(let game)? = connection.session.wait {
            loading[game]?.removeAll { if case .connection(let c) = $0 { return c === connection } else { return false } }
        }
        connection.session.wait = nil
        leaveGame(connection, now: now)
        if let cluster, connection.remote == nil {
            detachRemote(connection)
            cluster.attached[connection.id] = nil
            cluster.forwards[connection.id] = nil
        }
        lobbyFollowers[connection.id] = nil
        log(.debug, "connection closed", ["conn": "\(connection.id)"])
        return takeActions()
    }

    /// Counts a frame against the connection's rate limit; a frame over it is answered
    /// `rate-limited` unread (so its error carries no id).
    func admitFrame(_ connection: Connection, now: Double) -> Bool {
        guard connection.session.isOpen else { return false }
        guard connection.session.bucket.take(now: now) else {
            reply(connection, error: ProtocolError(.rateLimited, "over \(Int(Hub.rateLimit)) frames a second"),
                  requestID: nil)
            return false
        }
        return true
    }

    // MARK: Limits (issue 20): control frames

    /// A ping or pong the client sent counts against the connection's rate limit, as a message
    /// does (PROTOCOL section 14). True while within it. Nothing is sent either way: lws answers
    /// pings itself, and the shell deals with a flood (`ControlFloodGuard`).
    func admitControlFrame(_ connection: Connection, now: Double) -> Bool {
        connection.session.isOpen && connection.session.bucket.take(now: now)
    }

    /// A frame from a waiting connection is held, so replies keep the order of requests.
    func accept(_ connection: Connection, _ parsed: ClientMessageParser.Parsed, now: Double,
                        arrival: ContinuousClock.Instant?) {
        if connection.session.wait != nil || connection.session.hasHeld {
            guard connection.session.held.count - connection.session.heldHead < Hub.maxHeld else {
                reply(connection, error: ProtocolError(.rateLimited, "too many requests while the last one waits"),
                      requestID: nil)
                return
            }
            connection.session.hold(HeldRequest(parsed: parsed, arrival: arrival))
            return
        }
        process(connection, parsed, now: now, arrival: arrival)
    }

    /// Answers what a connection sent while it waited, until it waits again.
    func resume(_ connection: Connection, now: Double) {
        while connection.session.isOpen, connection.session.wait == nil, let held = connection.session.takeHeld() {
            process(connection, held.parsed, now: now, arrival: held.arrival)
        }
    }

    func process(_ connection: Connection, _ parsed: ClientMessageParser.Parsed, now: Double,
                         arrival: ContinuousClock.Instant?) {
        switch parsed {
        case .request(let request):
            if routeToOwner(connection, request, now: now) { return }
            handle(connection, request, now: now, arrival: arrival)
        case .failure(let error, let requestID): reply(connection, error: error, requestID: requestID)
        }
    }

    // MARK: Storage events

    /// Storage made every ticket up to this one durable: release what waited for it.
    func committed(upTo ticket: UInt64) -> [HubAction] {
        guard ticket > committed else { return [] }
        committed = ticket
        for room in Array(waitingRooms.values) { release(room) }
        return takeActions()
    }

    /// The writes of these tickets failed (and every later one, until `resumeStorage`):
    /// nothing they carried was stored. Each game they touched is rebuilt from storage,
    /// the source of truth; senders of the lost commands get `unavailable`.
    func storageFailed(tickets: ClosedRange<UInt64>, reason: String, now: Double) -> [HubAction] {
        log(.error, "storage write failed; the commands it carried are refused", ["tickets": "\(tickets)", "error": reason])
        for room in Array(waitingRooms.values) where room.waits(onAnyOf: tickets.lowerBound...UInt64.max) {
            rewind(room, from: tickets.lowerBound, reason: reason, now: now)
        }
        actions.append(.resumeStorage(after: lastTicket))
        return takeActions()
    }

    func rewind(_ room: GameRoom, from ticket: UInt64, reason: String, now: Double) {
        release(room)
        var rewind = Rewind(room: room, reason: reason)
        func note(_ connection: Connection) {
            if !rewind.members.contains(where: { $0 === connection }) { rewind.members.append(connection) }
        }
        for output in room.discardOutput(fromTicket: ticket) {
            switch output {
            case .ack(let connection, let id, _, let isCommand):
                if isCommand { rewind.failedAcks.append((connection, id)) } else { rewind.acks.append((connection, id)) }
                note(connection)
            case .reply(let connection, _), .subscribe(let connection, _):
                note(connection)
            case .broadcast, .viewBroadcast, .afterDurable:
                break
            }
        }
        for connection in room.allRecipients { note(connection) }
        for (token, catchUp) in historyReads where catchUp.room === room {
            historyReads[token] = nil
            note(catchUp.connection)
        }
        for (token, lookup) in commandLookups where lookup.room === room {
            commandLookups[token] = nil
            rewind.failedAcks.append((lookup.connection, lookup.requestID))
            note(lookup.connection)
        }
        // Every member is held until the game is back as storage has it, then told where it stands.
        for connection in rewind.members where connection.session.isOpen && connection.session.room === room {
            connection.session.wait = .rewind(room.id)
        }
        rewinding[room.id] = rewind
        actions.append(.load(game: room.id))
    }

    struct Rewind {
        var room: GameRoom
        var reason: String
        /// Acks of commands whose write failed: they become `unavailable` errors.
        var failedAcks: [(Connection, JSON)] = []
        /// Other acks that were not sent yet: sent again once the game is back.
        var acks: [(Connection, JSON)] = []
        var members: [Connection] = []
        /// Joins and watches that arrived meanwhile: answered from the rebuilt game.
        var waiters: [Connection] = []
    }

    var rewinding: [String: Rewind] = [:]

    /// A game asked for by `load(game:)` is ready (or is not there).
    func loaded(_ gameID: String, _ result: LoadResult, now: Double) -> [HubAction] {
        if let rewind = rewinding.removeValue(forKey: gameID) {
            finishRewind(rewind, result, now: now)
            return takeActions()
        }
        let waiters = loading.removeValue(forKey: gameID) ?? []
        switch result {
        case .loaded(let loadedGame):
            let room = rooms[gameID] ?? adopt(GameRoom(loaded: loadedGame, windowSize: config.windowSize), now: now)
            for waiter in waiters {
                switch waiter {
                case .connection(let connection):
                    guard connection.session.wait == .gameLoad(gameID) else { continue }
                    connection.session.wait = nil
                    resume(connection, now: now)
                case .http(let request):
                    actions.append(.respond(request, .json(room.lobbyEntry.json.encoded)))
                case .remoteHTTP(let node, let token):
                    actions.append(.redis(.publish(channel: ClusterKeys.nodeChannel(node), payload: ClusterMessage.apiAnswer(
                        token: token, status: 200, body: Array(room.lobbyEntry.json.encoded.utf8)).bytes)))
                }
            }
        case .notFound, .failed:
            let error: ProtocolError
            if case .failed(let why) = result {
                log(.error, "a stored game could not be loaded", ["game": gameID, "error": why])
                error = .unavailable("game \(gameID) cannot be loaded from storage now")
            } else {
                error = ProtocolError(.notFound, "no game \(gameID)")
            }
            for waiter in waiters {
                switch waiter {
                case .connection(let connection):
                    guard connection.session.wait == .gameLoad(gameID) else { continue }
                    connection.session.wait = nil
                    // The held join or watch that asked for the game is answered here, not sent round again.
                    if let first = connection.session.takeHeld() {
                        switch first.parsed {
                        case .request(let request): reply(connection, error: error, requestID: request.id)
                        case .failure(let other, let requestID): reply(connection, error: other, requestID: requestID)
                        }
                    }
                    resume(connection, now: now)
                case .http(let request):
                    let status: UInt32 = error.code == .notFound ? 404 : 503
                    actions.append(.respond(request, .text(status, error.message + "\n")))
                case .remoteHTTP(let node, let token):
                    let status: UInt32 = error.code == .notFound ? 404 : 503
                    actions.append(.redis(.publish(channel: ClusterKeys.nodeChannel(node), payload: ClusterMessage.apiAnswer(
                        token: token, status: status, body: Array((error.message + "\n").utf8)).bytes)))
                }
            }
        }
        return takeActions()
    }

    func finishRewind(_ rewind: Rewind, _ result: LoadResult, now: Double) {
        let room = rewind.room
        defer {
            for waiter in rewind.waiters where waiter.session.wait == .rewind(room.id) {
                waiter.session.wait = nil
                resume(waiter, now: now)
            }
        }
        let lost = ProtocolError.unavailable("storage failed, so this command was not applied: \(rewind.reason)")
        for (connection, id) in rewind.failedAcks where connection.session.isOpen {
            metricError(.unavailable)
            send(ServerMessage.error(lost, id: id).frame, to: connection)
        }
        switch result {
        case .loaded(let loadedGame):
            room.rewind(to: loadedGame)
            lobbyChanged()
            for connection in rewind.members where connection.session.isOpen && connection.session.room === room {
                // Whatever it was shown after the failure point is void: it gets the stored state again.
                if let role = connection.session.role {
                    send(ServerMessage.joined(game: room.id, kind: room.kind, role: role, seq: room.seq).frame, to: connection)
                }
                send(room.snapshotFrame(for: connection.session.view), to: connection)
                for (acked, id) in rewind.acks where acked === connection {
                    send(ServerMessage.ack(id: id, seq: room.seq).frame, to: connection)
                }
                room.subscribe(connection)
                if connection.session.wait == .rewind(room.id) { connection.session.wait = nil }
                resume(connection, now: now)
            }
        case .notFound, .failed:
            // Its creation was never stored (or storage cannot be read): the game is gone from memory too.
            for connection in rewind.members where connection.session.room === room {
                connection.session.room = nil
                connection.session.role = nil
                connection.session.recipientSlot = -1
                if connection.session.wait == .rewind(room.id) { connection.session.wait = nil }
                resume(connection, now: now)
            }
            forget(room)
        }
    }

    /// A page of a game's stored diff frames, for the catch-up with this token.
    func historyRead(token: UInt64, frames: [String], now: Double) -> [HubAction] {
        guard var catchUp = historyReads.removeValue(forKey: token) else { return [] }
        let connection = catchUp.connection
        guard connection.session.isOpen, connection.session.room === catchUp.room,
              connection.session.wait == .history(token: token) else { return [] }
        let room = catchUp.room
        for text in frames { room.enqueue(.reply(connection, room.frame(OutFrame(text), for: connection.session.view))) }
        catchUp.after += frames.count
        continueCatchUp(catchUp, token: token, storageHadMore: !frames.isEmpty, now: now)
        return takeActions()
    }

    /// The stored seq of a command id that the game's memory only had as a hash.
    func commandFound(token: UInt64, seq: Int?, now: Double) -> [HubAction] {
        guard let lookup = commandLookups.removeValue(forKey: token) else { return [] }
        let connection = lookup.connection
        guard connection.session.isOpen, connection.session.wait == .commandLookup(token: token) else { return [] }
        connection.session.wait = nil
        if let seq {
            lookup.room.enqueue(.ack(connection, id: lookup.requestID, seq: seq, isCommand: false))
            release(lookup.room)
        } else if connection.session.room === lookup.room {
            applyGesture(connection, lookup.gesture, in: lookup.room, requestID: lookup.requestID, now: now,
                         arrival: lookup.arrival)
        }
        resume(connection, now: now)
        return takeActions()
    }

    func storedGamesListed(token: UInt64, games: [StoredGame]?) -> [HubAction] {
        guard let (request, query) = storedListings.removeValue(forKey: token) else { return [] }
        guard let games else { return [.respond(request, .text(503, "storage cannot be read now\n"))] }
        let live = rooms.values.map(\.lobbyEntry)
        return [.respond(request, .json(LobbyEntry.array(Lobby.merged(live: live, stored: games, query: query))))]
    }

    // MARK: Time

    /// Periodic work (every 100 ms in the server): merged presence, lobby updates, games going to rest.
    func tick(now: Double) -> [HubAction] {
        sendPresence(now: now)
        if lobbyDirty && !lobbyFollowers.isEmpty && now - lastLobbySent >= 1 {
            lobbyDirty = false
            lastLobbySent = now
            let frame = lobbyFrame()
            for follower in lobbyFollowers.values { deliver(frame, to: follower) }
        }
        restIdleGames(now: now)
        refillWinnablePool(now: now)
        return takeActions()
    }

    /// Presence goes to every member of a game whose counts changed, merged: a crowd arriving
    /// costs one update per interval, not one per joiner.
    func sendPresence(now: Double) {
        guard !presenceDirty.isEmpty else { return }
        var later: [GameRoom] = []
        for room in presenceDirty {
            let interval = room.memberCount > config.crowdSize ? 1.0 : config.presenceInterval
            guard now - room.lastPresenceSent >= interval else {
                later.append(room)
                continue
            }
            room.presenceQueued = false
            guard room.presenceDirty, rooms[room.id] === room else { continue }
            room.presenceDirty = false
            room.lastPresenceSent = now
            room.enqueue(.broadcast(ServerMessage.presence(game: room.id, players: room.playerCount,
                                                           spectators: room.spectatorCount).frame))
            release(room)
            lobbyChanged()
        }
        presenceDirty = later
    }

    func queuePresence(_ room: GameRoom) {
        guard !room.presenceQueued else { return }
        room.presenceQueued = true
        presenceDirty.append(room)
    }

    var lastRestCheck = -Double.infinity

    /// A game with no member and no command for `idleSeconds` leaves memory once everything
    /// it sent is durable; storage keeps it, and it comes back on first use.
    func restIdleGames(now: Double) {
        guard now - lastRestCheck >= 1 else { return }
        lastRestCheck = now
        for room in Array(memberless.values) {
            guard room.memberCount == 0 else {
                memberless[room.id] = nil
                continue
            }
            guard now - room.updated >= config.idleSeconds, !room.hasWaitingOutput, rewinding[room.id] == nil else { continue }
            forget(room)
            log(.debug, "game resting", ["game": room.id])
        }
    }

    func forget(_ room: GameRoom) {
        rooms[room.id] = nil
        memberless[room.id] = nil
        waitingRooms[ObjectIdentifier(room)] = nil
        lobbyChanged()
    }

    // MARK: HTTP

    /// `/api/games` and `/api/games/GAME`.
    func http(_ request: HTTPRequestID, path: String, query: String?, now: Double = 0) -> [HubAction] {
        if path == "/api/games" || path == "/api/games/" {
            switch LobbyQuery.parse(query) {
            case .failure(let refusal):
                actions.append(.respond(request, .text(400, refusal.why + "\n")))
            case .success(let lobbyQuery) where lobbyQuery.reachesRestingGames:
                nextToken += 1
                storedListings[nextToken] = (request, lobbyQuery)
                actions.append(.listStoredGames(token: nextToken, query: lobbyQuery))
            case .success(let lobbyQuery):
                let remote = cluster.map { Array($0.remoteLobbies.values.joined()) } ?? []
                let entries = Lobby.top((Array(rooms.values.lazy.map(\.lobbyEntry)) + remote).filter(lobbyQuery.matches),
                                        limit: lobbyQuery.limit)
                actions.append(.respond(request, .json(LobbyEntry.array(entries))))
            }
        } else if path.hasPrefix("/api/games/") {
            let gameID = String(path.dropFirst("/api/games/".count))
            if let owner = owner(of: gameID), isRemote(gameID) {
                askOwner(request, game: gameID, owner: owner, now: now)
            } else if let room = rooms[gameID] {
                actions.append(.respond(request, .json(room.lobbyEntry.json.encoded)))
            } else if isPlausibleGameID(gameID) {
                load(gameID, for: .http(request))
            } else {
                actions.append(.respond(request, .text(404, "no game \(gameID)\n")))
            }
        } else {
            actions.append(.respond(request, .text(404, "not found\n")))
        }
        return takeActions()
    }

    func isPlausibleGameID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { Secrets.isIDCharacter($0) }
    }

    // MARK: Requests

    func handle(_ connection: Connection, _ request: ClientRequest, now: Double, arrival: ContinuousClock.Instant?) {
        switch request.command {
        case .create(let kind, let options): create(connection, kind: kind, options: options, requestID: request.id, now: now)
        case .join(let game, let token, let since, let seat):
            enter(connection, game: game, token: token, seat: seat, since: since, replay: false, request: request, now: now)
        case .watch(let game, let since, let replay):
            enter(connection, game: game, token: nil, seat: nil, since: since, replay: replay, request: request, now: now)
        case .leave: leave(connection, requestID: request.id, now: now)
        case .list(let follow): list(connection, follow: follow, requestID: request.id)
        case .show: show(connection, requestID: request.id)
        case .hint: hint(connection, requestID: request.id)
        case .gesture(let type, let message):
            gesture(connection, type: type, message: message, requestID: request.id, now: now, arrival: arrival)
        case .forwardDone(let number):
            // After everything the forwarded request caused, in the same order as the rest.
            let frame = ClusterControl.done(number)
            if let room = connection.session.room {
                room.enqueue(.reply(connection, frame))
                release(room)
            } else {
                deliver(frame, to: connection)
            }
        }
    }

    func create(_ connection: Connection, kind: GameKind, options: JSON, requestID: JSON?, now: Double) {
        if kind != .plane, case .object = options, options["winnable"] != nil, options["winnable"] != .null {
            // A deal the solver proved winnable (section 12): from the pool, found, or the given one proved.
            let fields: KlondikeOptionFields
            do throws(ProtocolError) {
                fields = try KlondikeOptionFields(options)
                if kind == .race { _ = try RaceSeats.read(options) }
            } catch {
                reply(connection, error: error, requestID: requestID)
                return
            }
            if fields.winnable {
                let pending = PendingDeal.create(connection, kind: kind, options: options, requestID: requestID)
                dealWinnable(pending, draw: fields.draw ?? 1, given: fields.deal, now: now)
                return
            }
        }
        finishCreate(connection, kind: kind, options: options, requestID: requestID, poolSeed: nil, now: now)
    }

    func finishCreate(_ connection: Connection, kind: GameKind, options: JSON, requestID: JSON?,
                              poolSeed: WinnableSeed?, now: Double) {
        let game: AnyGame
        let storedOptions: JSON
        do throws(ProtocolError) {
            (game, storedOptions) = try AnyGame.create(kind: kind, options: options, time: now, random: &random)
        } catch {
            reply(connection, error: error, requestID: requestID)
            return
        }
        if cluster?.fenced == true {
            reply(connection, error: .unavailable("this node no longer owns games: another process took its name"),
                  requestID: requestID)
            return
        }
        let token = Secrets.token(using: &random)
        let prefix = cluster?.identity.code ?? ""
        var gameID = prefix + Secrets.gameID(using: &random)
        while rooms[gameID] != nil || loading[gameID] != nil || gameIDIsTaken(gameID) {
            gameID = prefix + Secrets.gameID(using: &random)
        }
        let room = adopt(GameRoom(id: gameID, game: game, tokenHash: Secrets.hash(token), options: storedOptions,
                                  created: now, windowSize: config.windowSize), now: now)
        store(StoreBatch(games: [room.storedGame], winnableSeedsTaken: poolSeed.map { [$0] } ?? []), for: room)
        log(.info, "game created", ["game": gameID, "kind": kind.rawValue, "conn": "\(connection.id)"])
        // The token is handed out only once the game is durable (the outbox waits for its ticket).
        leaveGame(connection, now: now)
        room.enqueue(.reply(connection, ServerMessage.created(game: gameID, token: token).frame))
        admit(connection, to: room, asPlayer: true, seat: room.kind == .race ? room.seats.first : nil, since: nil,
              replay: false, requestID: requestID, isCreation: true, now: now)
    }

    // MARK: Winnable deals

    /// Deals a proven seed from the pool at once; otherwise (or for a given deal) the
    /// connection waits for the solver, which answers within the protocol's two seconds.
    func dealWinnable(_ pending: PendingDeal, draw: Int, given: KlondikeDeal?, now: Double) {
        if given == nil, let seed = pool[draw]?.popLast() {
            finishDeal(pending, seed: seed, fromPool: true, now: now)
            return
        }
        nextToken += 1
        pendingDeals[nextToken] = pending
        pending.connection.session.wait = .solver(token: nextToken)
        let candidates = given == nil ? (0..<16).map { _ in random.next() >> 11 } : []
        actions.append(.solve(.deal(token: nextToken, draw: draw, given: given, candidates: candidates)))
    }

    func finishDeal(_ pending: PendingDeal, seed: UInt64?, fromPool: Bool, now: Double) {
        switch pending {
        case .create(let connection, let kind, let options, let requestID):
            var dealt = options
            if let seed { dealt = .object((options.objectPairs ?? []).filter { $0.key != "seed" } + [("seed", .int(Int(seed)))]) }
            let draw = options["draw"]?.intValue ?? 1
            finishCreate(connection, kind: kind, options: dealt, requestID: requestID,
                         poolSeed: fromPool ? seed.map { WinnableSeed(draw: draw, seed: $0) } : nil, now: now)
        case .reset(let connection, let room, let gesture, let requestID, let arrival):
            guard connection.session.room === room else { return }
            let dealt = seed.map { gesture.dealing(seed: $0) } ?? gesture
            let poolSeed = fromPool ? seed.map { WinnableSeed(draw: gesture.resetDraw ?? resetDraw(of: room), seed: $0) } : nil
            applyGesture(connection, dealt, in: room, requestID: requestID, now: now, arrival: arrival, poolSeed: poolSeed)
        }
    }

    /// The draw a reset keeps when its options name none.
    func resetDraw(of room: GameRoom) -> Int {
        switch room.game {
        case .klondike(let klondike): return klondike.draw
        case .race(let race): return race.seats.first.flatMap { race.table(of: $0)?.draw } ?? 1
        case .plane: return 1
        }
    }

    /// The solver answered: a deal for a waiting `create`/`reset`, hints for waiting askers,
    /// or seeds for the pool.
    func solved(_ result: SolveResult, now: Double) -> [HubAction] {
        switch result {
        case .deal(let token, let proven, let seed):
            guard let pending = pendingDeals.removeValue(forKey: token) else { break }
            let connection = pending.connection
            guard connection.session.isOpen, connection.session.wait == .solver(token: token) else { break }
            connection.session.wait = nil
            if proven {
                finishDeal(pending, seed: seed, fromPool: false, now: now)
            } else {
                let requestID: JSON?
                switch pending {
                case .create(_, _, _, let id), .reset(_, _, _, let id, _): requestID = id
                }
                let given: Bool
                switch pending {
                case .create(_, _, let options, _): given = options["seed"] != nil || options["deck"] != nil
                case .reset(_, _, let gesture, _, _): given = gesture.resetHasDeal
                }
                let error = given
                    ? ProtocolError(.illegalMove, "the solver could not prove this deal winnable")
                    : ProtocolError.unavailable("no winnable deal was found in time; try again")
                reply(connection, error: error, requestID: requestID)
            }
            resume(connection, now: now)
        case .hint(let token, let answers):
            if hintCache.count + answers.count > config.hintCacheLimit { hintCache.removeAll(keepingCapacity: true) }
            for (key, answer) in answers { hintCache[key] = answer }
            if let asked = answers.first?.0 { hintsSolving[asked] = nil }
            let answer = answers.first?.1 ?? HintAnswer(hint: nil, winnable: nil)
            for (connection, requestID) in hintWaiters.removeValue(forKey: token) ?? [] {
                guard connection.session.isOpen, connection.session.wait == .solver(token: token) else { continue }
                connection.session.wait = nil
                answerHint(connection, answer, requestID: requestID)
                resume(connection, now: now)
            }
        case .refill(let draw, let seeds):
            refilling.remove(draw)
            let fresh = Set(seeds).subtracting(pool[draw] ?? [])
            guard !fresh.isEmpty else { break }
            pool[draw, default: []].append(contentsOf: fresh)
            store(StoreBatch(winnableSeedsAdded: fresh.map { WinnableSeed(draw: draw, seed: $0) }), for: nil)
        }
        return takeActions()
    }

    /// Keeps each draw's pool of proven seeds topped up, a few candidates at a time.
    func refillWinnablePool(now: Double) {
        // Not in the first seconds: start-up, and whatever measures it, comes first.
        if firstTick == nil { firstTick = now }
        guard let firstTick, now - firstTick >= config.poolRefillDelay else { return }
        for draw in [1, 3] where (pool[draw]?.count ?? 0) < config.winnablePoolTarget && !refilling.contains(draw) {
            refilling.insert(draw)
            actions.append(.solve(.refill(draw: draw, candidates: (0..<8).map { _ in random.next() >> 11 })))
        }
    }

    func enter(_ connection: Connection, game gameID: String, token: String?, seat: String?, since: Int?,
                       replay: Bool, request: ClientRequest, now: Double) {
        if rewinding[gameID] != nil {
            // Being rebuilt after a failed write: answered once it is back as storage has it.
            connection.session.held.insert(HeldRequest(parsed: .request(request), arrival: nil),
                                           at: connection.session.heldHead)
            connection.session.wait = .rewind(gameID)
            rewinding[gameID]?.waiters.append(connection)
            return
        }
        guard let room = rooms[gameID] else {
            guard isPlausibleGameID(gameID) else {
                reply(connection, error: ProtocolError(.notFound, "no game \(gameID)"), requestID: request.id)
                return
            }
            // A resting game: load it, and answer this request (and any held after it) once it is back.
            connection.session.held.insert(HeldRequest(parsed: .request(request), arrival: nil),
                                           at: connection.session.heldHead)
            connection.session.wait = .gameLoad(gameID)
            load(gameID, for: .connection(connection))
            return
        }
        if let token, !Secrets.matches(token, hash: room.tokenHash) {
            reply(connection, error: ProtocolError(.forbidden, "wrong token for \(gameID)"), requestID: request.id)
            return
        }
        var raceSeat: String?
        if token != nil && room.kind == .race {
            // A race seats each player at a table of their own; a dropped player takes theirs back by name.
            guard let free = room.freeSeat(asked: seat, by: connection) else {
                let why = seat.map { room.seats.contains($0) ? "seat \($0) is held by another connection" : "this race has no seat \($0)" }
                    ?? "every seat of this race is held"
                reply(connection, error: ProtocolError(.forbidden, why), requestID: request.id)
                return
            }
            raceSeat = free
        }
        leaveGame(connection, now: now)
        admit(connection, to: room, asPlayer: token != nil, seat: raceSeat, since: since, replay: replay,
              requestID: request.id, now: now)
    }

    func load(_ gameID: String, for waiter: Waiter) {
        if loading[gameID] != nil {
            loading[gameID]?.append(waiter)
        } else {
            loading[gameID] = [waiter]
            actions.append(.load(game: gameID))
        }
    }

    @discardableResult
    func adopt(_ room: GameRoom, now: Double) -> GameRoom {
        rooms[room.id] = room
        memberless[room.id] = room
        lobbyChanged()
        if case .plane(let plane) = room.game {
            // Selections belong to connections; after a rest or a restart their owners are gone.
            for player in plane.selectedPlayers { dropSelection(of: player, in: room, now: now) }
        }
        return room
    }

    /// Makes a connection a member: `joined`, then its state (a snapshot, the diffs after
    /// `since`, or the deal and every diff for a replay), then the ack. Diffs older than
    /// the window come from storage first; the connection waits meanwhile.
    func admit(_ connection: Connection, to room: GameRoom, asPlayer: Bool, seat: String? = nil, since: Int?,
                       replay: Bool, requestID: JSON?, isCreation: Bool = false, now: Double) {
        let role = room.addMember(asPlayer: asPlayer, seat: seat)
        connection.session.room = room
        connection.session.role = role
        connection.session.view = seat.map(RaceViewer.seat) ?? .spectator
        if let seat { room.take(seat: seat, by: connection) }
        memberless[room.id] = nil
        queuePresence(room)
        room.enqueue(.reply(connection, ServerMessage.joined(game: room.id, kind: room.kind, role: role, seq: room.seq).frame))
        let after: Int
        let view = connection.session.view
        if replay {
            room.enqueue(.reply(connection, room.initialSnapshotFrame(for: view)))
            after = 0
        } else if let since, since <= room.seq {
            after = since
        } else {
            room.enqueue(.reply(connection, room.snapshotFrame(for: view)))
            after = room.seq
        }
        continueCatchUp(HistoryCatchUp(connection: connection, room: room, after: after, requestID: requestID,
                                       isCreation: isCreation),
                        token: nil, storageHadMore: true, now: now)
        startRaceIfEverySeatWasTaken(room, now: now)
    }

    /// A race starts once every seat has been taken (PROTOCOL section 13): the server issues
    /// `start`, stored like any command so a replay starts it at the same seq.
    func startRaceIfEverySeatWasTaken(_ room: GameRoom, now: Double) {
        guard case .race(let race) = room.game, race.phase == .waiting, room.everySeatTaken else { return }
        let cause: JSON = .object(["type": "start"])
        _ = apply(.race(.start), cause: cause, stored: cause, player: "server", in: room, clientID: nil, now: now,
                  arrival: nil)
        release(room)
    }

    /// Sends the diffs after `catchUp.after` from the window if it holds them, else asks
    /// storage for the next page (once everything before is durable, so no page comes up short).
    func continueCatchUp(_ catchUp: HistoryCatchUp, token: UInt64?, storageHadMore: Bool, now: Double) {
        let connection = catchUp.connection
        let room = catchUp.room
        if let frames = room.window.frames(after: catchUp.after) {
            for frame in frames { room.enqueue(.reply(connection, room.frame(frame, for: connection.session.view))) }
            if let requestID = catchUp.requestID {
                room.enqueue(.ack(connection, id: requestID, seq: room.seq, isCommand: catchUp.isCreation))
            }
            room.enqueue(.subscribe(connection, seq: room.seq))
            if token != nil {
                connection.session.wait = nil
                release(room)
                resume(connection, now: now)
            } else {
                release(room)
            }
            return
        }
        nextToken += 1
        let next = nextToken
        historyReads[next] = catchUp
        connection.session.wait = .history(token: next)
        if !storageHadMore { log(.warning, "storage returned no diffs where the window does not reach", ["game": room.id]) }
        room.enqueue(.afterDurable(.readHistory(HistoryRequest(token: next, game: room.id, after: catchUp.after,
                                                               limit: config.historyPageSize))))
        release(room)
    }

    func leave(_ connection: Connection, requestID: JSON?, now: Double) {
        guard let room = connection.session.room else {
            reply(connection, error: ProtocolError(.notJoined, "not in a game"), requestID: requestID)
            return
        }
        leaveGame(connection, now: now)
        room.enqueue(.reply(connection, ServerMessage.left(game: room.id).frame))
        if let requestID { room.enqueue(.ack(connection, id: requestID, seq: nil, isCommand: false)) }
        release(room)
    }

    /// Takes a connection out of its game; a plane drops the player's selection.
    func leaveGame(_ connection: Connection, now: Double) {
        if connection.session.attachment != nil { detachRemote(connection) }
        guard let room = connection.session.room else { return }
        let role = connection.session.role
        room.removeMember(connection)
        connection.session.room = nil
        connection.session.role = nil
        queuePresence(room)
        if room.memberCount == 0 { memberless[room.id] = room }
        if case .player(let player)? = role { dropSelection(of: player, in: room, now: now) }
    }

    /// A plane forgets a departed player's selection, as a diff with cause `leave`.
    func dropSelection(of player: String, in room: GameRoom, now: Double) {
        guard case .plane(let plane) = room.game, plane.selectedPlayers.contains(player) else { return }
        let cause: JSON = .object(["type": "leave"])
        _ = apply(.plane(.leave), cause: cause, stored: cause, player: player, in: room, clientID: nil, now: now, arrival: nil)
        release(room)
    }

    func list(_ connection: Connection, follow: Bool?, requestID: JSON?) {
        if follow == true { lobbyFollowers[connection.id] = connection }
        if follow == false { lobbyFollowers[connection.id] = nil }
        let lobby = lobbyFrame()
        // An ack carries the seq of the connection's game whenever it is in one.
        if let room = connection.session.room {
            room.enqueue(.reply(connection, lobby))
            if let requestID { room.enqueue(.ack(connection, id: requestID, seq: room.seq, isCommand: false)) }
            release(room)
        } else {
            deliver(lobby, to: connection)
            if let requestID { deliver(ServerMessage.ack(id: requestID, seq: nil).frame, to: connection) }
        }
    }

    func show(_ connection: Connection, requestID: JSON?) {
        guard let room = connection.session.room else {
            reply(connection, error: ProtocolError(.notJoined, "show needs a game: join or watch one"), requestID: requestID)
            return
        }
        for line in room.textBoardFrames(for: connection.session.view) { room.enqueue(.reply(connection, line)) }
        if let requestID { room.enqueue(.ack(connection, id: requestID, seq: room.seq, isCommand: false)) }
        release(room)
    }

    func hint(_ connection: Connection, requestID: JSON?) {
        guard let room = connection.session.room else {
            reply(connection, error: ProtocolError(.notJoined, "hint needs a game: join or watch one"), requestID: requestID)
            return
        }
        guard room.kind != .plane else {
            reply(connection, error: ProtocolError(.unknownType, "plane has no hint"), requestID: requestID)
            return
        }
        guard let klondike = room.game.klondikeTable(for: connection.session.view) else {
            reply(connection, error: ProtocolError(.forbidden, "hints in a race are for a seated player's own table"),
                  requestID: requestID)
            return
        }
        let key = klondike.positionKey
        if let cached = hintCache[key] {
            answerHint(connection, cached, requestID: requestID)
            return
        }
        // The solver decides the hint (and whether the position can still be won), off the
        // service thread; every asker of the same position waits for the one solve.
        let token: UInt64
        if let solving = hintsSolving[key] {
            token = solving
        } else {
            nextToken += 1
            token = nextToken
            hintsSolving[key] = token
            actions.append(.solve(.hint(token: token, table: klondike)))
        }
        hintWaiters[token, default: []].append((connection, requestID))
        connection.session.wait = .solver(token: token)
    }

    func answerHint(_ connection: Connection, _ answer: HintAnswer, requestID: JSON?) {
        guard let room = connection.session.room else {
            deliver(answer.message.frame, to: connection)
            if let requestID { deliver(ServerMessage.ack(id: requestID, seq: nil).frame, to: connection) }
            return
        }
        room.enqueue(.reply(connection, answer.message.frame))
        if let requestID { room.enqueue(.ack(connection, id: requestID, seq: room.seq, isCommand: false)) }
        release(room)
    }

    func gesture(_ connection: Connection, type: String, message: JSON, requestID: JSON?, now: Double,
                         arrival: ContinuousClock.Instant?) {
        guard let room = connection.session.room else {
            do {
                try Gesture(rawValue: type)?.validateForAnyKind(message)
                reply(connection, error: ProtocolError(.notJoined, "\(type) needs a game: create, join or watch one"),
                      requestID: requestID)
            } catch {
                reply(connection, error: error, requestID: requestID)
            }
            return
        }
        let parsed: ParsedGesture
        do {
            parsed = try Gesture.parse(type: type, message: message, kind: room.kind)
        } catch {
            reply(connection, error: error, requestID: requestID)
            return
        }
        guard connection.session.role?.isPlayer == true else {
            reply(connection, error: ProtocolError(.forbidden, "spectators cannot \(type)"), requestID: requestID)
            return
        }
        if parsed.wantsWinnable {
            let pending = PendingDeal.reset(connection, room: room, gesture: parsed, requestID: requestID, arrival: arrival)
            dealWinnable(pending, draw: parsed.resetDraw ?? resetDraw(of: room), given: parsed.resetDeal, now: now)
            return
        }
        if let requestID {
            switch room.appliedIDs.lookup(requestID.encoded) {
            case .applied(let seq):
                room.enqueue(.ack(connection, id: requestID, seq: seq, isCommand: false))
                release(room)
                return
            case .maybe:
                // Applied long ago, or a hash collision: storage knows. The connection waits for the answer.
                nextToken += 1
                commandLookups[nextToken] = PendingLookup(connection: connection, room: room, gesture: parsed,
                                                          requestID: requestID, arrival: arrival)
                connection.session.wait = .commandLookup(token: nextToken)
                room.enqueue(.afterDurable(.lookupCommand(token: nextToken, game: room.id, clientID: requestID.encoded)))
                release(room)
                return
            case .new:
                break
            }
        }
        applyGesture(connection, parsed, in: room, requestID: requestID, now: now, arrival: arrival)
    }

    func applyGesture(_ connection: Connection, _ parsed: ParsedGesture, in room: GameRoom, requestID: JSON?,
                              now: Double, arrival: ContinuousClock.Instant?, poolSeed: WinnableSeed? = nil) {
        guard case .player(let player)? = connection.session.role else { return }
        if cluster?.fenced == true {
            reply(connection, error: .unavailable("this node no longer owns this game: another process took its name"),
                  requestID: requestID)
            return
        }
        switch apply(parsed.command, cause: parsed.cause, stored: parsed.stored, player: player, in: room,
                     clientID: requestID?.encoded, now: now, arrival: arrival, poolSeed: poolSeed) {
        case .success:
            if let requestID { room.enqueue(.ack(connection, id: requestID, seq: room.seq, isCommand: true)) }
        case .failure(let error):
            reply(connection, error: ProtocolError(error), requestID: requestID)
        }
        release(room)
    }

    /// Applies one command to a room: the diff and events are queued for every member
    /// and the command goes to storage. Nothing changes if the game refuses it.
    func apply(_ command: GameCommand, cause: JSON, stored: JSON, player: String, in room: GameRoom,
                       clientID: String?, now: Double, arrival: ContinuousClock.Instant?,
                       poolSeed: WinnableSeed? = nil) -> Result<Void, GameError> {
        let outcome: GameOutcome
        switch room.game.apply(command, context: MoveContext(player: player, time: now)) {
        case .success(let result): outcome = result
        case .failure(let error): return .failure(error)
        }
        let frames = room.record(outcome, cause: cause.adding(by: player), clientID: clientID, time: now)
        let row = StoredCommand(game: room.id, seq: room.seq, command: stored, player: player, clientID: clientID,
                                time: now, diff: frames.first?.frame.text)
        store(StoreBatch(games: [room.storedGame], commands: [row], winnableSeedsTaken: poolSeed.map { [$0] } ?? []),
              for: room)
        room.enqueue(.viewBroadcast(frames, seq: room.seq), arrival: arrival)
        for event in outcome.events {
            room.enqueue(.broadcast(ServerMessage.event(game: room.id, seq: room.seq, event: event).frame))
        }
        lobbyChanged()
        return .success(())
    }

    func store(_ batch: StoreBatch, for room: GameRoom?) {
        guard config.durable else { return }
        lastTicket += 1
        room?.noteTicket(lastTicket)
        actions.append(.store(batch, ticket: lastTicket))
    }

    // MARK: Output

    /// An error goes out behind the connection's earlier replies in its game, if it is in one.
    func reply(_ connection: Connection, error: ProtocolError, requestID: JSON?) {
        metricError(error.code)
        log(.info, "refused", ["conn": "\(connection.id)", "code": error.code.rawValue, "why": error.message])
        let frame = ServerMessage.error(error, id: requestID).frame
        if let room = connection.session.room {
            room.enqueue(.reply(connection, frame))
            release(room)
        } else {
            deliver(frame, to: connection)
        }
    }

    func release(_ room: GameRoom) {
        defer {
            // Only rooms with output waiting for storage are looked at when a commit comes in.
            if room.hasWaitingOutput { waitingRooms[ObjectIdentifier(room)] = room } else { waitingRooms[ObjectIdentifier(room)] = nil }
        }
        room.release(committed: config.durable ? committed : .max) { output, arrival in
            switch output {
            case .broadcast(let frame):
                for audience in room.audiences.values {
                    actions.append(.broadcast(frame, to: audience, arrival: arrival))
                }
                if room.remoteRecipients > 0 {
                    publish(room, ClusterMessage.Publication(isDiff: false, seq: room.seq,
                                                             parts: [.init(views: ["all"], frame: frame.bytes)]))
                }
            case .viewBroadcast(let frames, let seq):
                var first = true
                for (viewers, frame) in frames {
                    for viewer in viewers {
                        guard let audience = room.audiences[viewer] else { continue }
                        actions.append(.broadcast(frame, to: audience, arrival: first ? arrival : nil))
                        first = false
                    }
                }
                if room.remoteRecipients > 0 {
                    publish(room, ClusterMessage.Publication(isDiff: true, seq: seq, parts: frames.map {
                        .init(views: $0.viewers.map(\.tag), frame: $0.frame.bytes)
                    }))
                }
            case .reply(let connection, let frame):
                deliver(frame, to: connection)
            case .ack(let connection, let id, let seq, _):
                deliver(ServerMessage.ack(id: id, seq: seq).frame, to: connection)
            case .subscribe(let connection, let seq):
                if connection.session.isOpen && connection.session.room === room {
                    room.subscribe(connection)
                    // Another node's connection: its node starts passing it the game's broadcasts from here.
                    if connection.remote != nil { deliver(ClusterControl.subscribed(game: room.id, seq: seq), to: connection) }
                }
            case .afterDurable(let action):
                actions.append(action)
            }
        }
    }

    func publish(_ room: GameRoom, _ publication: ClusterMessage.Publication) {
        counters.published += 1
        actions.append(.redis(.publishGame(game: room.id, publication: publication)))
    }

    func deliver(_ frame: OutFrame, to connection: Connection) {
        guard connection.session.isOpen else { return }
        actions.append(.send(frame, to: connection))
    }

    func send(_ frame: OutFrame, to connection: Connection) { deliver(frame, to: connection) }

    func metricError(_ code: ErrorCode) { actions.append(.countError(code)) }

    func log(_ level: LogLine.Level, _ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        actions.append(.log(LogLine(level, message, metadata.map { ($0.key, $0.value) })))
    }

    func takeActions() -> [HubAction] {
        defer { actions = [] }
        return actions
    }

    // MARK: Lobby

    /// Something the lobby shows changed: followers hear of it on the next tick.
    func lobbyChanged() {
        lobbyDirty = true
        lobbyCache = nil
    }

    /// The lobby message, encoded once per change however often clients ask for it.
    func lobbyFrame() -> OutFrame {
        if let lobbyCache { return lobbyCache }
        let frame = ServerMessage.lobby(lobbyEntries()).frame
        lobbyCache = frame
        return frame
    }

    /// The live games of this node and, in a cluster, of every other live node.
    func lobbyEntries() -> [LobbyEntry] {
        let own = rooms.values.lazy.map(\.lobbyEntry)
        guard let remote = cluster?.remoteLobbies, !remote.isEmpty else { return Lobby.top(own, limit: Lobby.liveLimit) }
        return Lobby.top(Array(own) + remote.values.joined(), limit: Lobby.liveLimit)
    }
}

extension LogLine {
    typealias Level = Logger.Level
}

/// The hub's source of randomness as a generator Swift's APIs take.
struct HubRandom: RandomNumberGenerator {
    let source: @Sendable () -> UInt64
    init(next: @escaping @Sendable () -> UInt64) { source = next }
    mutating func next() -> UInt64 { source() }
}
