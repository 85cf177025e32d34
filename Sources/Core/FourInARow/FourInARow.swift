// Four in a row (PROTOCOL section 16): two seats that take turns dropping discs into a board of
// 7 columns and 6 rows. Seats, turns, the start, resigning, the end events and the reset are the
// two-seat part's (`TwoSeatGame`); this file is the board.

public struct FourInARow: TwoSeatGame {
    public static let kind = "four"
    static let columnCount = 7, rowCount = 6

    public var turns: TwoSeatTurns
    /// Each column's discs bottom first, as seat indices (0: p1, 1: p2).
    private(set) var columns: [[Int]] = Array(repeating: [], count: columnCount)

    public init(turns: TwoSeatTurns) { self.turns = turns }

    /// `/columns/C`, a cell `/columns/C/R`, or `/C` as a terminal's `tap 3` sends it; the cause
    /// keeps the target as sent, but names a terminal's `/3` in full (`/columns/3`).
    public static func move(at target: JSON?) throws(GameError) -> (Int, target: String) {
        let sent = target?.stringValue ?? ""
        let parts = sent.split(separator: "/", omittingEmptySubsequences: false)
        let numbers = parts.count == 2 ? [parts[1]] : parts.count >= 3 && parts[1] == "columns" ? Array(parts[2...]) : []
        // A JSON Pointer array index: digits without a leading zero (not `+3`, `03` or `-0`, which `Int` reads).
        func index(_ token: Substring) -> Int? {
            guard !token.isEmpty, token.utf8.allSatisfy({ (0x30...0x39).contains($0) }), token == "0" || token.first != "0" else { return nil }
            return Int(token)
        }
        guard parts.first == "", (1...2).contains(numbers.count), let column = index(numbers[0]),
              (0..<columnCount).contains(column), numbers.count == 1 || index(numbers[1]).map((0..<rowCount).contains) == true else {
            throw .badRequest("bad-target", "target must be a column such as /columns/3 (0 to 6), or a cell /columns/3/2")
        }
        return (column, sent.dropFirst().contains("/") ? sent : "/columns/\(column)")
    }

    public mutating func play(_ column: Int, by seat: Int, into ops: inout [PatchOp]) throws(GameError) -> TwoSeatTurns.End? {
        guard columns[column].count < Self.rowCount else { throw .illegal("column-full", "column \(column) is full") }
        let row = columns[column].count
        columns[column].append(seat)
        ops.append(.add(path: "/columns/\(column)/\(row)", value: .string(TwoSeatTurns.names[seat])))
        if let four = fourThrough(column: column, row: row) {
            return .won(line: .array(four.map { .array($0.map(JSON.int)) }), reason: "four")
        }
        return columns.allSatisfy { $0.count == Self.rowCount } ? .drawn : nil
    }

    public var board: [(key: String, value: JSON)] {
        [("columns", .array(columns.map { .array($0.map { .string(TwoSeatTurns.names[$0]) }) }))]
    }

    public static var fixedState: [(key: String, value: JSON)] { [("rows", .int(rowCount))] }

    public static func unsupported(_ gesture: String) -> GameError {
        .illegal("no-\(gesture)", "four in a row has no \(gesture): tap a column")
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

    /// `show`: the six rows (section 16 fixes them as the first lines), then the column numbers.
    public var boardLines: [String] {
        let rows = (0..<Self.rowCount).reversed().map { row in
            (0..<Self.columnCount).map { column in
                row < columns[column].count ? TwoSeatTurns.marks[columns[column][row]] : "."
            }.joined(separator: " ")
        }
        return rows + ["0 1 2 3 4 5 6"]
    }
}
