import Testing
@testable import Core

@Suite struct KlondikeHintTests {
    static func hint(_ picture: String, draw: Int = 1) throws -> KlondikeHint? {
        try klondike(picture, draw: draw).hint()
    }

    static func hint(_ from: String, _ to: String) -> KlondikeHint { KlondikeHint(from: from, to: to) }

    @Test func aTableauCardHomeComesFirstThenTheWastes() throws {
        #expect(try Self.hint("waste: AS\nt0: 5D\nt2: 3C AH") == Self.hint("/tableau/2/1", "/foundations/0"))
        #expect(try Self.hint("waste: AS\nt0: 5D\nt2: 3C") == Self.hint("/waste", "/foundations/0"))
        #expect(try Self.hint("f0: AS\nf1: AD\nt0: 5D\nt1: 2D") == Self.hint("/tableau/1/0", "/foundations/1"))
    }

    @Test func aWholeRunMovesWhenItTurnsACardUpOrEmptiesAPile() throws {
        #expect(try Self.hint("t0: (3C) 9C 8H\nt1: TD") == Self.hint("/tableau/0/1", "/tableau/1"))
        #expect(try Self.hint("t0: 9C 8H\nt1: TD") == Self.hint("/tableau/0/0", "/tableau/1"))
        #expect(try Self.hint("t0: (3C) KH QS") == Self.hint("/tableau/0/1", "/tableau/1"))
    }

    @Test func uselessMovesAreNotSuggested() throws {
        // A King already at the bottom only changes columns; half a run turns nothing up.
        #expect(try Self.hint("t0: KH QS") == nil)
        #expect(try Self.hint("t0: 9C 8H\nt1: 9S") == nil)
        // Cards home are not taken back down.
        #expect(try Self.hint("f0: AH 2H 3H\nt0: 4S") == nil)
    }

    @Test func theWasteGoesToTheTableauAfterTableauMoves() throws {
        #expect(try Self.hint("waste: 8D\nt0: 9C") == Self.hint("/waste", "/tableau/0"))
        #expect(try Self.hint("waste: 8D\nt0: 9C\nt1: (2S) 7C\nt2: 8H") == Self.hint("/tableau/1/1", "/tableau/2"))
    }

    @Test func theStockOnlyWhenTappingBringsUpACardThatPlays() throws {
        #expect(try Self.hint("stock: 9D AS 5C") == Self.hint("/stock", "/waste"))
        #expect(try Self.hint("stock: 9D 7S 5C") == nil)
        #expect(try Self.hint("stock: 9D 7S 5C\nt3: 8H") == Self.hint("/stock", "/waste"))
        // A playable card under the waste top: turn the waste over and draw on.
        #expect(try Self.hint("waste: 7S AS 5C") == Self.hint("/stock", "/waste"))
    }

    @Test func inDrawThreeOnlyCardsThatReachTheTopCount() throws {
        // Drawn in threes the AS is always covered by the two drawn after it.
        #expect(try Self.hint("stock: 9D 5C AS", draw: 3) == nil)
        #expect(try Self.hint("stock: 9D 5C AS", draw: 1) == Self.hint("/stock", "/waste"))
        // Here the AS is the third card of the second packet of a pass.
        #expect(try Self.hint("stock: AS 9D 5C 2H 3H 4H", draw: 3) == Self.hint("/stock", "/waste"))
        // Under the waste top, the AS is the third card of the next pass: turn over and draw.
        #expect(try Self.hint("stock: 9D 5C\nwaste: 2H 3H AS 4H", draw: 3) == Self.hint("/stock", "/waste"))
        // As the second card of every pass it never shows.
        #expect(try Self.hint("stock: 9D 5C\nwaste: 2H AS 3H 4H", draw: 3) == nil)
    }

    @Test func noHintWhenTheGameIsBlocked() throws {
        #expect(try Self.hint("") == nil)
        #expect(try Self.hint("stock: 9D 7S\nwaste: 5C\nt0: KH QS\nt1: 3D") == nil)
    }

    /// Each hint is legal, and following hints ends (no move, or a win) well before any cap:
    /// the hint never sends a player round a loop.
    @Test(arguments: 0..<40)
    func followingHintsIsLegalAndEnds(seed: UInt64) throws {
        var game = try Klondike(options: KlondikeOptions(draw: seed % 2 == 0 ? 1 : 3, deal: .seed(seed), entropy: 0), time: 0)
        var steps = 0
        while let hint = game.hint(), steps < 2000 {
            let command = hint.from == "/stock" ? tapStock : try drag(hint.from, hint.to)
            guard game.expectAccepted(command) != nil else { return }
            steps += 1
        }
        #expect(steps < 2000, "seed \(seed): hints still coming after \(steps) moves")
        #expect(game.hint() == nil)
    }

    // MARK: The solver's hint

    /// A player reads the table before the stock (the report: the hint pointed at the stock
    /// while 3♦ to 4♠ was open): on a winnable deal, when the rules' first move is on the table
    /// and keeps the deal winnable, the hint is that move, with the verdict; else the solver's.
    @Test func theSolversHintTakesTheOpenMoveThatKeepsTheDealWinnable() throws {
        var differed = 0
        for seed: UInt64 in 0..<30 {
            let game = try Klondike(options: KlondikeOptions(draw: 1, deal: .seed(seed), entropy: 0), time: 0)
            let solution = KlondikeSolver.solve(game)
            guard solution.verdict == .winnable, let open = game.hint(), open.from != "/stock" else { continue }
            let first = try #require(game.hints(for: .spectator, budget: KlondikeSolver.defaultBudget).first?.1)
            var after = game
            let stillWins = after.expectAccepted(try drag(open.from, open.to)) != nil
                && KlondikeSolver.solve(after).verdict == .winnable
            let expected = stillWins ? open : solution.moves[0]
            #expect(first.from == expected.from && first.to == expected.to, "seed \(seed)")
            #expect(first.fields.first { $0.key == "winnable" }?.value == true, "seed \(seed)")
            if stillWins && solution.moves[0] != open { differed += 1 }
        }
        #expect(differed > 0, "some deal whose solver line starts away from the open move")
    }

    // MARK: A deck a greedy player wins

    /// Deals the tableau piles so their top cards go home one after another, then the stock
    /// in order: a win for anyone who sends cards home.
    static let homeDeck: [Card] = {
        let tableau = [
            "6D", "8H 7H", "TS 9S 8S", "4C 3C 2C AC", "5D 4D 3D 2D AD", "6H 5H 4H 3H 2H AH", "7S 6S 5S 4S 3S 2S AS",
        ].map { $0.split(separator: " ").map { Card(name: String($0))! } }
        let stock = "JS QS KS 9H TH JH QH KH 7D 8D 9D TD JD QD KD 5C 6C 7C 8C 9C TC JC QC KC"
            .split(separator: " ").map { Card(name: String($0))! }
        var deck: [Card] = []
        for row in 0..<7 {
            for pile in row..<7 { deck.append(tableau[pile][row]) }
        }
        return deck + stock
    }()

    @Test func aGreedyPlayerFollowingHintsWins() throws {
        var game = try Klondike(options: KlondikeOptions(deal: .deck(Self.homeDeck), entropy: 0), time: 10)
        var events: [GameEvent] = []
        while let hint = game.hint() {
            let command = hint.from == "/stock" ? tapStock : try drag(hint.from, hint.to)
            guard let outcome = game.expectAccepted(command, time: 70.5) else { return }
            events += outcome.events
        }
        #expect(game.status == .won)
        // 52 cards home and 24 draws; 52 cards x 10, 21 turned up x 5.
        #expect(game.moves == 76 && game.score == 625)
        #expect(events == [GameEvent(name: "won", fields: [(key: "moves", value: 76), (key: "score", value: 625), (key: "seconds", value: 60)])])
    }

    @Test func aGreedyPlayerDoubleTappingAndTappingTheStockWins() throws {
        var game = try Klondike(options: KlondikeOptions(deal: .deck(Self.homeDeck), entropy: 0), time: 0)
        let sources = (0..<7).map { Target.tableau($0) } + [.waste]
        var won = false
        for _ in 0..<500 where !won {
            var moved = false
            for source in sources where !moved {
                if case .success(let outcome) = game.apply(.doubleTap(source), context: MoveContext(player: "p1", time: 1)) {
                    moved = true
                    won = outcome.events.map(\.name) == ["won"]
                }
            }
            if !moved { game.expectAccepted(tapStock) }
        }
        #expect(won && game.status == .won)
    }
}
