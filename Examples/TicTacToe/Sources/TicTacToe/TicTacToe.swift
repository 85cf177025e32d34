// Tic-tac-toe (PROTOCOL section 20): two seats mark a 3x3 board in turns; three in a row wins.
// Boardcast's two-seat part (`TwoSeatGame`) keeps the seats, the turns, the start, resigning, a
// clock's timeout, the end events and the reset with the other seat first; this file is the board.
import BoardcastCore

public struct TicTacToe: TwoSeatGame {
    public static let kind = "tictactoe"
    /// The eight lines of three cells, each in increasing order.
    static let lines = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]

    public var turns: TwoSeatTurns
    /// The nine cells row by row, each empty or a seat index (0: p1, 1: p2).
    var cells = [Int?](repeating: nil, count: 9)

    public init(turns: TwoSeatTurns) { self.turns = turns }

    /// `/cells/N` (0 to 8), `/cells/ROW/COLUMN` (0 to 2 each), or `/N` as a terminal's `tap 4` sends it.
    public static func move(at target: JSON?) throws(GameError) -> (Int, target: String) {
        let parts = (target?.stringValue ?? "").split(separator: "/", omittingEmptySubsequences: false)
        let numbers = parts.count == 2 ? [parts[1]] : parts.count >= 3 && parts[1] == "cells" ? Array(parts[2...]) : []
        let digits = numbers.compactMap { $0.count == 1 ? Int($0) : nil }
        let cell = digits.count == 1 ? digits[0] : digits.count == 2 && digits.allSatisfy({ $0 < 3 }) ? 3 * digits[0] + digits[1] : 9
        guard parts.first == "", digits.count == numbers.count, cell < 9 else {
            throw .badRequest("bad-target", "target must be a cell such as /cells/4 (0 to 8), or /cells/1/2 (row, column)")
        }
        return (cell, "/cells/\(cell)")
    }

    public mutating func play(_ cell: Int, by seat: Int, into ops: inout [PatchOp]) throws(GameError) -> TwoSeatTurns.End? {
        guard cells[cell] == nil else { throw .illegal("cell-taken", "cell \(cell) is taken") }
        cells[cell] = seat
        ops.append(.replace(path: "/cells/\(cell)", value: .string(TwoSeatTurns.names[seat])))
        if let line = Self.lines.first(where: { $0.allSatisfy { cells[$0] == seat } }) {
            return .won(line: .array(line.map(JSON.int)), reason: "three")
        }
        return cells.contains(nil) ? nil : .drawn
    }

    public var board: [(key: String, value: JSON)] {
        [("cells", .array(cells.map { $0.map { .string(TwoSeatTurns.names[$0]) } ?? .null }))]
    }

    /// `show`: the three rows, `X` for p1, `O` for p2, `.` for empty.
    public var boardLines: [String] {
        (0..<3).map { row in (0..<3).map { cells[3 * row + $0].map { TwoSeatTurns.marks[$0] } ?? "." }.joined(separator: " ") }
    }
}
