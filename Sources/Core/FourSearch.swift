// Four in a row (7 columns, 6 rows): a bitboard position, a node-budgeted exact solver in
// the manner of Pascal Pons's, and a depth-limited negamax for when the solver runs out of
// nodes. Everything is counted in nodes, never timed: the same position and budget always
// give the same answer.

// Bit `7 * column + row` is the cell at `row` (0 at the bottom) of `column`; row 6 of every
// column is a sentinel that stays empty, so that shifted lines never wrap from one column into
// the next.
private let fourWidth = 7
private let fourHeight = 6
private let fourCells = 42
/// The bottom cell of every column.
private let fourBottom: UInt64 = 0x408_1020_4081
/// Every cell of the board (no sentinels).
private let fourBoard: UInt64 = 0xFDFB_F7EF_DFBF
/// Rows 1, 3 and 5 counting from 1 (bit rows 0, 2, 4): the first player's good threats.
private let fourOddRows: UInt64 = 0x54A9_52A5_4A95
/// Rows 2, 4 and 6 counting from 1: the second player's good threats.
private let fourEvenRows: UInt64 = 0xA952_A54A_952A
/// The middle column.
private let fourCenter: UInt64 = 0x7E0_0000

@inline(__always) private func fourColumnMask(_ column: Int) -> UInt64 { 0x3F &<< UInt64(7 * column) }
@inline(__always) private func fourTopCell(_ column: Int) -> UInt64 { 1 &<< UInt64(7 * column + fourHeight - 1) }
@inline(__always) private func fourBottomCell(_ column: Int) -> UInt64 { 1 &<< UInt64(7 * column) }

/// Whether the discs `bits` hold a four.
@inline(__always) private func fourHasFour(_ bits: UInt64) -> Bool {
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
@inline(__always) private func fourWinningCells(_ bits: UInt64, _ mask: UInt64) -> UInt64 {
    // Vertical: three below.
    var r = (bits &<< 1) & (bits &<< 2) & (bits &<< 3)
    // Horizontal (7), and the diagonals (6 and 8).
    r |= fourGaps(bits, 7) | fourGaps(bits, 6) | fourGaps(bits, 8)
    return r & (fourBoard ^ mask)
}

/// The cells that would complete four of `bits` along the line with step `d`, at any of its four places.
@inline(__always) private func fourGaps(_ bits: UInt64, _ d: UInt64) -> UInt64 {
    var p = (bits &<< d) & (bits &<< (2 * d))
    var r = p & (bits &<< (3 * d))
    r |= p & (bits &>> d)
    p = (bits &>> d) & (bits &>> (2 * d))
    r |= p & (bits &<< d)
    r |= p & (bits &>> (3 * d))
    return r
}

/// The column tried `rank`-th from the middle out: 3, 2, 4, 1, 5, 0, 6.
@inline(__always) private func fourCenterFirst(_ rank: Int) -> Int {
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

public enum FourSearch {
    /// The column the side to move should play: a win at once if there is one, else a block of
    /// the opponent's immediate four, else the best column by a depth-limited negamax with
    /// alpha-beta and a transposition table (center-first move order), searching at most
    /// `nodeBudget` nodes (deterministic: the same position and budget give the same column).
    /// nil when the board is full.
    ///
    /// Past the immediate win and block: when only one column doesn't hand the opponent a four
    /// at once, that one (when none, the middlemost). Otherwise the negamax deepens iteratively
    /// over the columns that don't, its last completed depth deciding; before the 6th disc it has
    /// the whole budget. From the 6th disc on it has an eighth, and the exact solver the rest: it
    /// judges the columns in the negamax's order (its choice first, then by the threats each makes
    /// and nearness to the middle) and plays the first that wins, else the first that draws;
    /// when the budget runs out first, the first not shown to lose. A position where a four
    /// already stands gets the middlemost playable column.
    public static func bestColumn(_ position: FourPosition, nodeBudget: Int = 2_000_000) -> Int? {
        let p = position
        guard p.possible != 0 else { return nil }
        let playable = (0..<fourWidth).map(fourCenterFirst).filter { p.canPlay($0) }
        // A finished game (a four already stands): any column.
        if p.hasFour { return playable[0] }
        // Win at once.
        let wins = fourWinningCells(p.current, p.mask) & p.possible
        if let column = playable.first(where: { p.cell($0) & wins != 0 }) { return column }
        // Block the opponent's four (the first of two is as good as any: both can't be blocked).
        let threats = fourWinningCells(p.opponent, p.mask) & p.possible
        if let column = playable.first(where: { p.cell($0) & threats != 0 }) { return column }
        // Columns that don't let the opponent win on top: all lose at once when there are none.
        let safe = p.nonLosingMoves
        var candidates = playable.filter { p.cell($0) & safe != 0 }
        if candidates.count <= 1 { return candidates.first ?? playable[0] }
        candidates = FourSearcher.staticOrder(p, candidates)

        let budget = max(0, nodeBudget)
        let table = FourTable(budget: budget)
        defer { table.deallocate() }
        let solving = p.moves >= FourSearcher.solverFromMoves
        var searcher = FourSearcher(table: table, limit: solving ? budget / FourSearcher.negamaxShare : budget)
        let (column, score) = searcher.deepen(p, candidates)
        // Without the solver, or with a result the solver can't better: the negamax's column.
        if !solving || abs(score) > FourSearcher.proven { return column }
        table.clear()
        var solver = FourSearcher(table: table, limit: budget - searcher.nodes)
        candidates.removeAll { $0 == column }
        candidates.insert(column, at: 0)
        return solver.choose(p, candidates)
    }

    /// Columns that do not hand the opponent an immediate four (dropping there doesn't let the
    /// opponent win by playing on top, and doesn't leave an existing threat unblocked), for a bot of level 2.
    ///
    /// Ascending. A column that makes four at once counts as safe (the game ends there). Empty when
    /// every column loses at once (two opponent threats, or one that can only be blocked under another).
    public static func safeColumns(_ position: FourPosition) -> [Int] {
        let p = position
        let safe = p.nonLosingMoves | (fourWinningCells(p.current, p.mask) & p.possible)
        return (0..<fourWidth).filter { p.cell($0) & safe != 0 }
    }

    /// Exact game-theoretic score if it can be proven within the budget (positive: side to move wins), else nil.
    ///
    /// The score counts in the manner of Pascal Pons's solver: a win with the side's k-th disc
    /// (of the 21 each side has) scores 22 - k, so faster wins score more; a loss is the
    /// opponent's win negated; 0 is a draw. A position where a four already stands scores as
    /// won by whoever made it with their last disc (the side not to move, when both have one).
    public static func solve(_ position: FourPosition, nodeBudget: Int) -> Int? {
        let p = position
        if fourHasFour(p.opponent) { return -(fourCells + 2 - p.moves) / 2 }
        if fourHasFour(p.current) { return (fourCells + 2 - p.moves) / 2 }
        if p.possible == 0 { return 0 }
        if p.canWinNext { return (fourCells + 1 - p.moves) / 2 }
        let table = FourTable(budget: max(0, nodeBudget))
        defer { table.deallocate() }
        var solver = FourSearcher(table: table, limit: max(0, nodeBudget))
        return solver.solve(p)
    }
}

// MARK: - Transposition table

/// A table of `2^k` entries, indexed by a hash of the position's key, always replacing.
/// Allocated and freed by each search (no state survives a call); a value of 0 is an empty slot.
struct FourTable {
    private let keys: UnsafeMutablePointer<UInt64>
    private let values: UnsafeMutablePointer<UInt32>
    private let count: Int
    private let shift: UInt64

    /// About one entry for every two nodes of the budget, from 2^10 to 2^20 entries (12 MiB).
    init(budget: Int) {
        var bits = 10
        while bits < 20 && (1 << bits) < budget / 2 { bits += 1 }
        count = 1 << bits
        shift = UInt64(64 - bits)
        keys = .allocate(capacity: count)
        values = .allocate(capacity: count)
        keys.initialize(repeating: 0, count: count)
        values.initialize(repeating: 0, count: count)
    }

    func clear() {
        keys.update(repeating: 0, count: count)
        values.update(repeating: 0, count: count)
    }

    func deallocate() {
        keys.deallocate()
        values.deallocate()
    }

    @inline(__always) private func index(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    @inline(__always) func get(_ key: UInt64) -> UInt32 {
        let i = index(key)
        return keys[i] == key ? values[i] : 0
    }

    @inline(__always) func put(_ key: UInt64, _ value: UInt32) {
        let i = index(key)
        keys[i] = key
        values[i] = value
    }
}

// MARK: - Search

/// Both searches over one table and one node count: the exact solver (scores as in
/// `FourSearch.solve`) and the depth-limited negamax (a proven result k scores ±(1000 + |k|),
/// a heuristic one less than 1000 either way).
struct FourSearcher {
    /// The solver runs from this many discs on; before, it practically never finishes within the
    /// default budget, and the negamax makes better use of the nodes.
    static let solverFromMoves = 6
    /// When the solver runs, the negamax gets this fraction of the budget first (1 / share).
    static let negamaxShare = 8

    let table: FourTable
    let limit: Int
    private(set) var nodes = 0
    private(set) var aborted = false

    init(table: FourTable, limit: Int) {
        self.table = table
        self.limit = limit
    }

    @inline(__always) private mutating func count() -> Bool {
        nodes += 1
        if nodes > limit { aborted = true }
        return aborted
    }

    // MARK: Move order

    /// Sort keys of the moves in `moves`, 9 bits per column: the threats each move makes, then
    /// nearness to the middle; `first` (a column, or 7 for none) before everything.
    @inline(__always) private static func orderKeys(_ p: FourPosition, _ moves: UInt64, first: Int) -> UInt64 {
        var keys: UInt64 = 0
        for rank in 0..<fourWidth {
            let column = fourCenterFirst(rank)
            let move = moves & fourColumnMask(column)
            if move == 0 { continue }
            let key: UInt64 = column == first ? 511 : UInt64(p.threatsAfter(move)) &<< 3 | UInt64(7 - rank)
            keys |= key &<< UInt64(9 * column)
        }
        return keys
    }

    /// Takes the column of the highest key out of `keys`.
    @inline(__always) private static func popBest(_ keys: inout UInt64) -> Int {
        var best = 0
        var bestKey: UInt64 = 0
        for column in 0..<fourWidth {
            let key = (keys &>> UInt64(9 * column)) & 511
            if key > bestKey { bestKey = key; best = column }
        }
        keys &= ~(511 &<< UInt64(9 * best))
        return best
    }

    /// `columns` (playable) by the threats each makes, then nearness to the middle.
    static func staticOrder(_ p: FourPosition, _ columns: [Int]) -> [Int] {
        var moves: UInt64 = 0
        for column in columns { moves |= p.cell(column) }
        var keys = orderKeys(p, moves, first: 7)
        return columns.map { _ in popBest(&keys) }
    }

    // MARK: Exact solver

    /// The exact score, or nil when the budget runs out. The side to move can't win at once and the board isn't full.
    mutating func solve(_ p: FourPosition) -> Int? {
        var low = -(fourCells - p.moves) / 2
        var high = (fourCells + 1 - p.moves) / 2
        while low < high {
            // Null windows, nearer 0 first: proving win, draw or loss is much cheaper than a margin.
            var middle = low + (high - low) / 2
            if middle <= 0 && low / 2 < middle {
                middle = low / 2
            } else if middle >= 0 && high / 2 > middle {
                middle = high / 2
            }
            let r = negamax(p, middle, middle + 1)
            if aborted { return nil }
            if r <= middle { high = r } else { low = r }
        }
        return low
    }

    /// The first of `columns` (none makes four or lets the opponent make one at once) that wins,
    /// else the first that draws, else the first, as far as the budget goes: when it runs out, the
    /// first not shown to lose.
    mutating func choose(_ p: FourPosition, _ columns: [Int]) -> Int {
        // Does a column win? A child that scores at most -1 for the opponent.
        for column in columns {
            var child = p
            child.play(move: p.cell(column))
            let r = negamax(child, -1, 0)
            if aborted { return columns[0] }
            if r <= -1 { return column }
        }
        // None does: does it draw? A child that scores at most 0 for the opponent.
        for column in columns {
            var child = p
            child.play(move: p.cell(column))
            let r = negamax(child, 0, 1)
            if aborted || r <= 0 { return column }
        }
        return columns[0]
    }

    /// Pons's negamax: the score if within (alpha, beta), else a bound on the same side. The side to
    /// move can't win at once (every move searched leaves the opponent no four at once).
    private mutating func negamax(_ p: FourPosition, _ alphaIn: Int, _ betaIn: Int) -> Int {
        if count() { return 0 }
        let next = p.nonLosingMoves
        if next == 0 { return -(fourCells - p.moves) / 2 }
        if p.moves >= fourCells - 2 { return 0 }
        var alpha = alphaIn
        var beta = betaIn
        // The opponent can't win with its next disc, nor this side with this one.
        let low = -(fourCells - 2 - p.moves) / 2
        if alpha < low {
            alpha = low
            if alpha >= beta { return alpha }
        }
        let high = (fourCells - 1 - p.moves) / 2
        if beta > high {
            beta = high
            if alpha >= beta { return beta }
        }
        let key = p.key
        let entry = table.get(key)
        var first = 7
        if entry != 0 {
            first = Int((entry &>> 9) & 7)
            let score = Int(entry & 127) - 64
            if entry & 128 != 0 {
                if alpha < score {
                    alpha = score
                    if alpha >= beta { return alpha }
                }
            } else if beta > score {
                beta = score
                if alpha >= beta { return beta }
            }
        }
        var keys = Self.orderKeys(p, next, first: first)
        while keys != 0 {
            let column = Self.popBest(&keys)
            var child = p
            child.play(move: next & fourColumnMask(column))
            let score = -negamax(child, -beta, -alpha)
            if aborted { return 0 }
            if score >= beta {
                table.put(key, UInt32(score + 64) | 128 | 256 | UInt32(column) &<< 9)
                return score
            }
            if score > alpha { alpha = score }
        }
        table.put(key, UInt32(alpha + 64) | 256 | 7 &<< 9)
        return alpha
    }

    // MARK: Depth-limited negamax

    static let proven = 1000
    private static let infinity = 4000

    /// A solver score on the negamax's scale.
    @inline(__always) private static func scaled(_ score: Int) -> Int {
        score > 0 ? proven + score : score < 0 ? score - proven : 0
    }

    /// The column of `columns` (playable, none letting the opponent win at once, ordered) that the
    /// deepest completed iteration rates best, and its score; the first and 0 when not even depth 1 completes.
    mutating func deepen(_ p: FourPosition, _ columns: [Int]) -> (column: Int, score: Int) {
        var order = columns
        var best = (column: order[0], score: 0)
        var depth = 1
        while depth <= fourCells - p.moves {
            let (score, column) = root(p, order, depth)
            if aborted { break }
            best = (column, score)
            order.removeAll { $0 == column }
            order.insert(column, at: 0)
            // A proven win or loss doesn't change with depth.
            if abs(score) > Self.proven { break }
            depth += 1
        }
        return best
    }

    private mutating func root(_ p: FourPosition, _ columns: [Int], _ depth: Int) -> (score: Int, column: Int) {
        if count() { return (0, columns[0]) }
        var alpha = -Self.infinity
        let beta = Self.infinity
        var best = -Self.infinity
        var bestColumn = columns[0]
        for (i, column) in columns.enumerated() {
            var child = p
            child.play(move: p.cell(column))
            var score: Int
            if i == 0 {
                score = -search(child, -beta, -alpha, depth - 1)
            } else {
                score = -search(child, -alpha - 1, -alpha, depth - 1)
                if !aborted && score > alpha { score = -search(child, -beta, -alpha, depth - 1) }
            }
            if aborted { return (0, columns[0]) }
            if score > best {
                best = score
                bestColumn = column
            }
            if score > alpha { alpha = score }
        }
        return (best, bestColumn)
    }

    // Table values: score + 4096 in bits 0-12, bound in 13-14 (1 lower, 2 upper, 3 exact),
    // depth in 15-21, best column in 22-24 (7: none), bit 25 set.
    private static let lowerBound: UInt32 = 1
    private static let upperBound: UInt32 = 2

    /// Principal-variation negamax to `depth` plies, not counting forced moves (the only move that
    /// doesn't let the opponent win at once), which extend the search. Fail-soft. The side to move
    /// can't win at once.
    private mutating func search(_ p: FourPosition, _ alphaIn: Int, _ betaIn: Int, _ depth: Int) -> Int {
        if count() { return 0 }
        let next = p.nonLosingMoves
        if next == 0 { return Self.scaled(-(fourCells - p.moves) / 2) }
        if p.moves >= fourCells - 2 { return 0 }
        var alpha = alphaIn
        var beta = betaIn
        let low = Self.scaled(-(fourCells - 2 - p.moves) / 2)
        if alpha < low {
            alpha = low
            if alpha >= beta { return alpha }
        }
        let high = Self.scaled((fourCells - 1 - p.moves) / 2)
        if beta > high {
            beta = high
            if alpha >= beta { return beta }
        }
        if next & (next &- 1) == 0 {
            var child = p
            child.play(move: next)
            return max(low, min(high, -search(child, -beta, -alpha, depth)))
        }
        if depth <= 0 { return max(low, min(high, Self.evaluate(p))) }

        let key = p.key
        let entry = table.get(key)
        var first = 7
        if entry != 0 {
            first = Int((entry &>> 22) & 7)
            let score = Int(entry & 8191) - 4096
            let bound = (entry &>> 13) & 3
            let deep = Int((entry &>> 15) & 127) >= depth
            if bound & Self.lowerBound != 0 && (deep || score > Self.proven) {
                if score >= beta { return score }
                if score > alpha { alpha = score }
            }
            if bound & Self.upperBound != 0 && (deep || score < -Self.proven) {
                if score <= alpha { return score }
                if score < beta { beta = score }
            }
        }
        let alphaStart = alpha
        var best = -Self.infinity
        var bestColumn = 7
        var keys = Self.orderKeys(p, next, first: first)
        var isFirst = true
        while keys != 0 {
            let column = Self.popBest(&keys)
            var child = p
            child.play(move: next & fourColumnMask(column))
            var score: Int
            if isFirst {
                score = -search(child, -beta, -alpha, depth - 1)
                isFirst = false
            } else {
                score = -search(child, -alpha - 1, -alpha, depth - 1)
                if !aborted && score > alpha && score < beta { score = -search(child, -beta, -alpha, depth - 1) }
            }
            if aborted { return 0 }
            if score > best {
                best = score
                bestColumn = column
            }
            if score > alpha { alpha = score }
            if alpha >= beta { break }
        }
        best = max(low, min(high, best))
        let bound = best >= beta ? Self.lowerBound : best > alphaStart ? Self.lowerBound | Self.upperBound : Self.upperBound
        let value = UInt32(best + 4096) | bound &<< 13 | UInt32(min(depth, 127)) &<< 15 | UInt32(bestColumn) &<< 22 | 1 &<< 25
        table.put(key, value)
        return best
    }

    // MARK: Evaluation

    /// The side to move's prospects, below 1000 either way, less the opponent's: threats (cells that
    /// would complete a four), worth far more on rows of the owner's parity (odd rows for the first
    /// player, even for the second: the ones zugzwang hands them at the end of the game), lines of
    /// four still open with two discs and with one, and discs in the middle column. The weights
    /// were chosen by how often the whole search then picks a game-theoretically best column
    /// (win, draw or loss) in middle-game positions.
    static func evaluate(_ p: FourPosition) -> Int {
        let mine = p.current
        let theirs = p.opponent
        let empty = fourBoard & ~p.mask
        let myThreats = fourWinningCells(mine, p.mask) & empty
        let theirThreats = fourWinningCells(theirs, p.mask) & empty
        // The first player moves when an even number of discs is down.
        let myRows = p.moves & 1 == 0 ? fourOddRows : fourEvenRows
        let theirRows = fourBoard ^ myRows
        // A threat right above the opponent's is worth little: the opponent's comes first.
        let myUseful = myThreats & ~(theirThreats &<< 1)
        let theirUseful = theirThreats & ~(myThreats &<< 1)
        var score = 0
        score += 28 * (myUseful & myRows).nonzeroBitCount + 8 * (myUseful & theirRows).nonzeroBitCount
        score -= 28 * (theirUseful & theirRows).nonzeroBitCount + 8 * (theirUseful & myRows).nonzeroBitCount
        score += 2 * (openLines(mine, theirs) - openLines(theirs, mine))
        score += 2 * ((mine & fourCenter).nonzeroBitCount - (theirs & fourCenter).nonzeroBitCount)
        return max(-(proven - 1), min(proven - 1, score))
    }

    /// Lines of four holding none of `other`'s discs: 2 for each with two of `own`'s, 1 for each with one.
    @inline(__always) private static func openLines(_ own: UInt64, _ other: UInt64) -> Int {
        let free = fourBoard & ~other
        return openLines(own, free, 1) + openLines(own, free, 7) + openLines(own, free, 6) + openLines(own, free, 8)
    }

    /// `openLines` along the lines of step `d`, each named by its lowest cell.
    @inline(__always) private static func openLines(_ own: UInt64, _ free: UInt64, _ d: UInt64) -> Int {
        let lines = free & (free &>> d) & (free &>> (2 * d)) & (free &>> (3 * d))
        // By halves: one disc in a half (a, b) or two (aa, bb).
        let a = own ^ (own &>> d)
        let aa = own & (own &>> d)
        let b = (own &>> (2 * d)) ^ (own &>> (3 * d))
        let bb = (own &>> (2 * d)) & (own &>> (3 * d))
        let two = (a & b) | ((aa ^ bb) & ~(a | b))
        let one = (a ^ b) & ~(aa | bb)
        return 2 * (lines & two).nonzeroBitCount + (lines & one).nonzeroBitCount
    }
}
