// Four in a row (7 columns, 6 rows) as bitboards, for the search (FourSearch.swift, FourSearcher.swift)
// and the bots (FourBot.swift).

// Bit `7 * column + row` is the cell at `row` (0 at the bottom) of `column`; row 6 of every
// column is a sentinel that stays empty, so that shifted lines never wrap from one column into
// the next.
let fourWidth = 7
let fourHeight = 6
let fourCells = 42
/// The bottom cell of every column.
let fourBottom: UInt64 = 0x408_1020_4081
/// Every cell of the board (no sentinels).
let fourBoard: UInt64 = 0xFDFB_F7EF_DFBF
/// Rows 1, 3 and 5 counting from 1 (bit rows 0, 2, 4): the first player's good threats.
let fourOddRows: UInt64 = 0x54A9_52A5_4A95
/// Rows 2, 4 and 6 counting from 1: the second player's good threats.
let fourEvenRows: UInt64 = 0xA952_A54A_952A
/// The middle column.
let fourCenter: UInt64 = 0x7E0_0000

@inline(__always) func fourColumnMask(_ column: Int) -> UInt64 { 0x3F &<< UInt64(7 * column) }
@inline(__always) func fourTopCell(_ column: Int) -> UInt64 { 1 &<< UInt64(7 * column + fourHeight - 1) }
@inline(__always) func fourBottomCell(_ column: Int) -> UInt64 { 1 &<< UInt64(7 * column) }

/// Whether the discs `bits` hold a four.
@inline(__always) func fourHasFour(_ bits: UInt64) -> Bool {
    // Vertical, horizontal, and the two diagonals.
    var m = bits & (bits &>> 1)
    if m & (m &>> 2) != 0 { return true }
    m = bits & (bits &>> 7)
    if m & (m &>> 14) != 0 { return true }
    m = bits & (bits &>> 6)
    if m & (m &>> 12) != 0 { return true }
    m = bits & (bits &>> 8)
    return m & (m &>> 16) != 0
}

/// The empty cells that would complete a four for the discs `bits`, whether playable now or not.
@inline(__always) func fourWinningCells(_ bits: UInt64, _ mask: UInt64) -> UInt64 {
    // Vertical: three below.
    var r = (bits &<< 1) & (bits &<< 2) & (bits &<< 3)
    // Horizontal (7), and the diagonals (6 and 8).
    r |= fourGaps(bits, 7) | fourGaps(bits, 6) | fourGaps(bits, 8)
    return r & (fourBoard ^ mask)
}

/// The cells that would complete four of `bits` along the line with step `d`, at any of its four places.
@inline(__always) func fourGaps(_ bits: UInt64, _ d: UInt64) -> UInt64 {
    var p = (bits &<< d) & (bits &<< (2 * d))
    var r = p & (bits &<< (3 * d))
    r |= p & (bits &>> d)
    p = (bits &>> d) & (bits &>> (2 * d))
    r |= p & (bits &<< d)
    r |= p & (bits &>> (3 * d))
    return r
}

/// The column tried `rank`-th from the middle out: 3, 2, 4, 1, 5, 0, 6.
@inline(__always) func fourCenterFirst(_ rank: Int) -> Int {
    rank & 1 == 1 ? 3 - (rank + 1) / 2 : 3 + rank / 2
}

/// A four-in-a-row position for searching: bitboards of the two sides.
public struct FourPosition: Sendable, Equatable, Hashable {
    /// The discs of the side to move.
    private(set) var current: UInt64
    /// Every disc on the board.
    private(set) var mask: UInt64
    /// The number of discs on the board.
    public private(set) var moves: Int
    /// The seat to move: 0 for the first (p1), 1 for the second (p2).
    public private(set) var toMove: Int

    /// columns[c] lists column c's discs bottom first: 0 for the first seat (p1), 1 for the second (p2). 7 columns, at most 6 each.
    ///
    /// Fewer than 7 columns leave the rest empty. More columns, a taller column, a disc other than 0
    /// or 1, or `toMove` other than 0 or 1 are programming errors (a precondition fails).
    public init(columns: [[Int]], toMove: Int) {
        precondition(columns.count <= fourWidth, "four in a row has 7 columns, not \(columns.count)")
        precondition(toMove == 0 || toMove == 1, "the side to move is 0 or 1, not \(toMove)")
        var first: UInt64 = 0
        var mask: UInt64 = 0
        for (c, column) in columns.enumerated() {
            precondition(column.count <= fourHeight, "column \(c) holds \(column.count) discs, more than 6")
            for (r, disc) in column.enumerated() {
                precondition(disc == 0 || disc == 1, "a disc is 0 or 1, not \(disc)")
                let bit: UInt64 = 1 &<< UInt64(7 * c + r)
                mask |= bit
                if disc == 0 { first |= bit }
            }
        }
        self.mask = mask
        self.current = toMove == 0 ? first : mask ^ first
        self.moves = mask.nonzeroBitCount
        self.toMove = toMove
    }

    /// Whether `column` is on the board and not full.
    public func canPlay(_ column: Int) -> Bool {
        column >= 0 && column < fourWidth && mask & fourTopCell(column) == 0
    }

    /// Does dropping the side to move's disc in `column` make four (false when it can't be played).
    public func isWinningMove(_ column: Int) -> Bool {
        canPlay(column) && fourWinningCells(current, mask) & possible & fourColumnMask(column) != 0
    }

    /// Drops the side to move's disc in `column`, which must be playable, and passes the turn.
    public mutating func play(_ column: Int) {
        precondition(canPlay(column), "column \(column) can't be played")
        play(move: (mask &+ fourBottomCell(column)) & fourColumnMask(column))
    }

    // MARK: Bitboard helpers for the search

    /// Plays the cell `move` (a single playable bit).
    @inline(__always) mutating func play(move: UInt64) {
        current ^= mask
        mask |= move
        moves += 1
        toMove ^= 1
    }

    /// The cell each playable column would take next.
    @inline(__always) var possible: UInt64 { (mask &+ fourBottom) & fourBoard }

    /// The opponent's discs.
    @inline(__always) var opponent: UInt64 { current ^ mask }

    /// A number unique to the position (given whose turn it is): `current + mask`.
    @inline(__always) var key: UInt64 { current &+ mask }

    @inline(__always) var canWinNext: Bool { fourWinningCells(current, mask) & possible != 0 }

    /// Whether a four already stands for either side.
    var hasFour: Bool { fourHasFour(current) || fourHasFour(opponent) }

    /// Playable cells after which the opponent can't win at once: the only block when the opponent
    /// threatens one playable four, none when it threatens two, and never under an opponent's four.
    @inline(__always) var nonLosingMoves: UInt64 {
        var moves = possible
        let threats = fourWinningCells(opponent, mask)
        let forced = moves & threats
        if forced != 0 {
            if forced & (forced &- 1) != 0 { return 0 }
            moves = forced
        }
        return moves & ~(threats &>> 1)
    }

    /// How many cells would complete a four for the side to move after it plays `move`.
    @inline(__always) func threatsAfter(_ move: UInt64) -> Int {
        fourWinningCells(current | move, mask).nonzeroBitCount
    }

    /// The cell playing `column` takes (0 when it can't be played).
    @inline(__always) func cell(_ column: Int) -> UInt64 { possible & fourColumnMask(column) }
}
