/// Depth-first search over positions with a table of positions already reached, as
/// Solvitaire does: a position is expanded at most once, so the search ends, and when it
/// ends without a win every position the moves can reach was tried. It runs as a loop
/// over explicit stacks, not recursion, so a deep path cannot overflow a thread's stack.
struct SolverSearch: ~Copyable {
    var position: SolverPosition
    private var visited = VisitedSet()
    /// Moves still to try, frame after frame.
    private var moves = FlatStack<UInt32>(capacity: 1024)
    /// Undo records of the moves made from the start, safe moves included: on a win, the
    /// winning line.
    private var path = FlatStack<UInt64>(capacity: 256)
    private var frames = FlatStack<SolverFrame>(capacity: 128)
    /// Scratch for `orderMoves`.
    private var ranked = FlatStack<UInt64>(capacity: 64)
    /// Breaks ties between moves of equal promise after the first round (see `run`).
    private var ordering: SplitMix64? = nil
    /// Positions expanded: the unit of the budget.
    private(set) var nodes = 0
    /// For tests: before every move, check the position against one rebuilt from its piles
    /// and the frame's moves against those generated afresh (slow).
    var checking = false

    init(_ start: SolverStart) {
        position = SolverPosition(start)
    }

    /// Searches until a win, until every reachable position is tried, or until `budget`
    /// positions have been expanded, whichever comes first.
    ///
    /// The search restarts from the start now and then, with moves of equal promise in
    /// another order: on a winnable deal, how long a depth-first search takes depends
    /// wildly on the order of its first choices, and a fresh order often finds a win at
    /// once where the first one would have spent millions of positions in a lost branch.
    /// Restarts cost little: every position already searched to its end stays in the table
    /// (it is lost, whatever the order), and only those on the line being searched when
    /// the restart comes, searched in part, are taken out of it.
    mutating func run(budget: Int) -> KlondikeVerdict {
        position.playSafeMoves(path: &path)
        if position.isWon { return .winnable }
        if position.someCardCanNeverGoHome { return .unwinnable }
        guard budget > 0 else { return .unknown }
        let rootPath = path.count
        var round = 0
        while true {
            let limit = min(budget, nodes + Self.roundBudget(round))
            let verdict = searchRound(limit: limit)
            guard verdict == .unknown, nodes < budget else { return verdict }
            abandonRound(rootPath: rootPath)
            round += 1
            ordering = SplitMix64(seed: UInt64(round))
        }
    }

    /// Positions a round of the search may expand: the Luby sequence (1, 1, 2, 1, 1, 2, 4,
    /// 1, ...) in units of `restartUnit`, the schedule that is never far from the best
    /// fixed one when nothing is known about how long searches take.
    static func roundBudget(_ round: Int) -> Int {
        var i = round + 1
        while true {
            var k = 1
            while (1 << k) - 1 < i { k += 1 }
            if (1 << k) - 1 == i { return restartUnit << (k - 1) }
            i -= (1 << (k - 1)) - 1
        }
    }

    static let restartUnit = 4096

    /// Searches from the start until a win, the end, or `limit` positions.
    private mutating func searchRound(limit: Int) -> KlondikeVerdict {
        if visited.visit(position.key, pending: 0) != .skip {
            nodes += 1
            openFrame()
        } else {
            return .unwinnable
        }
        while true {
            let top = frames.count - 1
            let frame = frames[top]
            if frame.next == frame.end {
                moves.shrink(to: Int(frame.start))
                frames.shrink(to: top)
                if top == 0 { return .unwinnable }
                unwind(to: Int(frames[top - 1].pathCount))
                continue
            }
            let move = SolverMove(raw: moves[Int(frame.next)])
            frames[top].next = frame.next + 1
            if checking { check(before: move, frame: frame) }
            path.append(position.apply(move))
            if move.thenHome {
                let uncovered = position.topCard(move.from)
                path.append(position.apply(SolverMove(.tableauToFoundation, from: move.from, card: uncovered)))
            }
            position.playSafeMoves(path: &path)
            if position.isWon { return .winnable }
            switch visited.visit(position.key, pending: position.pending) {
            case .skip:
                unwind(to: Int(frame.pathCount))
                continue
            case .searchAll:
                // Undo restores whatever was pending when each move was made, so the next
                // move's undo record keeps this.
                position.pending = 0
            case .searchPending:
                break
            }
            guard nodes < limit else {
                // Filed but not searched: out of the table again.
                visited.remove(position.key)
                unwind(to: Int(frame.pathCount))
                return .unknown
            }
            nodes += 1
            openFrame()
        }
    }

    /// Takes the positions of the line being searched, searched only in part, out of the
    /// table, and goes back to the start.
    private mutating func abandonRound(rootPath: Int) {
        while frames.count > 0 {
            let frame = frames.removeLast()
            unwind(to: Int(frame.pathCount))
            visited.remove(position.key)
        }
        moves.shrink(to: 0)
        unwind(to: rootPath)
    }

    /// The moves from the start to here, safe moves included, in order.
    var line: [SolverMove] {
        (0..<path.count).map { SolverMove(raw: UInt32(truncatingIfNeeded: path[$0])) }
    }

    private func check(before move: SolverMove, frame: SolverFrame) {
        if let problem = position.consistencyProblem {
            preconditionFailure("solver position broken before \(move.kind): \(problem)")
        }
        var fresh = FlatStack<UInt32>(capacity: 64)
        position.generateMoves(into: &fresh)
        let stored = (Int(frame.start)..<Int(frame.end)).map { moves[$0] }
        precondition((0..<fresh.count).map { fresh[$0] }.sorted() == stored.sorted(), "solver position not restored before \(move.kind)")
    }

    private mutating func openFrame() {
        let start = Int32(moves.count)
        position.generateMoves(into: &moves)
        orderMoves(from: Int(start))
        frames.append(SolverFrame(start: start, next: start, end: Int32(moves.count), pathCount: Int32(path.count)))
    }

    /// Sorts the moves best first (equal ones keep the generator's order), by what each
    /// does at once: a card turned face up counts four times a card sent home.
    private mutating func orderMoves(from start: Int) {
        let end = moves.count
        guard end - start > 1 else { return }
        ranked.shrink(to: 0)
        for i in start..<end {
            let move = SolverMove(raw: moves[i])
            // Gain above, the move's place reversed below: one descending sort of these
            // numbers is the order wanted.
            let gain = UInt64(truncatingIfNeeded: position.gain(of: move) + 128)
            let tie = ordering?.next() ?? UInt64(0xFF - (i - start))
            ranked.append(gain << 40 | (tie & 0xFF) << 32 | UInt64(move.raw))
        }
        for i in 1..<ranked.count {
            let item = ranked[i]
            var j = i
            while j > 0 && ranked[j - 1] < item {
                ranked[j] = ranked[j - 1]
                j -= 1
            }
            ranked[j] = item
        }
        for k in 0..<ranked.count { moves[start + k] = UInt32(truncatingIfNeeded: ranked[k]) }
    }

    private mutating func unwind(to count: Int) {
        while path.count > count { position.undo(path.removeLast()) }
    }
}

/// A position on the search's current line: its moves are `moves[next..<end]` still to
/// try (from `start`), and undoing the path down to `pathCount` returns to it.
struct SolverFrame: BitwiseCopyable {
    var start: Int32
    var next: Int32
    var end: Int32
    var pathCount: Int32
}
