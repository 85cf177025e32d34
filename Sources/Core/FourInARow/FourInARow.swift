// Four in a row (PROTOCOL section 16), written only against the game interface: two seats that
// take turns dropping discs into a board of 7 columns and 6 rows.

public struct FourInARow: TurnBasedGame {
    public enum Command: Sendable, Equatable {
        case drop(column: Int)
        case resign
        case reset
        /// Issued by the server once both seats are taken.
        case start
        /// `drag` and `undo`: read, so a spectator is told `forbidden` first, and refused as moves.
        case unsupported(String)
        /// Issued by the server when the seat's clock ran out (PROTOCOL section 17).
        case timeout(seat: Int)
    }

    public enum Status: String, Sendable { case waiting, playing, won, drawn }

    public static let kind = "four"
    public static let commandTypes = ["resign"]
    static let columnCount = 7, rowCount = 6
    static let seatNames = ["p1", "p2"]

    /// Each column's discs bottom first, as seat indices (0: p1, 1: p2).
    private(set) var columns: [[Int]] = Array(repeating: [], count: columnCount)
    private(set) var mover: Int?
    private(set) var first: Int
    private(set) var phase: Status = .waiting
    private(set) var winner: Int?
    private(set) var line: [[Int]]?
    private(set) var moves = 0
    /// When the game started (or was reset): the `seconds` of its end events count from here.
    private var startTime: Double

    public init(stored options: JSON, time: Double) throws(GameError) {
        first = try Self.firstSeat(options)
        startTime = time
    }

    public static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON {
        .object([("first", .string(seatNames[try firstSeat(options)]))])
    }

    private static func firstSeat(_ options: JSON) throws(GameError) -> Int {
        switch options["first"] {
        case nil, .null?: return 0
        case .string(let seat)? where seatNames.contains(seat): return seatNames.firstIndex(of: seat)!
        default: throw .badRequest("bad-first", "first must be p1 or p2")
        }
    }

    public static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON? {
        guard verb == "resign" else { return nil }
        guard args.isEmpty else { throw ShorthandWords.usage("resign") }
        return .object(["type": "resign"])
    }

    public static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<Command> {
        switch type {
        case "tap", "double-tap":
            let column = try Self.column(message["target"])
            // The cause is the target as sent, but a terminal's `tap 3` (`/3`) names its column in full.
            let sent = message["target"]?.stringValue ?? ""
            let target = sent.dropFirst().contains("/") ? sent : "/columns/\(column)"
            return ReadCommand(.drop(column: column), cause: .object(["type": .string(type), "target": .string(target)]))
        case "resign", "reset", "drag", "undo":
            // The gestures it has not (`drag`, `undo`) are read, so a spectator is told `forbidden`, and refused as moves.
            let command: Command = type == "resign" ? .resign : type == "reset" ? .reset : .unsupported(type)
            return ReadCommand(command, cause: .object(["type": .string(type)]))
        default:
            throw GameError(.unknownType, rule: "unknown-type", "four has no \(type)")
        }
    }

    public func command(for issued: ServerCommand) -> Command? {
        switch issued {
        case .start: return phase == .waiting ? .start : nil
        case .timeout(let seat): return Self.seatNames.firstIndex(of: seat).map { .timeout(seat: $0) }
        case .departure: return nil
        }
    }

    /// `/columns/C`, a cell `/columns/C/R`, or `/C` as a terminal's `tap 3` sends it.
    private static func column(_ target: JSON?) throws(GameError) -> Int {
        let parts = (target?.stringValue ?? "").split(separator: "/", omittingEmptySubsequences: false)
        let numbers = parts.count == 2 ? [parts[1]] : parts.count >= 3 && parts[1] == "columns" ? Array(parts[2...]) : []
        // A JSON Pointer array index: digits without a leading zero (not `+3`, `03` or `-0`, which `Int` reads).
        func index(_ token: Substring) -> Int? {
            guard !token.isEmpty, token.utf8.allSatisfy({ (0x30...0x39).contains($0) }), token == "0" || token.first != "0" else { return nil }
            return Int(token)
        }
        guard parts.first == "", (1...2).contains(numbers.count), let column = index(numbers[0]), (0..<columnCount).contains(column),
              numbers.count == 1 || index(numbers[1]).map((0..<rowCount).contains) == true else {
            throw .badRequest("bad-target", "target must be a column such as /columns/3 (0 to 6), or a cell /columns/3/2")
        }
        return column
    }

    public var seats: [String] { Self.seatNames }
    public var turn: String? { mover.map { Self.seatNames[$0] } }
    public var status: GameStatus {
        switch phase {
        case .waiting: .waiting
        case .playing: .playing
        case .won: .won
        case .drawn: .drawn
        }
    }

    public func state(for viewer: Viewer) -> JSON {
        .object([
            ("columns", .array(columns.map { .array($0.map { .string(Self.seatNames[$0]) }) })),
            ("rows", .int(Self.rowCount)), ("turn", turn.map(JSON.string) ?? .null), ("first", .string(Self.seatNames[first])),
            ("status", .string(status.word)), ("winner", winner.map { .string(Self.seatNames[$0]) } ?? .null),
            ("line", line.map { .array($0.map { .array($0.map(JSON.int)) }) } ?? .null), ("moves", .int(moves)),
        ])
    }

    public mutating func apply(_ command: Command, context: MoveContext) -> Result<GameOutcome, GameError> {
        attempt { (game) throws(GameError) in try game.perform(command, context: context) }
    }

    private mutating func perform(_ command: Command, context: MoveContext) throws(GameError) -> GameOutcome {
        if case .start = command {
            guard phase == .waiting else { throw .illegal("started", "the game has already started") }
            phase = .playing
            mover = first
            startTime = context.time
            return GameOutcome(Diff([.replace(path: "/status", value: "playing"), .replace(path: "/turn", value: .string(Self.seatNames[first]))]),
                               events: [GameEvent(name: "start")])
        }
        if case .timeout(let seat) = command {
            guard phase == .playing, mover == seat else { throw notPlaying() }
            return finish(winner: 1 - seat, reason: "time", ops: [], time: context.time)
        }
        guard let seat = Self.seatNames.firstIndex(of: context.player) else {
            throw .badRequest("no-such-seat", "\"\(context.player)\" is not a seat of this game (p1, p2)")
        }
        switch command {
        case .drop(let column): return try drop(column, by: seat, time: context.time)
        case .resign:
            guard phase == .playing else { throw notPlaying() }
            return finish(winner: 1 - seat, reason: "resign", ops: [], time: context.time)
        case .reset: return try reset(time: context.time)
        case .unsupported(let type): throw .illegal("no-\(type)", "four in a row has no \(type): tap a column")
        case .start, .timeout: throw .illegal("started", "the game has already started")
        }
    }

    private func notPlaying() -> GameError {
        phase == .waiting ? .illegal("waiting", "the game has not started: both seats must be taken")
            : .illegal("game-over", "the game is over: reset for a new one")
    }

    private mutating func drop(_ column: Int, by seat: Int, time: Double) throws(GameError) -> GameOutcome {
        guard phase == .playing, let mover else { throw notPlaying() }
        guard mover == seat else { throw .illegal("not-your-turn", "it is \(Self.seatNames[mover])'s turn") }
        guard columns[column].count < Self.rowCount else { throw .illegal("column-full", "column \(column) is full") }
        let row = columns[column].count
        columns[column].append(seat)
        moves += 1
        var ops: [PatchOp] = [.add(path: "/columns/\(column)/\(row)", value: .string(Self.seatNames[seat])),
                              .replace(path: "/moves", value: .int(moves))]
        if let four = fourThrough(column: column, row: row) {
            line = four
            return finish(winner: seat, reason: "four", ops: ops, time: time)
        }
        if moves == Self.columnCount * Self.rowCount {
            phase = .drawn
            self.mover = nil
            ops += [.replace(path: "/turn", value: .null), .replace(path: "/status", value: "drawn")]
            return GameOutcome(Diff(ops), events: [GameEvent(name: "drawn", fields: endFields(time))])
        }
        self.mover = 1 - seat
        ops.append(.replace(path: "/turn", value: .string(Self.seatNames[1 - seat])))
        return GameOutcome(Diff(ops))
    }

    private mutating func finish(winner seat: Int, reason: String, ops: [PatchOp], time: Double) -> GameOutcome {
        phase = .won
        winner = seat
        mover = nil
        let lineJSON: JSON = line.map { .array($0.map { .array($0.map(JSON.int)) }) } ?? .null
        let diff = Diff(ops + [.replace(path: "/turn", value: .null), .replace(path: "/status", value: "won"),
                               .replace(path: "/winner", value: .string(Self.seatNames[seat])),
                               .replace(path: "/line", value: lineJSON)])
        let fields: [(key: String, value: JSON)] = [("by", .string(Self.seatNames[seat])), ("reason", .string(reason))]
        return GameOutcome(diff, events: [GameEvent(name: "won", fields: fields + endFields(time))])
    }

    private func endFields(_ time: Double) -> [(key: String, value: JSON)] {
        [("moves", .int(moves)), ("seconds", GameEvent.seconds(from: startTime, to: time))]
    }

    private mutating func reset(time: Double) throws(GameError) -> GameOutcome {
        guard isOver else {
            throw phase == .waiting ? notPlaying() : .illegal("still-playing", "a game is reset only once it is won or drawn")
        }
        (columns, first, winner, line, moves, startTime) = (Array(repeating: [], count: Self.columnCount), 1 - first, nil, nil, 0, time)
        (phase, mover) = (.playing, first)
        let keys = ["columns", "turn", "first", "status", "winner", "line", "moves"]
        return GameOutcome(Diff.replacing(keys, from: state(for: .spectator)), events: [GameEvent(name: "reset")])
    }

    /// The four cells in a line through the disc just dropped, in order along the line, if any.
    private func fourThrough(column: Int, row: Int) -> [[Int]]? {
        let seat = columns[column][row]
        func owns(_ c: Int, _ r: Int) -> Bool { (0..<Self.columnCount).contains(c) && r >= 0 && r < columns[c].count && columns[c][r] == seat }
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            var start = (column, row)
            while owns(start.0 - dc, start.1 - dr) { start = (start.0 - dc, start.1 - dr) }
            var cells: [[Int]] = []
            var cell = start
            while owns(cell.0, cell.1) {
                cells.append([cell.0, cell.1])
                cell = (cell.0 + dc, cell.1 + dr)
            }
            // A line of five or more: the four from the end nearest the dropped disc's start.
            if cells.count >= 4 {
                let at = cells.firstIndex(of: [column, row])!
                let from = min(at, cells.count - 4)
                return Array(cells[from..<from + 4])
            }
        }
        return nil
    }

    // MARK: Text

    public func text(for viewer: Viewer, heading: String) -> [String] {
        let rows = (0..<Self.rowCount).reversed().map { row in
            (0..<Self.columnCount).map { column in
                row < columns[column].count ? (columns[column][row] == 0 ? "X" : "O") : "."
            }.joined(separator: " ")
        }
        let standing = switch phase {
        case .waiting: "waiting for p2"
        case .playing: "\(turn ?? "") (\(mover == 0 ? "X" : "O")) to move"
        case .won: "\(Self.seatNames[winner ?? 0]) won"
        case .drawn: "drawn"
        }
        return rows + ["0 1 2 3 4 5 6", heading, standing]
    }
}
