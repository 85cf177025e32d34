// A game of two seats taking turns, written as its board alone: the seats, the start, the turns,
// resign, reset with the other seat first, a clock's timeout, the end events and every diff
// (made by comparing the states before and after) come from `TwoSeatTurns` and this protocol's
// defaults. A game says its kind, its board, how a tap names a move and what a move does.

/// The commands of a two-seat game: its own moves and the turns' own.
public enum TwoSeatCommand<Move: Sendable & Equatable>: Sendable, Equatable {
    case move(Move)
    case resign
    case reset
    /// Issued by the server once both seats are taken.
    case start
    /// Issued by the server when the seat's clock ran out (PROTOCOL section 17).
    case timeout(seat: Int)
    /// A generic gesture the game has no use for (`drag`, `undo`): refused as a move.
    case unsupported(String)
}

public protocol TwoSeatGame: Game where Command == TwoSeatCommand<Move> {
    associatedtype Move: Sendable & Equatable
    /// Whose turn it is, and how the game stands.
    var turns: TwoSeatTurns { get set }
    /// A new board, with these turns.
    init(turns: TwoSeatTurns)
    /// The state's keys in order, the turns' (`turn`, `first`, `status`, `winner`, `moves`) among them.
    static var stateKeys: [String] { get }
    /// The value of one of the board's own keys.
    func board(_ key: String) -> JSON
    /// A tap's target read as a move, and the target the diff's cause names it by; `bad-request` if none.
    static func move(at target: String) throws(GameError) -> (Move, target: String)
    /// Plays a move of the seat to move (the turn is checked already); a refused one changes nothing.
    mutating func play(_ move: Move, by seat: String) throws(GameError) -> TwoSeatTurns.MoveResult
    /// `show`'s lines of the board, before the heading and who is to move.
    var rows: [String] { get }
}

extension TwoSeatGame {
    public static var commandTypes: [String] { ["tap", "double-tap", "drag", "undo", "reset", "resign"] }
    public static var takesTurns: Bool { true }

    public static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON {
        try TwoSeatTurns.storedOptions(options)
    }

    public init(stored options: JSON, time: Double) throws(GameError) {
        self.init(turns: try TwoSeatTurns(options: options, time: time))
    }

    public static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON? {
        guard verb == "resign" else { return nil }
        guard args.isEmpty else { throw ShorthandWords.usage("resign") }
        return .object(["type": "resign"])
    }

    public static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<Command> {
        switch type {
        case "tap", "double-tap":
            let (move, target) = try move(at: message["target"]?.stringValue ?? "")
            return ReadCommand(.move(move), cause: .object(["type": .string(type), "target": .string(target)]))
        case "resign", "reset", "drag", "undo":
            let command: Command = type == "resign" ? .resign : type == "reset" ? .reset : .unsupported(type)
            return ReadCommand(command, cause: .object(["type": .string(type)]))
        default:
            throw GameError(.unknownType, rule: "unknown-type", "\(kind) has no \(type)")
        }
    }

    public static func readServerCommand(_ type: String, _ message: JSON) -> ReadCommand<Command>? {
        if type == "timeout", let seat = message["seat"]?.stringValue, let index = TwoSeatTurns.seats.firstIndex(of: seat) {
            return ReadCommand(.timeout(seat: index), cause: .object(["type": "timeout", "seat": .string(seat)]))
        }
        return type == "start" ? ReadCommand(.start, cause: .object(["type": "start"])) : nil
    }

    public var seats: [String] { TwoSeatTurns.seats }
    public var turn: String? { turns.turn }
    public var status: String { turns.phase.rawValue }
    public var isOver: Bool { turns.isOver }
    public var startCommand: ReadCommand<Command>? { turns.phase == .waiting ? Self.readServerCommand("start", .null) : nil }

    public func timeout(of seat: String) -> ReadCommand<Command>? {
        Self.readServerCommand("timeout", .object(["seat": .string(seat)]))
    }

    public func state(for viewer: Viewer) -> JSON {
        let own: Set = ["turn", "first", "status", "winner", "moves"]
        return .object(Self.stateKeys.map { key in (key, own.contains(key) ? turns.field(key) : board(key)) })
    }

    public mutating func apply(_ command: Command, context: MoveContext) -> Result<GameOutcome, GameError> {
        let before = state(for: .spectator)
        return attempt { (game) throws(GameError) in
            let events = try game.perform(command, context: context)
            return GameOutcome(Diff(from: before, to: game.state(for: .spectator)), events: events)
        }
    }

    private mutating func perform(_ command: Command, context: MoveContext) throws(GameError) -> [GameEvent] {
        switch command {
        case .start: return try turns.start(time: context.time)
        case .timeout(let seat): return try turns.timeout(seat, time: context.time)
        case .resign: return try turns.resign(try TwoSeatTurns.seat(of: context.player), time: context.time)
        case .reset:
            _ = try TwoSeatTurns.seat(of: context.player)
            var turns = self.turns
            let events = try turns.reset(time: context.time)
            self = Self(turns: turns)
            return events
        case .move(let move):
            try turns.checkMove(by: try TwoSeatTurns.seat(of: context.player))
            let result = try play(move, by: context.player)
            return turns.moved(result, time: context.time)
        case .unsupported(let type):
            throw .illegal("no-\(type)", "\(Self.kind) has no \(type): tap to move")
        }
    }

    public func text(for viewer: Viewer, heading: String) -> [String] {
        let standing = switch turns.phase {
        case .waiting: "waiting for p2"
        case .playing: "\(turn ?? "") to move"
        case .won: "\(turns.winner.map { TwoSeatTurns.seats[$0] } ?? "") won"
        case .drawn: "drawn"
        }
        return rows + [heading, standing]
    }
}
