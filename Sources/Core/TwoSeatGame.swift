/// A game two seats play taking turns on a board (four in a row is one): it writes its
/// board, how a tap's target names a move, and what a move does; `TwoSeatTurns` and this
/// protocol's defaults do the rest as PROTOCOL section 16 has it: options (`first`), reading
/// messages (`tap`, `double-tap`, `resign`, `reset`; `drag` and `undo` refused as moves), the
/// start once both seats are taken, turns, resigning, a clock's timeout, `won` and `drawn`
/// with `moves` and `seconds`, a reset with the other seat first, the state's keys after the
/// board's (`turn`, `first`, `status`, `winner`, `line`, `moves`), and `show`'s last lines.
public protocol TwoSeatGame: TurnBasedGame where Command == TwoSeatCommand<Move> {
    associatedtype Move: Sendable & Equatable

    /// The seats' part of the game.
    var turns: TwoSeatTurns { get set }
    /// A game with an empty board and these turns (a new game, or a reset's).
    init(turns: TwoSeatTurns)

    /// The move a tap's `target` names, and the target its cause shows; a malformed one is `bad-request`.
    static func move(at target: JSON?) throws(GameError) -> (Move, target: String)
    /// Plays `seat`'s move, its turn already checked: appends to `ops` what shows it on the board,
    /// and says how the game ends if it does. A move against the rules throws and changes nothing.
    mutating func play(_ move: Move, by seat: Int, into ops: inout [PatchOp]) throws(GameError) -> TwoSeatTurns.End?

    /// The board's keys, first in the state; a reset replaces them.
    var board: [(key: String, value: JSON)] { get }
    /// Keys after the board's that never change (four in a row's `rows`). None by default.
    static var fixedState: [(key: String, value: JSON)] { get }
    /// `show`'s lines above the server's heading line (the rows, first).
    var boardLines: [String] { get }
    /// The refusal of a gesture the game has not (`drag`, `undo`). By default "KIND has no GESTURE".
    static func unsupported(_ gesture: String) -> GameError
}

extension TwoSeatGame {
    public static var fixedState: [(key: String, value: JSON)] { [] }
    public static func unsupported(_ gesture: String) -> GameError { .illegal("no-\(gesture)", "\(kind) has no \(gesture)") }

    public static var commandTypes: [String] { ["resign"] }

    public static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON? {
        guard verb == "resign" else { return nil }
        guard args.isEmpty else { throw ShorthandWords.usage("resign") }
        return .object(["type": "resign"])
    }

    public static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON {
        try TwoSeatTurns.storedOptions(creating: options)
    }

    public init(stored options: JSON, time: Double) throws(GameError) {
        self.init(turns: try TwoSeatTurns(stored: options, time: time))
    }

    @inlinable
    public static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<Command> {
        switch type {
        case "tap", "double-tap":
            let (move, target) = try move(at: message["target"])
            return ReadCommand(.move(move), cause: .object(["type": .string(type), "target": .string(target)]))
        case "resign", "reset", "drag", "undo":
            let command: Command = type == "resign" ? .resign : type == "reset" ? .reset : .unsupported(type)
            return ReadCommand(command, cause: .object(["type": .string(type)]))
        default:
            throw GameError(.unknownType, rule: "unknown-type", "\(kind) has no \(type)")
        }
    }

    public func command(for issued: ServerCommand) -> Command? {
        switch issued {
        case .start: return turns.phase == .waiting ? .start : nil
        case .timeout(let seat): return TwoSeatTurns.names.firstIndex(of: seat).map { .timeout(seat: $0) }
        case .departure: return nil
        }
    }

    public var seats: [String] { TwoSeatTurns.names }
    public var turn: String? { turns.turn }
    public var status: GameStatus { turns.status }

    public func state(for viewer: Viewer) -> JSON { .object(board + Self.fixedState + turns.state) }

    public func text(for viewer: Viewer, heading: String) -> [String] { boardLines + [heading, turns.standing] }

    // Inlinable, so a game's own module (and every caller that names the game) specialises the
    // part for it: a move through the part costs what it would written out in the game.
    @inlinable
    public mutating func apply(_ command: Command, context: MoveContext) -> Result<GameOutcome, GameError> {
        attempt { (game) throws(GameError) in try game.perform(command, context: context) }
    }

    @inlinable
    mutating func perform(_ command: Command, context: MoveContext) throws(GameError) -> GameOutcome {
        let time = context.time
        switch command {
        case .start: return try turns.start(time: time)
        case .timeout(let seat): return try turns.timeout(seat, time: time)
        default: break
        }
        let seat = try turns.seat(of: context.player)
        switch command {
        case .move(let move):
            try turns.checkTurn(seat)
            var ops: [PatchOp] = []
            ops.reserveCapacity(8)
            let end = try play(move, by: seat, into: &ops)
            return turns.moved(seat, ops: &ops, end: end, time: time)
        case .resign: return try turns.resign(seat, time: time)
        case .reset:
            var turns = self.turns
            try turns.reset(time: time)
            self = Self(turns: turns)
            let keys = board.map(\.key) + turns.state.map(\.key)
            return GameOutcome(Diff.replacing(keys, from: state(for: .spectator)), events: [GameEvent(name: "reset")])
        case .unsupported(let gesture): throw Self.unsupported(gesture)
        case .start, .timeout: throw .illegal("started", "the game has already started")
        }
    }
}
