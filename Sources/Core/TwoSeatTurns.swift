/// What every game of two seats taking turns keeps (as PROTOCOL section 16 has it): seats `p1` and
/// `p2`, who moves first and who moves now, the status, the winner and the winning line, the
/// moves of this game, and when it started (for the end events' `seconds`). A `TwoSeatGame`
/// holds one and its board; this part does the rest: the start once both seats are taken, turns,
/// resigning, a timeout, the end of a game, and a reset with the other seat first.
public struct TwoSeatTurns: Sendable, Equatable {
    public enum Phase: Sendable, Equatable { case waiting, playing, won, drawn }

    /// How a move ends the game, if it does.
    public enum End: Sendable, Equatable {
        /// The mover wins: `line` is the state's `line` (the winning cells), `reason` the `won` event's.
        case won(line: JSON, reason: String)
        /// The board is full with no winner.
        case drawn
    }

    public static let names = ["p1", "p2"]
    /// `show`'s mark for each seat.
    public static let marks = ["X", "O"]

    /// Seat indices (0: `p1`, 1: `p2`).
    public private(set) var first: Int
    public private(set) var mover: Int?
    public private(set) var phase: Phase = .waiting
    public private(set) var winner: Int?
    public private(set) var line: JSON = .null
    public private(set) var moves = 0
    /// When the game started (or was reset): the `seconds` of its end events count from here.
    public private(set) var startTime: Double

    public init(first: Int, time: Double) {
        self.first = first
        startTime = time
    }

    /// A new game from stored options (`first`).
    public init(stored options: JSON, time: Double) throws(GameError) {
        self.init(first: try Self.firstSeat(options), time: time)
    }

    /// The `first` option as stored: `p1` (the default) or `p2`.
    public static func storedOptions(creating options: JSON) throws(GameError) -> JSON {
        .object([("first", .string(names[try firstSeat(options)]))])
    }

    private static func firstSeat(_ options: JSON) throws(GameError) -> Int {
        switch options["first"] {
        case nil, .null?: return 0
        case .string(let seat)? where names.contains(seat): return names.firstIndex(of: seat)!
        default: throw .badRequest("bad-first", "first must be p1 or p2")
        }
    }

    // MARK: What it shows

    public var turn: String? { mover.map { Self.names[$0] } }

    public var status: GameStatus {
        switch phase {
        case .waiting: .waiting
        case .playing: .playing
        case .won: .won
        case .drawn: .drawn
        }
    }

    public var isOver: Bool { phase == .won || phase == .drawn }

    /// The state's keys this part keeps, after the board's: `turn`, `first`, `status`, `winner`, `line`, `moves`.
    public var state: [(key: String, value: JSON)] {
        [("turn", turn.map(JSON.string) ?? .null), ("first", .string(Self.names[first])), ("status", .string(status.word)),
         ("winner", winner.map { .string(Self.names[$0]) } ?? .null), ("line", line), ("moves", .int(moves))]
    }

    /// `show`'s last line: who is to move, or how the game stands.
    public var standing: String {
        switch phase {
        case .waiting: "waiting for p2"
        case .playing: "\(turn ?? "") (\(Self.marks[mover ?? 0])) to move"
        case .won: "\(Self.names[winner ?? 0]) won"
        case .drawn: "drawn"
        }
    }

    // MARK: What it does

    /// The sender's seat, or `bad-request` for a player id that is no seat.
    public func seat(of player: String) throws(GameError) -> Int {
        guard let seat = Self.names.firstIndex(of: player) else {
            throw .badRequest("no-such-seat", "\"\(player)\" is not a seat of this game (p1, p2)")
        }
        return seat
    }

    /// Why a move is refused when the game is not being played.
    public var notPlaying: GameError {
        phase == .waiting ? .illegal("waiting", "the game has not started: both seats must be taken")
            : .illegal("game-over", "the game is over: reset for a new one")
    }

    /// Both seats are taken: `first` moves.
    public mutating func start(time: Double) throws(GameError) -> GameOutcome {
        guard phase == .waiting else { throw .illegal("started", "the game has already started") }
        (phase, mover, startTime) = (.playing, first, time)
        return GameOutcome(Diff([.replace(path: "/status", value: "playing"), .replace(path: "/turn", value: .string(Self.names[first]))]),
                           events: [GameEvent(name: "start")])
    }

    /// Checks that `seat` may move now, before the board is changed.
    public func checkTurn(_ seat: Int) throws(GameError) {
        guard phase == .playing, let mover else { throw notPlaying }
        guard mover == seat else { throw .illegal("not-your-turn", "it is \(Self.names[mover])'s turn") }
    }

    /// `seat` moved (its turn checked) and `ops` show it on the board: the moves counted, then
    /// the game ends as `end` says, or the other seat is to move; the part's ops follow the board's.
    public mutating func moved(_ seat: Int, ops: inout [PatchOp], end: End?, time: Double) -> GameOutcome {
        moves += 1
        ops.append(.replace(path: "/moves", value: .int(moves)))
        switch end {
        case .won(let line, let reason)?:
            self.line = line
            return finish(winner: seat, reason: reason, ops: &ops, time: time)
        case .drawn?:
            (phase, mover) = (.drawn, nil)
            ops.append(.replace(path: "/turn", value: .null))
            ops.append(.replace(path: "/status", value: "drawn"))
            return GameOutcome(Diff(ops), events: [GameEvent(name: "drawn", fields: endFields(time))])
        case nil:
            mover = 1 - seat
            ops.append(.replace(path: "/turn", value: .string(Self.names[1 - seat])))
            return GameOutcome(Diff(ops))
        }
    }

    /// `seat` resigns the game being played: the other seat wins.
    public mutating func resign(_ seat: Int, time: Double) throws(GameError) -> GameOutcome {
        guard phase == .playing else { throw notPlaying }
        var ops: [PatchOp] = []
        return finish(winner: 1 - seat, reason: "resign", ops: &ops, time: time)
    }

    /// `seat`'s clock ran out while it was to move: the other seat wins on time.
    public mutating func timeout(_ seat: Int, time: Double) throws(GameError) -> GameOutcome {
        guard phase == .playing, mover == seat else { throw notPlaying }
        var ops: [PatchOp] = []
        return finish(winner: 1 - seat, reason: "time", ops: &ops, time: time)
    }

    /// A new game once this one is won or drawn, the other seat first. The caller clears the
    /// board and makes the diff (every key of the state replaced).
    public mutating func reset(time: Double) throws(GameError) {
        guard isOver else {
            throw phase == .waiting ? notPlaying : .illegal("still-playing", "a game is reset only once it is won or drawn")
        }
        first = 1 - first
        (phase, mover, winner, line, moves, startTime) = (.playing, first, nil, .null, 0, time)
    }

    private mutating func finish(winner seat: Int, reason: String, ops: inout [PatchOp], time: Double) -> GameOutcome {
        (phase, winner, mover) = (.won, seat, nil)
        ops.append(.replace(path: "/turn", value: .null))
        ops.append(.replace(path: "/status", value: "won"))
        ops.append(.replace(path: "/winner", value: .string(Self.names[seat])))
        ops.append(.replace(path: "/line", value: line))
        let fields: [(key: String, value: JSON)] = [("by", .string(Self.names[seat])), ("reason", .string(reason))]
        return GameOutcome(Diff(ops), events: [GameEvent(name: "won", fields: fields + endFields(time))])
    }

    private func endFields(_ time: Double) -> [(key: String, value: JSON)] {
        [("moves", .int(moves)), ("seconds", GameEvent.seconds(from: startTime, to: time))]
    }
}
