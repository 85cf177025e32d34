import Testing
@testable import Core

@Suite struct KlondikeUndoTests {
    /// Every kind of move, each followed by an undo that must give back the game exactly.
    @Test func undoRestoresTheGameBeforeEachKindOfMove() throws {
        let start = try klondike(
            """
            stock: 3D 4D 5D 6D
            waste: 8D
            f0: AH 2H 3H
            f1: AD
            t0: (AS) (2C) 9C
            t1: 4S
            t2: (KC) TD
            t3: (QC) 2D
            """,
            score: 10)
        let moves: [KlondikeCommand] = [
            tapStock,
            try drag("/waste", "/tableau/0"),  // +5
            try drag("/tableau/0/2", "/tableau/2"),  // uncovers 2C: +5
            try drag("/foundations/0", "/tableau/1"),  // -15, floored at 0
            try doubleTap("/tableau/0"),  // onto TD, uncovering 2C
            try doubleTap("/tableau/3"),  // home, uncovering QC: +15
        ]
        for move in moves {
            var game = start
            game.expectAccepted(move)
            #expect(game != start)
            let undo = game.expectAccepted(.undo)
            #expect(game == start, "undo of \(move)")
            #expect(undo?.events == [])
        }
    }

    @Test func undoTurnsACardUncoveredByTheMoveFaceDownAgain() throws {
        var game = try klondike("f0: AH\nt0: (5C) 2H")
        game.expectAccepted(try doubleTap("/tableau/0"))
        #expect(game.publicState["tableau"]?.arrayValue?[0] == ["5C"])
        let undo = game.expectAccepted(.undo)
        #expect(game.publicState["tableau"]?.arrayValue?[0] == ["??", "2H"])
        #expect(undo?.diff.encodedOps == #"[{"op":"remove","path":"/foundations/0/1"},{"op":"replace","path":"/tableau/0/0","value":"??"},{"op":"add","path":"/tableau/0/1","value":"2H"},{"op":"replace","path":"/moves","value":0},{"op":"replace","path":"/score","value":0}]"#)
    }

    @Test func undoOfTurningTheWasteOverAndOfDrawThree() throws {
        let start = try klondike("stock: 2C 3C 4C 5C\nwaste: 9D", draw: 3, score: 5)
        var game = start
        var seen = [game]
        for _ in 0..<5 {
            game.expectAccepted(tapStock)  // draw 3, draw 1, turn over, draw 3, draw 2
            seen.append(game)
        }
        #expect(game.picture == "waste: 9D 5C 4C 3C 2C")
        #expect(game.moves == 5)
        while seen.count > 1 {
            seen.removeLast()
            game.expectAccepted(.undo)
            #expect(game == seen.last!)
        }
        #expect(game == start)
    }

    @Test func undoGoesBackToTheDealAndNoFurther() throws {
        var game = try Klondike(options: KlondikeOptions(deal: .seed(7), entropy: 1), time: 0)
        let dealt = game
        var played = 0
        for _ in 0..<40 {
            guard let command = game.legalCommands().last else { break }
            game.expectAccepted(command)
            played += 1
        }
        #expect(played == 40)
        for _ in 0..<played { game.expectAccepted(.undo) }
        #expect(game == dealt)
        game.expectRefused(.undo, rule: "nothing-to-undo")
    }

    @Test func undoStopsAtAReset() throws {
        var game = try Klondike(options: KlondikeOptions(deal: .seed(7), entropy: 1), time: 0)
        game.expectAccepted(tapStock)
        game.expectAccepted(.reset(KlondikeResetOptions()))
        game.expectRefused(.undo, rule: "nothing-to-undo")
        game.expectAccepted(tapStock)
        game.expectAccepted(.undo)
        game.expectRefused(.undo, rule: "nothing-to-undo")
    }
}

@Suite struct KlondikeWinTests {
    static let oneCardLeft = """
        f0: AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS
        f1: AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH
        f2: AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD
        f3: AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC
        t4: KS
        """

    @Test func theLastCardHomeWinsInTheSameDiffWithAWonEvent() throws {
        var game = try klondike(Self.oneCardLeft, moves: 120, score: 500, time: 1000.25)
        let outcome = game.expectAccepted(try drag("/tableau/4", "/foundations/0"), time: 1090.99)
        #expect(game.status == .won && game.isWon)
        #expect(outcome?.diff.encodedOps == #"[{"op":"remove","path":"/tableau/4/0"},{"op":"add","path":"/foundations/0/12","value":"KS"},{"op":"replace","path":"/moves","value":121},{"op":"replace","path":"/score","value":510},{"op":"replace","path":"/status","value":"won"}]"#)
        let won = GameEvent(name: "won", fields: [(key: "moves", value: 121), (key: "score", value: 510), (key: "seconds", value: 90)])
        #expect(outcome?.events == [won])
        #expect(outcome?.events.first?.fields.map(\.key) == ["moves", "score", "seconds"])
    }

    @Test func aDoubleTapHomeWinsToo() throws {
        var game = try klondike(Self.oneCardLeft)
        let outcome = game.expectAccepted(try doubleTap("/tableau/4/0"), time: 3.5)
        #expect(outcome?.events.map(\.name) == ["won"])
        #expect(outcome?.events.first?.fields.last?.value == 3)
    }

    @Test func afterAWinOnlyResetIsAccepted() throws {
        var game = try klondike(Self.oneCardLeft + "\nstock: ")
        game.expectAccepted(try doubleTap("/tableau/4"))
        game.expectRefused(tapStock, rule: "game-won")
        game.expectRefused(.undo, rule: "game-won")
        game.expectRefused(try doubleTap("/waste"), rule: "game-won")
        game.expectRefused(try drag("/foundations/0", "/tableau/0"), rule: "game-won")
        #expect(game.hint() == nil)
        #expect(game.legalCommands().isEmpty)
        let outcome = game.expectAccepted(.reset(KlondikeResetOptions(deal: .seed(3))))
        #expect(game.status == .playing && game.moves == 0 && game.score == 0)
        #expect(outcome?.diff.ops.contains(.replace(path: "/status", value: "playing")) == true)
        #expect(outcome?.events == [GameEvent(name: "reset")])
    }
}

@Suite struct KlondikeResetTests {
    @Test func resetDealsTheNamedSeedAndKeepsDraw() throws {
        var game = try Klondike(options: KlondikeOptions(draw: 3, deal: .seed(1), entropy: 99), time: 0)
        game.expectAccepted(tapStock)
        let outcome = game.expectAccepted(.reset(KlondikeResetOptions(deal: .seed(42))), time: 50)
        let fresh = try Klondike(options: KlondikeOptions(draw: 3, deal: .seed(42), entropy: 5), time: 50)
        #expect(game.publicState == fresh.publicState)
        #expect(game.table == fresh.table && game.draw == 3 && game.dealTime == 50)
        #expect(outcome?.events == [GameEvent(name: "reset")])
        #expect(outcome?.diff.ops.map(\.json).compactMap { $0["path"]?.stringValue }
            == ["/stock", "/waste", "/foundations", "/tableau", "/moves"])
    }

    @Test func resetMayChangeDrawAndTakeADeck() throws {
        var game = try Klondike(options: KlondikeOptions(deal: .seed(1), entropy: 99), time: 0)
        let deck = Card.orderedDeck
        let outcome = game.expectAccepted(.reset(KlondikeResetOptions(draw: 3, deal: .deck(deck))))
        #expect(game.draw == 3)
        #expect(outcome?.diff.ops.first == .replace(path: "/draw", value: 3))
        #expect(game.pile(.tableau(0))?.cards == [Card(.ace, .spades)])
        #expect(game.pile(.stock)?.cards.last == deck[28])
    }

    @Test func aResetOfAnUntouchedDealStillDealsANewGame() throws {
        var game = try Klondike(options: KlondikeOptions(deal: .seed(1), entropy: 99), time: 0)
        let before = game.publicState
        game.expectAccepted(.reset(KlondikeResetOptions()))
        #expect(game.publicState != before)
    }

    @Test func badResetOptionsChangeNothing() throws {
        var game = try Klondike(options: KlondikeOptions(deal: .seed(1), entropy: 99), time: 0)
        game.expectAccepted(tapStock)
        game.expectRefused(.reset(KlondikeResetOptions(draw: 2)), .badRequest, rule: "bad-draw")
        game.expectRefused(.reset(KlondikeResetOptions(deal: .deck(Array(Card.orderedDeck.dropLast())))), .badRequest, rule: "deck-missing")
        var twice = Card.orderedDeck
        twice[51] = twice[0]
        game.expectRefused(.reset(KlondikeResetOptions(deal: .deck(twice))), .badRequest, rule: "deck-duplicate")
    }

    /// Storage rebuilds a game by replaying its commands from its options: resets that name
    /// no deal must deal the same games again, and a different secret different games.
    @Test func resetsWithoutADealReplayTheSameFromTheSameEntropy() throws {
        func dealsAfterResets(entropy: UInt64) throws -> [KlondikeDeal] {
            var game = try Klondike(options: KlondikeOptions(deal: .seed(1), entropy: entropy), time: 0)
            var deals: [KlondikeDeal] = []
            for i in 0..<4 {
                game.expectAccepted(i == 2 ? .reset(KlondikeResetOptions(deal: .seed(5))) : .reset(KlondikeResetOptions()))
                deals.append(game.deal)
            }
            return deals
        }
        let first = try dealsAfterResets(entropy: 123)
        #expect(try dealsAfterResets(entropy: 123) == first)
        #expect(try dealsAfterResets(entropy: 124) != first)
        #expect(first[2] == .seed(5))
        for case .seed(let seed) in first { #expect(seed < 1 << 53) }
        #expect(Set(first.compactMap { if case .seed(let s) = $0 { s } else { nil } }).count == 4)
    }

    @Test func secondsOfAWinRunFromTheLastReset() throws {
        var game = try klondike(KlondikeWinTests.oneCardLeft, time: 0)
        game.expectAccepted(.reset(KlondikeResetOptions(deal: .deck(Self.homeDeck))), time: 100)
        // The home deck deals the 28 tableau cards so that sending tops home works through them.
        var won: GameEvent?
        var time = 100.0
        while won == nil, let hint = game.hint() {
            time += 1
            let command = hint.from == "/stock" ? tapStock : try drag(hint.from, hint.to)
            won = game.expectAccepted(command, time: time)?.events.first { $0.name == "won" }
        }
        #expect(won?.fields.last?.value == .int(Int(time - 100)))
    }

    /// A deck a greedy player wins: see KlondikeHintTests.homeDeck.
    static var homeDeck: [Card] { KlondikeHintTests.homeDeck }
}
