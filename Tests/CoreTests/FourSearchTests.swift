import Testing
@testable import Core

@Suite struct FourSearchTests {
    /// The budget of the tests: small, for debug builds.
    static let budget = 50_000

    /// The position after `moves`, a column per character, from the empty board.
    static func position(_ moves: String) -> FourPosition {
        var p = FourPosition(columns: [], toMove: 0)
        for ch in moves {
            let column = Int(String(ch))!
            precondition(p.canPlay(column) && !p.isWinningMove(column), "move \(column) of \(moves)")
            p.play(column)
        }
        return p
    }

    static func playable(_ p: FourPosition) -> [Int] { (0..<7).filter { p.canPlay($0) } }

    /// A uniform pick from `columns` (not empty).
    static func pick(_ columns: [Int], _ rng: inout SplitMix64) -> Int {
        columns[Int(rng.next() % UInt64(columns.count))]
    }

    /// The level-2 bot: a win at once, else a block of the opponent's four, else a random safe column.
    static func levelTwo(_ p: FourPosition, _ rng: inout SplitMix64) -> Int {
        let columns = playable(p)
        if let win = columns.first(where: { p.isWinningMove($0) }) { return win }
        var passed = p
        passed.passForTests()
        if let block = columns.first(where: { passed.isWinningMove($0) }) { return block }
        let safe = FourSearch.safeColumns(p)
        return pick(safe.isEmpty ? columns : safe, &rng)
    }

    /// Plays a game from the empty board; the seat that made four (0 or 1), nil for a draw.
    static func game(_ first: (FourPosition) -> Int, _ second: (FourPosition) -> Int) -> Int? {
        var p = FourPosition(columns: [], toMove: 0)
        while playable(p).count > 0 {
            let column = p.toMove == 0 ? first(p) : second(p)
            #expect(p.canPlay(column))
            if p.isWinningMove(column) { return p.toMove }
            p.play(column)
        }
        return nil
    }

    // MARK: The position

    @Test func columnsAndPlaysMakeTheSamePosition() {
        let played = Self.position("3324")
        let built = FourPosition(columns: [[], [], [0], [0, 1], [1], [], []], toMove: 0)
        #expect(played == built)
        #expect(built.moves == 4 && built.toMove == 0)
        #expect(FourPosition(columns: [[], [], [], [0]], toMove: 1) == Self.position("3"))
        // The same discs with the other side to move are another position.
        #expect(FourPosition(columns: [[], [], [], [0]], toMove: 0) != Self.position("3"))
        var full = Self.position("")
        for _ in 0..<6 { full.play(0) }
        #expect(!full.canPlay(0) && full.canPlay(1) && !full.canPlay(-1) && !full.canPlay(7))
        #expect(!full.isWinningMove(0) && !full.isWinningMove(7))
    }

    // MARK: Winning at once

    @Test func takesAHorizontalFour() {
        // p1 on the bottom row at 1, 2, 3; p2 holds 0 and sits on 1 and 2.
        let p = FourPosition(columns: [[1], [0, 1], [0, 1], [0], [], [], []], toMove: 0)
        #expect(p.isWinningMove(4) && !p.isWinningMove(0))
        #expect(FourSearch.bestColumn(p, nodeBudget: Self.budget) == 4)
    }

    @Test func takesAVerticalFour() {
        let p = FourPosition(columns: [[0], [0], [], [], [], [1, 1, 1], [0, 0]], toMove: 1)
        #expect(p.isWinningMove(5))
        #expect(FourSearch.bestColumn(p, nodeBudget: Self.budget) == 5)
    }

    @Test func takesARisingDiagonalFour() {
        // p1 at (0,0), (1,1), (2,2); column 3 is three high.
        let p = FourPosition(columns: [[0], [1, 0], [1, 1, 0], [0, 1, 1], [], [], [0]], toMove: 0)
        #expect(p.isWinningMove(3))
        #expect(FourSearch.bestColumn(p, nodeBudget: Self.budget) == 3)
    }

    @Test func takesAFallingDiagonalFour() {
        // The mirror image: p1 at (6,0), (5,1), (4,2).
        let p = FourPosition(columns: [[0], [], [], [0, 1, 1], [1, 1, 0], [1, 0], [0]], toMove: 0)
        #expect(p.isWinningMove(3))
        #expect(FourSearch.bestColumn(p, nodeBudget: Self.budget) == 3)
    }

    @Test func aWinComesBeforeABlock() {
        // p1 threatens the bottom of column 2; p2 has three in column 5.
        let p = FourPosition(columns: [[0], [0], [], [0], [], [1, 1, 1], []], toMove: 1)
        #expect(FourSearch.bestColumn(p, nodeBudget: Self.budget) == 5)
    }

    // MARK: Blocking and safe columns

    @Test func blocksTheOpponentsFour() {
        // p2 on the bottom row at 3, 4, 5; 6 is taken, 2 is open.
        let p = FourPosition(columns: [[0], [0], [], [1], [1], [1], [0]], toMove: 0)
        #expect(FourSearch.bestColumn(p, nodeBudget: Self.budget) == 2)
        #expect(FourSearch.safeColumns(p) == [2])
    }

    @Test func safeColumnsLeaveNoFourOnTop() {
        // p2 holds row 2 at 3, 4, 5: a disc at the bottom of 2 or of 6 lets p2 win on top of it.
        let p = FourPosition(columns: [[0, 0], [], [], [0, 1], [1, 1], [0, 1], []], toMove: 0)
        #expect(FourSearch.safeColumns(p) == [0, 1, 3, 4, 5])
        let column = FourSearch.bestColumn(p, nodeBudget: Self.budget)
        #expect(column != nil && column != 2 && column != 6)
    }

    @Test func twoThreatsLeaveNoSafeColumn() {
        // p2 on the bottom row at 2, 3, 4 with both ends open.
        let p = FourPosition(columns: [[0], [], [1], [1], [1], [], [0, 0]], toMove: 0)
        #expect(FourSearch.safeColumns(p) == [])
        // Still a column, blocking one end.
        let column = FourSearch.bestColumn(p, nodeBudget: Self.budget)
        #expect(column == 1 || column == 5)
    }

    @Test func aWinningColumnIsSafe() {
        let p = FourPosition(columns: [[0], [0], [], [0], [], [1, 1, 1], []], toMove: 1)
        #expect(FourSearch.safeColumns(p).contains(5))
    }

    @Test func aFullBoardHasNoColumn() {
        let p = FourPosition(columns: [
            [0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0], [1, 1, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0],
            [1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 0],
        ], toMove: 0)
        #expect(p.moves == 42)
        #expect(FourSearch.bestColumn(p) == nil)
        #expect(FourSearch.safeColumns(p) == [])
        #expect(FourSearch.solve(p, nodeBudget: 1) == 0)
    }

    // MARK: Solving

    /// Plain negamax to the end of the game, scored like `solve`.
    static func bruteForce(_ p: FourPosition) -> Int {
        var best = -100
        for column in playable(p) {
            if p.isWinningMove(column) { return (43 - p.moves) / 2 }
            var child = p
            child.play(column)
            best = max(best, -bruteForce(child))
        }
        return best == -100 ? 0 : best
    }

    @Test func solveScoresAsPlainNegamaxNearTheEnd() {
        var rng = SplitMix64(seed: 4)
        var checked = 0
        while checked < 12 {
            // 33 random discs without a four, then the last 9 cells by brute force.
            var p = FourPosition(columns: [], toMove: 0)
            var ended = false
            while p.moves < 33 && !ended {
                let column = Self.pick(Self.playable(p), &rng)
                if p.isWinningMove(column) { ended = true } else { p.play(column) }
            }
            if ended { continue }
            #expect(FourSearch.solve(p, nodeBudget: 1_000_000) == Self.bruteForce(p))
            checked += 1
        }
    }

    @Test func solveCountsDiscsToTheWin() {
        // p2 wins with its 4th disc: 22 - 4 = 18.
        let p = FourPosition(columns: [[0], [0], [], [], [], [1, 1, 1], [0, 0]], toMove: 1)
        #expect(FourSearch.solve(p, nodeBudget: 0) == 18)
        // p1 likewise, with three in column 5.
        var q = Self.position("565656")
        #expect(FourSearch.solve(q, nodeBudget: 0) == 18)
        // Once the four stands, p2 to move has lost by as much.
        q.play(5)
        #expect(FourSearch.solve(q, nodeBudget: 0) == -18)
    }

    @Test func solveGivesUpPastItsBudget() {
        let p = Self.position("3")
        #expect(FourSearch.solve(p, nodeBudget: 1_000) == nil)
        #expect(FourSearch.solve(p, nodeBudget: 0) == nil)
    }

    @Test func bestColumnKeepsAProvenWin() throws {
        // Middle-game positions the solver settles: when the side to move wins, its column wins.
        var rng = SplitMix64(seed: 17)
        var wins = 0
        var tries = 0
        while wins < 5 && tries < 200 {
            tries += 1
            var p = FourPosition(columns: [], toMove: 0)
            var ended = false
            while p.moves < 18 && !ended {
                let column = Self.pick(Self.playable(p), &rng)
                if p.isWinningMove(column) { ended = true } else { p.play(column) }
            }
            guard !ended, let score = FourSearch.solve(p, nodeBudget: Self.budget), score > 0 else { continue }
            let column = try #require(FourSearch.bestColumn(p, nodeBudget: Self.budget))
            if p.isWinningMove(column) {
                wins += 1
                continue
            }
            var child = p
            child.play(column)
            let after = FourSearch.solve(child, nodeBudget: 10 * Self.budget)
            #expect(after.map { $0 < 0 } ?? false, "column \(column) gives away the win in \(p)")
            wins += 1
        }
        #expect(wins == 5)
    }

    // MARK: Determinism and budgets

    @Test func theSameBudgetGivesTheSameColumn() {
        for moves in ["", "3", "33", "3324", "332415", "0123456"] {
            let p = Self.position(moves)
            for budget in [0, 1, 100, 5_000] {
                let column = FourSearch.bestColumn(p, nodeBudget: budget)
                #expect(column != nil && p.canPlay(column!))
                #expect(FourSearch.bestColumn(p, nodeBudget: budget) == column)
            }
        }
    }

    @Test func opensInTheMiddle() {
        #expect(FourSearch.bestColumn(Self.position(""), nodeBudget: Self.budget) == 3)
    }

    // MARK: Playing games

    @Test func movingFirstItBeatsARandomPlayerEveryTime() {
        for seed in 0..<50 as Range<UInt64> {
            var rng = SplitMix64(seed: seed)
            let winner = Self.game(
                { FourSearch.bestColumn($0, nodeBudget: 5_000)! },
                { Self.pick(Self.playable($0), &rng) })
            #expect(winner == 0, "game \(seed)")
        }
    }

    @Test func itNeverLosesToTheLevelTwoBot() {
        for seed in 0..<20 as Range<UInt64> {
            var rng = SplitMix64(seed: 1000 + seed)
            let first = Self.game({ FourSearch.bestColumn($0, nodeBudget: 10_000)! }, { Self.levelTwo($0, &rng) })
            #expect(first != 1, "game \(seed), level 3 first")
            let second = Self.game({ Self.levelTwo($0, &rng) }, { FourSearch.bestColumn($0, nodeBudget: 10_000)! })
            #expect(second != 0, "game \(seed), level 3 second")
        }
    }
}

extension FourPosition {
    /// The same discs with the other side to move (tests only: to ask what the opponent threatens).
    mutating func passForTests() {
        var columns: [[Int]] = Array(repeating: [], count: 7)
        for column in 0..<7 {
            for row in 0..<6 {
                let bit: UInt64 = 1 << UInt64(7 * column + row)
                guard mask & bit != 0 else { break }
                columns[column].append((current & bit != 0) == (toMove == 0) ? 0 : 1)
            }
        }
        self = FourPosition(columns: columns, toMove: 1 - toMove)
    }
}
