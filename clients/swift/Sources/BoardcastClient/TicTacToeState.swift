/// The state of tic-tac-toe (PROTOCOL section 20), a game an operator's own package adds.
public struct TicTacToeState: Codable, Sendable, Equatable {
    /// nine cells row by row (cell `3 * row + column`): nil, `p1` or `p2`
    public var cells: [String?]
    public var turn: String?
    public var first: String
    public var status: String
    public var winner: String?
    /// the three winning cell numbers in increasing order
    public var line: [Int]?
    public var moves: Int
}
