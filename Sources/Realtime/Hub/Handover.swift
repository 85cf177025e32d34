import Core

/// Games changing hands in a store shared by nodes (PROTOCOL 11.1): claiming a game before it
/// is served here, taking one over from a gone owner (its members here carry on without a
/// word to their clients), giving one up when it rests, and handing one over when the store
/// says another node holds it now (its members here go on through that node).
final class Handover {
    /// This node's name, which the store records as owner.
    let node: String
    private let sessions: SessionTable
    private let rooms: RoomTable
    private let admission: Admission
    private let durability: Durability
    private let pending: PendingTable<PendingRequest>
    private let lobby: LobbyFeed
    /// The other nodes, on a cluster node (owned by the hub).
    weak var link: (any NodeLink)?

    init(node: String, parts: HubParts, admission: Admission) {
        self.node = node
        sessions = parts.sessions
        rooms = parts.rooms
        self.admission = admission
        durability = parts.durability
        pending = parts.pending
        lobby = parts.lobby
    }

    /// Whom a claim may take a game from: with no cluster around, anyone.
    var takeoverPolicy: TakeoverPolicy { link?.takeoverPolicy ?? .any }

    /// What storage answered a claim: the game here (and the members that went through its
    /// old owner taken in), or the node that holds it. Returns connections whose held requests
    /// may go on (a waiting join is routed again, to the owner now known).
    func acquired(_ game: String, _ acquisition: Acquisition, now: Instant, into effects: inout Effects) -> [ConnectionID] {
        switch acquisition {
        case .loaded(let loaded, let ownership):
            let resumable = admission.loaded(game, .loaded(loaded), epoch: ownership.epoch, now: now, into: &effects)
            guard let room = rooms[game] else { return resumable }
            room.epoch = ownership.epoch
            lobby.changed()
            for request in link?.acquired(game, ownership, into: &effects) ?? [] {
                if case .admitQuietly(let id, let join) = request { admitQuietly(id, join, now: now, into: &effects) }
            }
            return resumable
        case .ownedBy(let owner):
            link?.learned(game, owner: owner, now: now, into: &effects)
            var resumable: [ConnectionID] = []
            for waiter in rooms.takeLoadWaiters(game) {
                switch waiter {
                case .connection(let id):
                    if sessions.endWait(id, .gameLoad(game)) { resumable.append(id) }
                case .http(let request, let key):
                    if let link, link.routeHTTP(request, path: "/api/games/" + game, query: key.map { "key=" + $0 }, now: now,
                                                into: &effects) { continue }
                    effects.append(.respond(request, .text(503, "the node that owns this game cannot be reached now\n")))
                case .takeover:
                    break
                }
            }
            return resumable
        case .notFound, .failed:
            link?.claimFailed(game)
            if case .failed = acquisition { effects.log(.error, "a game could not be claimed from the store", ["game": game]) }
            let result: LoadResult
            if case .failed(let why) = acquisition { result = .failed(why) } else { result = .notFound }
            return admission.loaded(game, result, now: now, into: &effects)
        }
    }

    /// A connection that was a member through the game's old owner joins the room here as it
    /// was: its join again, with `since` what it has seen, and nothing shown that it has.
    func admitQuietly(_ id: ConnectionID, _ join: JSON, now: Instant, into effects: inout Effects) {
        guard sessions.isOpen(id), case .request(let request) = ClientMessageParser.parse(message: join, games: .noGameCommands) else { return }
        if let entry = GameEntry(request.command, quiet: true) {
            admission.enter(id, request, entry, now: now, into: &effects)
        }
        // Taken in behind what it saw: this copy is stale, and the store says who owns the game
        // now, without waiting for a write to be refused (one with nothing to write waits forever).
        if let session = sessions[id], session.shownThrough != nil, let room = session.room, !checking.contains(room.id) {
            askOwner(of: room, into: &effects)
        }
    }

    /// Games whose owner the store is being asked (a join past this node's copy waits for the answer).
    private var checking: Set<String> = []

    private func askOwner(of room: GameRoom, into effects: inout Effects) {
        room.ownershipDoubtedAt = room.seq
        checking.insert(room.id)
        ask([room.id], into: &effects)
    }

    private func ask(_ games: [String], into effects: inout Effects) {
        effects.append(.read(.ownerships(token: pending.issue(.ownershipCheck(games: games)), games: games)))
    }

    /// Games served here whose owner a check could not learn (the store failed during it). Until
    /// the store says, another node may hold one of them (this node's lease ran out): its copy here
    /// would go on answering joins and watches with a history that stopped, and its members here
    /// would never hear the new owner's moves. So each tick asks again while the store answers.
    private var unverified: Set<String> = []
    private var askedAgain = false

    /// Why a `join` or `watch` of `game` is not answered here now: a check could not learn who
    /// owns it, and another node may have taken it over while this copy stopped. Until the store
    /// says, the request is `unavailable` (its client tries again), never served from this copy.
    func refusal(for game: String) -> ProtocolError? {
        guard unverified.contains(game), rooms[game] != nil else { return nil }
        return .unavailable("who holds game \(game) now is not known here: the store could not say; try again")
    }

    /// Asks the store again about the games a check could not learn the owner of.
    func askAgain(into effects: inout Effects) {
        guard !askedAgain, !unverified.isEmpty else { return }
        unverified = unverified.filter { rooms[$0] != nil }
        guard !unverified.isEmpty else { return }
        askedAgain = true
        ask(unverified.sorted(), into: &effects)
    }

    /// Claims a game whose owner is gone, for its members here.
    func takeOver(_ game: String, now: Instant, into effects: inout Effects) {
        if let room = rooms[game] {
            // Already here (a member's request claimed it first): the rest come in.
            for request in link?.acquired(game, GameOwnership(node: node, epoch: room.epoch), into: &effects) ?? [] {
                if case .admitQuietly(let id, let join) = request { admitQuietly(id, join, now: now, into: &effects) }
            }
            return
        }
        rooms.awaitLoad(game, for: .takeover, into: &effects)
    }

    /// A game resting here belongs to nobody from now on: any node may wake it.
    func rested(_ room: GameRoom, into effects: inout Effects) {
        effects.append(.read(.release(game: room.id, node: node, epoch: room.epoch)))
    }

    /// A join or watch whose `since` is past this node's copy of the game: its client saw diffs
    /// this node never made, so another node may hold the game now (this one was cut off). The
    /// request waits for the store to say who owns the game, then goes there; if this node still
    /// owns it, it is answered here as any `since` past the game is (a snapshot).
    func doubts(_ id: ConnectionID, _ request: ClientRequest, game: String, since: Int?, into effects: inout Effects) -> Bool {
        guard let since, let room = rooms[game], since > room.seq,
              checking.contains(game) || room.ownershipDoubtedAt != room.seq else { return false }
        sessions.holdFirst(id, .request(.request(request), arrival: nil))
        sessions.setWait(id, .ownerCheck(game))
        doubting.append(id)
        if !checking.contains(game) { askOwner(of: room, into: &effects) }
        return true
    }

    /// Connections whose join or watch waits for an ownership check.
    private var doubting: [ConnectionID] = []

    /// Asks storage which of this node's live games it still owns.
    func verify(into effects: inout Effects) {
        let games = rooms.all.map(\.id).sorted()
        guard !games.isEmpty else { return }
        ask(games, into: &effects)
    }

    /// The store's answer about the games `asked`: every game here that another node holds now is
    /// handed over, and the joins that waited for it go on (to the new owner, or answered here).
    /// The games it could not be asked about (`unchecked`) are asked about again (`askAgain`).
    func verified(_ owners: [String: GameOwnership], asked: [String], unchecked: [String], now: Instant,
                  into effects: inout Effects) -> [ConnectionID] {
        askedAgain = false
        unverified.subtract(asked)
        unverified.formUnion(unchecked.filter { rooms[$0] != nil })
        if !unchecked.isEmpty {
            effects.log(.warning, "the store could not say who owns some games served here: asked again while it answers",
                        ["games": "\(unchecked.count)"])
        }
        var resumable: [ConnectionID] = []
        for room in rooms.all.sorted(by: { $0.id < $1.id }) {
            guard let owner = owners[room.id], owner != GameOwnership(node: node, epoch: room.epoch) else { continue }
            resumable += lose(room, to: owner, now: now, into: &effects)
        }
        // Any answer will do (the store's owners of every game here, or of just the doubted one;
        // none if it could not be read): a join asked about its game once is served after it.
        for id in doubting {
            if case .ownerCheck(let game)? = sessions.wait(of: id), sessions.endWait(id, .ownerCheck(game)) { resumable.append(id) }
        }
        doubting = []
        checking = []
        return resumable
    }

    /// Another node holds a game this node served: the room leaves memory, and each member
    /// goes on through the new owner from what it has seen (without a cluster, where no other
    /// node can be reached, its connection closes so its client comes back with `since`).
    /// `cutShort`: connections whose join or watch was refused as the write was (told
    /// `unavailable`, they join again themselves).
    @discardableResult
    func lose(_ room: GameRoom, to owner: GameOwnership, cutShort: Set<ConnectionID> = [], now: Instant,
              into effects: inout Effects) -> [ConnectionID] {
        // What it still owed its members is refused first: a join whose answer is dropped is no
        // member to carry over (it would get diffs with no `joined`, below its own `since`).
        // So is a member whose own join, waiting for this very check, takes it there itself.
        let abandoned = durability.abandon(room, into: &effects)
        let cutShort = cutShort.union(abandoned.cutShort)
            .union(doubting.filter { sessions.wait(of: $0) == .ownerCheck(room.id) })
        var members: [(ConnectionID, JSON, Int)] = []
        let everyone = sessions.members(of: room)
        for id in everyone where !cutShort.contains(id) {
            guard let session = sessions[id], !id.isRemote else { continue }
            var join: JSON = .object(["type": "watch", "game": .string(room.id)])
            if case .player(let player)? = session.role, session.credential != nil || session.signedIn(at: now) != nil {
                // The same player id (its seat, or `pN` in a game without seats) on the new owner:
                // a connection keeps the identity `joined` gave it. A signed-in player who joined
                // without the token comes back the same way.
                join = .object(["type": "join", "game": .string(room.id), "seat": .string(player)])
                if let token = session.credential { join = join.setting("token", to: .string(token)) }
            }
            let copySeen = session.key == .delayed ? room.spectatorSeq : room.releasedSeq
            members.append((id, join, max(copySeen, session.shownThrough ?? 0)))
        }
        // Out of the room without a word and without a command: the game is not this node's to change.
        for id in everyone { admission.leaveGame(id, dropSelection: false, now: now, into: &effects) }
        rooms.forget(room)
        lobby.changed()
        guard let link else {
            for (id, _, _) in members {
                effects.append(.close(id, code: 1012, reason: "this game moved to another server: reconnect with since"))
            }
            return cutShort.union(abandoned.released).sorted()
        }
        for request in link.lost(room.id, to: owner, members: members, now: now, into: &effects) {
            if case .takeOver(let game) = request { takeOver(game, now: now, into: &effects) }
        }
        // Their held requests go on (routed to the new owner).
        return cutShort.union(abandoned.released).sorted()
    }
}
