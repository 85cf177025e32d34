/// The state of four in a row (PROTOCOL sections 16 and 17).
public struct FourInARowState: Codable, Sendable, Equatable {
    /// Turn clocks (section 17): milliseconds left as of `since`, when the `running` seat's
    /// clock started.
    public struct Clocks: Codable, Sendable, Equatable {
        public var p1: Double
        public var p2: Double
        /// the seat whose clock runs; nil once the game ended
        public var running: String?
        /// RFC 3339 UTC with milliseconds, the server's time
        public var since: String
    }

    /// seven columns, each its discs bottom first (`p1` or `p2`)
    public var columns: [[String]]
    /// cells per column (6)
    public var rows: Int
    /// the seat to move; nil unless `playing`
    public var turn: String?
    /// who moved first in this game
    public var first: String
    /// `waiting`, `playing`, `won` or `drawn`
    public var status: String
    public var winner: String?
    /// the winning four cells as `[column, row]` pairs (row 0 at the bottom)
    public var line: [[Int]]?
    /// discs dropped in this game
    public var moves: Int
    public var clocks: Clocks?

    /// Columns a disc can still go into.
    public var openColumns: [Int] {
        columns.indices.filter { columns[$0].count < rows }
    }

    public var hasEnded: Bool { status == "won" || status == "drawn" }

    /// The disc at a cell, if any (row 0 at the bottom).
    public func disc(column: Int, row: Int) -> String? {
        guard columns.indices.contains(column), columns[column].indices.contains(row) else { return nil }
        return columns[column][row]
    }
}
