// The node-budgeted search behind `FourSearch`: an exact solver in the manner of Pascal Pons's,
// and a depth-limited negamax with a static evaluation for when the solver runs out of nodes.

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

    /// Narrows the window to the scores still possible; returns the score when it closes.
    @inline(__always) static func narrow(_ alpha: inout Int, _ beta: inout Int, low: Int, high: Int) -> Int? {
        if alpha < low {
            alpha = low
            if alpha >= beta { return alpha }
        }
        if beta > high {
            beta = high
            if alpha >= beta { return beta }
        }
        return nil
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
        let high = (fourCells - 1 - p.moves) / 2
        if let closed = Self.narrow(&alpha, &beta, low: low, high: high) { return closed }
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
        let high = Self.scaled((fourCells - 1 - p.moves) / 2)
        if let closed = Self.narrow(&alpha, &beta, low: low, high: high) { return closed }
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
