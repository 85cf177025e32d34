import Testing
@testable import Core

/// The four-in-a-row bots (PROTOCOL section 18), levels 1 to 3, on positions built from columns
/// (bottom first, 0 for p1's discs, 1 for p2's) and in whole games, all seeded with SplitMix64.
@Suite struct FourBotTests {
    /// Level 3's budget in the games below: a tenth of the default, for debug builds. In release,
    /// 1,000 games at this budget against each opponent (alternating who moves first, a random
    /// player always second) kept every promise; the default budget is measured in the report.
    static let gameBudget = 200_000

    // MARK: Helpers

    static func playable(_ p: FourPosition) -> [Int] { (0..<7).filter { p.canPlay($0) } }

    /// The columns where the side to move makes four at once.
    static func wins(_ p: FourPosition) -> [Int] { playable(p).filter { p.isWinningMove($0) } }

    /// The columns where the opponent would make four if it were its turn, found independently of
    /// the bots: the same discs, rebuilt from `discs` with the other side to move.
    static func threats(_ discs: [[Int]], toMove: Int) -> [Int] {
        wins(FourPosition(columns: discs, toMove: 1 - toMove))
    }

    /// Columns after which the opponent has no four at once.
    static func safe(_ p: FourPosition) -> [Int] {
        playable(p).filter { column in
            var child = p
            child.play(column)
            return wins(child).isEmpty
        }
    }

    static func bot(_ level: Int, _ p: FourPosition, seed: UInt64, budget: Int = gameBudget) -> Int? {
        var rng = SplitMix64(seed: seed)
        return FourBot.column(for: p, level: level, random: &rng, nodeBudget: budget)
    }

    /// A uniform pick from the playable columns.
    static func randomColumn(_ p: FourPosition, _ rng: inout SplitMix64) -> Int {
        let columns = playable(p)
        return columns[Int(rng.next(upperBound: UInt64(columns.count)))]
    }

    /// Plays a game from the empty board; the seat (0 or 1) that made four, nil for a draw, and the columns played.
    static func game(_ first: (FourPosition) -> Int?, _ second: (FourPosition) -> Int?) -> (winner: Int?, moves: String) {
        var p = FourPosition(columns: [], toMove: 0)
        var moves = ""
        while !playable(p).isEmpty {
            guard let column = p.toMove == 0 ? first(p) : second(p), p.canPlay(column) else {
                Issue.record("no playable column after \(moves)")
                return (nil, moves)
            }
            moves += String(column)
            if p.isWinningMove(column) { return (p.toMove, moves) }
            p.play(column)
        }
        return (nil, moves)
    }

    /// The board after `moves`, a column per character (columns bottom first), and whose turn it is.
    static func discs(_ moves: String) -> [[Int]] {
        var columns: [[Int]] = Array(repeating: [], count: 7)
        for (i, ch) in moves.enumerated() { columns[Int(String(ch))!].append(i % 2) }
        return columns
    }

    // Positions where the side to move makes four with one column, in each direction.
    static let horizontal = (discs: [[1], [0, 1], [0, 1], [0], [], [], []], toMove: 0, column: 4)
    static let horizontalGap = (discs: [[0], [0], [], [0], [1, 1], [1], []], toMove: 0, column: 2)
    static let vertical = (discs: [[0], [0], [], [], [], [1, 1, 1], [0, 0]], toMove: 1, column: 5)
    static let rising = (discs: [[0], [1, 0], [1, 1, 0], [0, 1, 1], [], [], [0]], toMove: 0, column: 3)
    static let falling = (discs: [[0], [], [], [0, 1, 1], [1, 1, 0], [1, 0], [0]], toMove: 0, column: 3)
    static var fours: [(discs: [[Int]], toMove: Int, column: Int)] { [horizontal, horizontalGap, vertical, rising, falling] }

    /// The same positions with the colours swapped and the other side to move: the four is the opponent's.
    static func swapped(_ discs: [[Int]]) -> [[Int]] { discs.map { $0.map { 1 - $0 } } }

    // MARK: Every level

    @Test func theLevelsAreOneToThree() {
        #expect(FourBot.levels == 1...3)
    }

    @Test func aFullBoardHasNoColumn() {
        let full = FourPosition(columns: [
            [0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0], [1, 1, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0],
            [1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 0],
        ], toMove: 0)
        for level in FourBot.levels {
            #expect(Self.bot(level, full, seed: 1) == nil)
        }
    }

    @Test(arguments: FourBot.levels)
    func everyLevelTakesAFourInEveryDirection(level: Int) {
        for four in Self.fours {
            let p = FourPosition(columns: four.discs, toMove: four.toMove)
            #expect(Self.wins(p) == [four.column], "the position itself")
            for seed in 0..<20 as Range<UInt64> {
                #expect(Self.bot(level, p, seed: seed) == four.column, "level \(level), seed \(seed), \(four.discs)")
            }
        }
    }

    @Test(arguments: FourBot.levels)
    func everyLevelPlaysTheOnlyColumnLeft(level: Int) {
        // Columns 0 to 5 full without a four, one cell left in column 6.
        let p = FourPosition(columns: [
            [0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0], [1, 1, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0],
            [1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1],
        ], toMove: 1)
        #expect(Self.bot(level, p, seed: 3) == 6)
    }

    // MARK: Level 1

    @Test func levelOneDropsAtRandomAmongTheLegalColumns() {
        let empty = FourPosition(columns: [], toMove: 0)
        let picks = (0..<60 as Range<UInt64>).map { Self.bot(1, empty, seed: $0)! }
        // Different seeds, different columns: every column comes up, none far more than its share.
        #expect(Set(picks) == Set(0..<7))
        #expect(Set(picks.prefix(4)).count > 1)
        for column in 0..<7 { #expect(picks.filter { $0 == column }.count <= 20, "column \(column)") }
        // The same seed, the same column.
        #expect((0..<60 as Range<UInt64>).map { Self.bot(1, empty, seed: $0)! } == picks)
        // Never a full column.
        let twoFull = FourPosition(columns: [[0, 1, 0, 1, 0, 1], [], [], [1, 0, 1, 0, 1, 0], [], [], []], toMove: 0)
        let more = (0..<60 as Range<UInt64>).map { Self.bot(1, twoFull, seed: $0)! }
        #expect(Set(more) == [1, 2, 4, 5, 6])
    }

    @Test func levelOneDrawsOnceAMove() {
        // One draw from the generator a move: a sequence of moves from one generator is reproducible.
        var a = SplitMix64(seed: 9)
        var b = SplitMix64(seed: 9)
        let p = FourPosition(columns: [[0], [1]], toMove: 0)
        let first = FourBot.column(for: p, level: 1, random: &a)
        _ = a.next()
        let second = FourBot.column(for: p, level: 1, random: &b)
        #expect(first == second)
        _ = FourBot.column(for: p, level: 1, random: &b)
        #expect(a == b)
    }

    @Test func levelOneDoesNotBlock() {
        // p2 threatens the bottom of column 2; level 1 drops anywhere all the same.
        let discs = [[0], [0], [], [1], [1], [1], [0]]
        let p = FourPosition(columns: discs, toMove: 0)
        #expect(Self.threats(discs, toMove: 0) == [2])
        let picks = Set((0..<60 as Range<UInt64>).map { Self.bot(1, p, seed: $0)! })
        #expect(picks == Set(0..<7))
    }

    // MARK: Level 2

    @Test func levelTwoBlocksTheOpponentsFourInEveryDirection() {
        // The positions where a side makes four, with the colours swapped and the other side to move.
        for four in Self.fours {
            let discs = Self.swapped(four.discs)
            let p = FourPosition(columns: discs, toMove: four.toMove)
            #expect(Self.wins(p) == [] && Self.threats(discs, toMove: four.toMove) == [four.column], "\(discs)")
            for seed in 0..<20 as Range<UInt64> {
                #expect(Self.bot(2, p, seed: seed) == four.column, "seed \(seed), \(discs)")
            }
        }
    }

    @Test func levelTwoWinsRatherThanBlocks() {
        // p1 threatens the bottom of column 2; p2, to move, has three in column 5.
        let p = FourPosition(columns: [[0], [0], [], [0], [], [1, 1, 1], []], toMove: 1)
        for seed in 0..<20 as Range<UInt64> { #expect(Self.bot(2, p, seed: seed) == 5) }
    }

    @Test func levelTwoNeverDropsUnderTheOpponentsFour() {
        // p2 holds the second row at 3, 4, 5: a disc at the bottom of 2 or 6 lets p2 make four on top.
        let p = FourPosition(columns: [[0, 0], [], [], [0, 1], [1, 1], [0, 1], []], toMove: 0)
        #expect(Self.safe(p) == [0, 1, 3, 4, 5])
        let picks = (0..<100 as Range<UInt64>).map { Self.bot(2, p, seed: $0)! }
        // Never 2 or 6, and still at random among the rest.
        #expect(Set(picks) == [0, 1, 3, 4, 5])
        // Level 1 does drop there.
        let levelOne = Set((0..<100 as Range<UInt64>).map { Self.bot(1, p, seed: $0)! })
        #expect(levelOne.contains(2) && levelOne.contains(6))
    }

    @Test func levelTwoBlocksOneOfTwoFours() {
        // p2 on the bottom row at 2, 3, 4 with both ends open: every column loses, it blocks one all the same.
        let p = FourPosition(columns: [[0], [], [1], [1], [1], [], [0, 0]], toMove: 0)
        #expect(Self.safe(p) == [])
        let picks = Set((0..<40 as Range<UInt64>).map { Self.bot(2, p, seed: $0)! })
        #expect(picks == [1, 5])
    }

    @Test func levelTwoBlocksEvenUnderAnotherFour() {
        // p2 threatens the bottom of column 2 (row 0 at 3, 4, 5) and the cell above it (row 1 at 3, 4, 5):
        // blocking lets p2 win on top, not blocking loses at once. It blocks.
        let discs = [[0, 0], [0], [], [1, 1], [1, 1], [1, 1], [0, 0]]
        let p = FourPosition(columns: discs, toMove: 0)
        #expect(Self.wins(p) == [] && Self.safe(p) == [] && Self.threats(discs, toMove: 0) == [2])
        for seed in 0..<20 as Range<UInt64> { #expect(Self.bot(2, p, seed: seed) == 2) }
    }

    @Test func levelTwoKeepsItsRulesInRandomGames() {
        // Checked against the independent `safe` and `threats` at every position of 100 random games.
        var rng = SplitMix64(seed: 77)
        var checked = 0
        for _ in 0..<SampleCount.of(100) {
            var moves = ""
            var p = FourPosition(columns: [], toMove: 0)
            while !Self.playable(p).isEmpty {
                let column = Self.bot(2, p, seed: rng.next())!
                let wins = Self.wins(p)
                let safe = Self.safe(p)
                let threats = Self.threats(Self.discs(moves), toMove: p.toMove)
                if !wins.isEmpty {
                    #expect(wins.contains(column), "\(moves)")
                } else if !safe.isEmpty {
                    #expect(safe.contains(column), "\(moves)")
                } else if !threats.isEmpty {
                    #expect(threats.contains(column), "\(moves)")
                }
                checked += 1
                // Half the moves at random, so that the games reach every kind of position.
                let next = rng.next() & 1 == 0 ? column : Self.randomColumn(p, &rng)
                if p.isWinningMove(next) { break }
                p.play(next)
                moves += String(next)
            }
        }
        #expect(checked > SampleCount.of(1_000))
    }

    // MARK: Level 3

    @Test func levelThreeOpensInTheMiddleWhicheverSeatMovesFirst() {
        #expect(Self.bot(3, FourPosition(columns: [], toMove: 0), seed: 0) == 3)
        #expect(Self.bot(3, FourPosition(columns: [], toMove: 1), seed: 0) == 3)
    }

    @Test func levelThreeBlocksAndNeverDropsUnderTheOpponentsFour() {
        for four in Self.fours {
            let p = FourPosition(columns: Self.swapped(four.discs), toMove: four.toMove)
            #expect(Self.bot(3, p, seed: 0, budget: 20_000) == four.column, "\(four.discs)")
        }
        let p = FourPosition(columns: [[0, 0], [], [], [0, 1], [1, 1], [0, 1], []], toMove: 0)
        let column = Self.bot(3, p, seed: 0, budget: 20_000)
        #expect(column.map { [0, 1, 3, 4, 5].contains($0) } == true)
    }

    @Test func levelThreeIsDeterministicAndDrawsNothing() {
        for moves in ["", "3", "32", "3324", "332415", "0123456", "33333"] {
            let p = FourPosition(columns: Self.discs(moves), toMove: moves.count % 2)
            var rng = SplitMix64(seed: 5)
            let column = FourBot.column(for: p, level: 3, random: &rng, nodeBudget: 20_000)
            #expect(rng == SplitMix64(seed: 5), "\(moves)")
            var other = SplitMix64(seed: 6)
            #expect(FourBot.column(for: p, level: 3, random: &other, nodeBudget: 20_000) == column, "\(moves)")
            #expect(column.map { p.canPlay($0) } == true, "\(moves)")
        }
    }

    @Test func levelThreeMovingFirstBeatsARandomPlayerEveryTime() {
        for seed in 0..<UInt64(SampleCount.of(50)) {
            var rng = SplitMix64(seed: seed)
            let (winner, moves) = Self.game({ Self.bot(3, $0, seed: 0) }, { Self.randomColumn($0, &rng) })
            #expect(winner == 0, "game \(seed): \(moves)")
        }
    }

    /// 50 games against `level`, level 3 moving first in the even ones.
    static func neverLoses(to level: Int, seeds: Range<UInt64>) {
        for seed in seeds {
            var rng = SplitMix64(seed: seed)
            let opponent: (FourPosition) -> Int? = { FourBot.column(for: $0, level: level, random: &rng) }
            if seed % 2 == 0 {
                let (winner, moves) = Self.game({ Self.bot(3, $0, seed: 0) }, opponent)
                #expect(winner != 1, "game \(seed), level 3 first: \(moves)")
            } else {
                let (winner, moves) = Self.game(opponent, { Self.bot(3, $0, seed: 0) })
                #expect(winner != 0, "game \(seed), level 3 second: \(moves)")
            }
        }
    }

    @Test func levelThreeNeverLosesToLevelTwo() {
        Self.neverLoses(to: 2, seeds: 100..<UInt64(100 + SampleCount.of(50)))
    }

    @Test func levelThreeNeverLosesToLevelOne() {
        Self.neverLoses(to: 1, seeds: 200..<UInt64(200 + SampleCount.of(50)))
    }
}
