// Tic-tac-toe (PROTOCOL section 20): two seats mark a 3x3 board in turns; three in a row wins.
// The seats, turns, resign, reset, clock and end events are Boardcast's `TwoSeatTurns`.
import BoardcastCore

public struct TicTacToe: TwoSeatGame {
    public static let kind = "tictactoe"
    public static let stateKeys = ["cells", "turn", "first", "status", "winner", "line", "moves"]
    static let lines = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]

    public var turns: TwoSeatTurns
    var cells: [String?] = Array(repeating: nil, count: 9)
    var line: [Int]?

    public init(turns: TwoSeatTurns) { self.turns = turns }

    public func board(_ key: String) -> JSON {
        key == "cells" ? .array(cells.map { $0.map(JSON.string) ?? .null }) : line.map { .array($0.map(JSON.int)) } ?? .null
    }

    /// `/cells/N` (0 to 8), or `/cells/ROW/COLUMN` (0 to 2 each); a terminal's `tap 4` sends `/4`.
    public static func move(at target: String) throws(GameError) -> (Int, target: String) {
        let parts = target.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let numbers = parts.first == "cells" ? Array(parts.dropFirst()) : parts
        let digits = numbers.compactMap { $0.count == 1 ? Int($0) : nil }
        guard target.hasPrefix("/"), digits.count == numbers.count else { throw bad }
        switch digits.count {
        case 1 where digits[0] < 9: return (digits[0], "/cells/\(digits[0])")
        case 2 where digits.allSatisfy({ $0 < 3 }): return (3 * digits[0] + digits[1], "/cells/\(3 * digits[0] + digits[1])")
        default: throw bad
        }
    }

    static let bad = GameError.badRequest("bad-target", "target must be a cell such as /cells/4 (0 to 8) or /cells/1/2")

    public mutating func play(_ cell: Int, by seat: String) throws(GameError) -> TwoSeatTurns.MoveResult {
        guard cells[cell] == nil else { throw .illegal("cell-taken", "cell \(cell) is already marked") }
        cells[cell] = seat
        if let three = Self.lines.first(where: { $0.allSatisfy { cells[$0] == seat } }) {
            line = three
            return .won("three")
        }
        return cells.contains(nil) ? .next : .drawn
    }

    public var rows: [String] {
        (0..<3).map { row in (0..<3).map { cells[3 * row + $0].map { $0 == "p1" ? "X" : "O" } ?? "." }.joined(separator: " ") }
    }
}
