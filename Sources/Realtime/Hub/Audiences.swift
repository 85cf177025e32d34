import Core

/// Who receives what of a game: every member is in exactly one audience, by what it may see
/// and when. Players and spectators of a game with one view see the same frames but are kept
/// apart, because chat (and a spectator delay) treats them differently.
enum AudienceKey: Hashable, Sendable, Comparable {
    /// A seated player of a game with seat views: its own view (what the game hides from it hidden).
    case seat(String)
    /// The players of a game with one view, seated or not.
    case players
    /// Spectators who see the game as it happens.
    case spectators
    /// Spectators of a game with a delay: everything reaches them `delay` seconds late.
    case delayed

    /// The view of the game its frames are encoded for.
    var viewer: Viewer {
        if case .seat(let seat) = self { return .seat(seat) }
        return .spectator
    }

    var isSpectators: Bool { self == .spectators || self == .delayed }

    /// One fixed order, so a broadcast to several audiences goes out the same way every time:
    /// spectators, players, seats by name, delayed spectators.
    static func < (lhs: AudienceKey, rhs: AudienceKey) -> Bool {
        if case .seat(let left) = lhs, case .seat(let right) = rhs { return left < right }
        return lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .spectators: return 0
        case .players: return 1
        case .seat: return 2
        case .delayed: return 3
        }
    }

    /// The keys that receive a frame encoded for `viewer`, live.
    static func live(for viewer: Viewer) -> [AudienceKey] {
        if case .seat(let seat) = viewer { return [.seat(seat)] }
        return [.players, .spectators]
    }
}

/// A game's members: counts, seats, spectator names, chat mutes, and the audiences
/// (arrays of connection ids, each member knowing its slot) that broadcasts are written to.
struct RoomMembers {
    private(set) var audiences: [AudienceKey: Audience] = [:]
    /// Other nodes' connections that receive broadcasts: their node gets each broadcast once
    /// (published), so they are counted here, never walked by a local fan-out.
    private(set) var remote: Set<ConnectionID> = []
    private(set) var count = 0
    private(set) var players = 0
    private var nextPlayer = 1
    private var nextSpectator = 1
    /// A game's seats (or player ids, in a game without seats) and who holds each now; the seats
    /// taken at least once since the game was made.
    private var seatHolders: [String: ConnectionID] = [:]
    private var seatsTaken: Set<String> = []
    /// Spectators muted by a player, by name, with the number of times the game had ended
    /// then: a mute lasts until the game ends next. Not by address: people behind one proxy or
    /// NAT share one, and muting one spectator must not mute the others.
    private var muted: [String: Int] = [:]

    init(nextPlayer: Int = 1) { self.nextPlayer = nextPlayer }

    var spectators: Int { count - players }

    mutating func continuePlayerIDs(from next: Int) { nextPlayer = max(nextPlayer, next) }

    /// Counts a new member: a player gets the next player id (or in a game with seats the seat given),
    /// a spectator the next spectator name (`s1`, `s2`...). Returns its role and chat name.
    mutating func add(asPlayer: Bool, seat: String?, id: ConnectionID) -> (role: Role, name: String) {
        count += 1
        guard asPlayer else {
            defer { nextSpectator += 1 }
            return (.spectator, "s\(nextSpectator)")
        }
        players += 1
        if let seat {
            seatHolders[seat] = id
            seatsTaken.insert(seat)
            // A player id given back (`pN`) is never handed out again to a new player.
            if let number = Self.playerNumber(seat) { nextPlayer = max(nextPlayer, number + 1) }
            return (.player(seat), seat)
        }
        defer { nextPlayer += 1 }
        // Held by id too, so a signed-in user who takes this id back elsewhere moves it (section 19).
        seatHolders["p\(nextPlayer)"] = id
        return (.player("p\(nextPlayer)"), "p\(nextPlayer)")
    }

    /// Takes a member out (and out of its audience); says which other member changed slot.
    mutating func remove(_ id: ConnectionID, role: Role?, key: AudienceKey, slot: Int) -> SlotMove? {
        count -= 1
        if role?.isPlayer == true { players -= 1 }
        if case .player(let seat)? = role, seatHolders[seat] == id { seatHolders[seat] = nil }
        return unsubscribe(id, key: key, slot: slot)
    }

    /// The seat a join takes: the one asked for if nobody (else) holds it, or the first free one.
    func freeSeat(asked: String?, by id: ConnectionID, seats: [String]) -> String? {
        func free(_ seat: String) -> Bool { seatHolders[seat] == nil || seatHolders[seat] == id }
        if let asked { return seats.contains(asked) && free(asked) ? asked : nil }
        return seats.first(where: free)
    }

    /// Whether a connection holds `seat` now.
    func isHeld(_ seat: String) -> Bool { seatHolders[seat] != nil }

    /// The connection holding a seat (or a signed-in user's player id in a game without seats).
    func holder(of seat: String) -> ConnectionID? { seatHolders[seat] }

    /// The creator's player id in a game without seats.
    static let firstPlayer = "p1"

    /// `p1`, `p2`...: the player ids of a game without seats (up to a million).
    static func isPlayerID(_ name: String) -> Bool { playerNumber(name) != nil }

    static func playerNumber(_ name: String) -> Int? {
        guard name.hasPrefix("p"), let number = Int(name.dropFirst()), (1...1_000_000).contains(number),
              name == "p\(number)" else { return nil }
        return number
    }

    func everySeatTaken(of seats: [String]) -> Bool { !seats.isEmpty && seatsTaken.count == seats.count }

    // MARK: Audiences

    /// A member starts receiving broadcasts; returns its slot in its audience.
    mutating func subscribe(_ id: ConnectionID, key: AudienceKey) -> Int {
        if id.isRemote {
            remote.insert(id)
            return Int.max
        }
        let slot = audiences[key, default: []].count
        audiences[key, default: []].append(id)
        return slot
    }

    /// A recipient moved to another slot of its audience (its session must learn the new slot).
    struct SlotMove: Equatable {
        var id: ConnectionID
        var slot: Int
    }

    /// Swap-remove: O(1), and every other recipient keeps a slot it can be told about.
    mutating func unsubscribe(_ id: ConnectionID, key: AudienceKey, slot: Int) -> SlotMove? {
        if id.isRemote {
            remote.remove(id)
            return nil
        }
        guard slot >= 0, var audience = audiences[key], slot < audience.count, audience[slot] == id else { return nil }
        audiences[key] = nil  // keep the array unique while it changes
        let last = audience.removeLast()
        var move: SlotMove?
        if slot < audience.count {
            audience[slot] = last
            move = SlotMove(id: last, slot: slot)
        }
        if !audience.isEmpty { audiences[key] = audience }
        return move
    }

    var hasRemote: Bool { !remote.isEmpty }

    /// Everyone who receives broadcasts, whatever their audience or node.
    var allRecipients: [ConnectionID] { audiences.values.flatMap { $0 } + remote.sorted() }

    // MARK: Chat mutes

    mutating func mute(_ name: String, endings: Int) { muted[name] = endings }

    func isMuted(_ name: String, endings: Int) -> Bool { muted[name] == endings }

    /// Whether `name` is a spectator name this game gave out.
    func gaveOut(spectator name: String) -> Bool {
        guard name.hasPrefix("s"), let n = Int(name.dropFirst()) else { return false }
        return n >= 1 && n < nextSpectator
    }
}
