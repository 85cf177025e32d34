import Core

/// The live games of this node: which are in memory, which are being loaded and who waits
/// for each, which have no member (candidates to rest), and whose presence is due.
final class RoomTable {
    private let config: Hub.Config
    private var rooms: [String: GameRoom] = [:]
    /// Rooms with no member: the candidates to rest.
    private var memberless: [String: GameRoom] = [:]
    /// Games being loaded from storage, with who waits for each, in arrival order.
    private var loading: [String: [LoadWaiter]] = [:]
    /// Rooms whose merged presence update is due or pending.
    private var presenceQueue: [GameRoom] = []
    /// Rooms with output waiting for their delayed spectators, by when the oldest comes due.
    private var delays = DelayDeadlines()
    private var lastRestCheck = Instant.distantPast

    /// What asks storage for a game not in memory: a plain load, or with a shared store a claim first.
    var loadRequest: (String) -> StorageRead = { .load(game: $0) }

    init(config: Hub.Config) { self.config = config }

    enum LoadWaiter: Equatable {
        case connection(ConnectionID)
        /// `/api/games/GAME`, with the `key` its query gave (a game watched by link).
        case http(HTTPRequestID, key: String?)
        /// A cluster node taking over a game whose owner is gone, for its members here.
        case takeover
    }

    subscript(id: String) -> GameRoom? { rooms[id] }
    var count: Int { rooms.count }
    var all: Dictionary<String, GameRoom>.Values { rooms.values }
    /// The lobby's view of the live games: those anyone may watch (section 19).
    var lobbyEntries: [LobbyEntry] { rooms.values.filter { $0.watchPolicy.isListed }.map(\.lobbyEntry) }

    func isTaken(_ id: String) -> Bool { rooms[id] != nil || loading[id] != nil }

    /// A room enters memory; it has no member yet.
    func adopt(_ room: GameRoom) {
        rooms[room.id] = room
        memberless[room.id] = room
    }

    func forget(_ room: GameRoom) {
        guard rooms[room.id] === room else { return }
        rooms[room.id] = nil
        memberless[room.id] = nil
        delays.remove(room)
    }

    func isLive(_ room: GameRoom) -> Bool { rooms[room.id] === room }

    func memberJoined(_ room: GameRoom) { memberless[room.id] = nil }

    func memberLeft(_ room: GameRoom) {
        if room.members.count == 0 { memberless[room.id] = room }
    }

    // MARK: Delayed spectators

    /// The room has output waiting for its delayed spectators: it is due at its oldest's time.
    func noteDelayed(_ room: GameRoom) {
        if let due = room.nextDelayedDue { delays.schedule(room, at: due) }
    }

    /// Live rooms with delayed output due by `now`, earliest first (each leaves the schedule:
    /// `noteDelayed` again for what it still holds).
    func dueDelayedRooms(now: Instant) -> [GameRoom] { delays.popDue(now: now).filter(isLive) }

    /// When the next room's delayed output comes due: the hub asks the shell to wake it then.
    var nextDelayDue: Instant? { delays.next }

    // MARK: Loading

    /// Asks storage for a resting game, once however many wait for it.
    func awaitLoad(_ game: String, for waiter: LoadWaiter, into effects: inout Effects) {
        if loading[game] != nil {
            loading[game]?.append(waiter)
        } else {
            loading[game] = [waiter]
            effects.append(.read(loadRequest(game)))
        }
    }

    func takeLoadWaiters(_ game: String) -> [LoadWaiter] { loading.removeValue(forKey: game) ?? [] }

    func stopWaiting(_ id: ConnectionID, for game: String) {
        loading[game]?.removeAll { $0 == .connection(id) }
    }

    // MARK: Presence

    func queuePresence(_ room: GameRoom) {
        guard !room.presenceQueued else { return }
        room.presenceQueued = true
        presenceQueue.append(room)
    }

    /// Rooms whose presence goes out now: at most every `presenceInterval`, and at most once
    /// a second for a crowd, however many join meanwhile.
    func duePresence(now: Instant) -> [GameRoom] {
        guard !presenceQueue.isEmpty else { return [] }
        var due: [GameRoom] = []
        var later: [GameRoom] = []
        for room in presenceQueue {
            let interval = room.members.count > config.crowdSize ? 1.0 : config.presenceInterval
            guard now.since(room.lastPresenceSent) >= interval else {
                later.append(room)
                continue
            }
            room.presenceQueued = false
            guard room.presenceDirty, rooms[room.id] === room else { continue }
            room.presenceDirty = false
            room.lastPresenceSent = now
            due.append(room)
        }
        presenceQueue = later
        return due
    }

    // MARK: Resting

    /// Rooms with no member, no command for `idleSeconds` and nothing waiting to go out, once
    /// a second: they leave memory (storage keeps them; they come back on first use).
    func restingNow(now: Instant, isBusy: (GameRoom) -> Bool) -> [GameRoom] {
        guard now.since(lastRestCheck) >= 1 else { return [] }
        lastRestCheck = now
        var resting: [GameRoom] = []
        for room in Array(memberless.values) {
            guard room.members.count == 0 else {
                memberless[room.id] = nil
                continue
            }
            guard now.since(room.lastActivity) >= config.idleSeconds, !room.hasWaitingOutput, !isBusy(room) else { continue }
            forget(room)
            resting.append(room)
        }
        return resting
    }
}
