import Testing
@testable import Core

@Suite struct KlondikeTapTests {
    @Test func drawOneTurnsTheStockTopOntoTheWaste() throws {
        var game = try klondike(
            """
            stock: 4C 9D
            waste: 7H
            """)
        let outcome = game.expectAccepted(tapStock)
        #expect(outcome?.diff.encodedOps == #"[{"op":"remove","path":"/stock/1"},{"op":"add","path":"/waste/1","value":"9D"},{"op":"replace","path":"/moves","value":1}]"#)
        #expect(game.picture == "stock: 4C\nwaste: 7H 9D")
        #expect(game.moves == 1 && game.score == 0)
    }

    @Test func drawThreeDrawsOneByOneSoTheThirdEndsOnTop() throws {
        var game = try klondike("stock: 2C 3C 4C 5C 6C", draw: 3)
        game.expectAccepted(tapStock)
        #expect(game.picture == "stock: 2C 3C\nwaste: 6C 5C 4C")
        game.expectAccepted(tapStock)
        #expect(game.picture == "waste: 6C 5C 4C 3C 2C")
        #expect(game.moves == 2)
    }

    @Test func anEmptyStockTurnsTheWasteOverToDrawInTheSameOrder() throws {
        var game = try klondike("waste: 6C 5C 4C", score: 150)
        let outcome = game.expectAccepted(tapStock)
        #expect(outcome?.diff.encodedOps == #"[{"op":"replace","path":"/stock","value":["??","??","??"]},{"op":"replace","path":"/waste","value":[]},{"op":"replace","path":"/moves","value":1},{"op":"replace","path":"/score","value":50}]"#)
        #expect(game.picture == "stock: 4C 5C 6C")
        game.expectAccepted(tapStock)
        #expect(game.picture == "stock: 4C 5C\nwaste: 6C")
    }

    @Test func turningTheWasteOverInDrawOneCosts100DownToZero() throws {
        var game = try klondike("waste: 6C", score: 30)
        game.expectAccepted(tapStock)
        #expect(game.score == 0)
    }

    @Test func drawThreeTurnsTheWasteOverThreeTimesFreeThen20Each() throws {
        var game = try klondike("waste: 6C 5C 4C 3C", draw: 3, score: 100)
        var scores: [Int] = []
        for _ in 0..<6 {
            game.expectAccepted(tapStock)  // turn over
            game.expectAccepted(tapStock)  // 3 cards
            game.expectAccepted(tapStock)  // the last card
            scores.append(game.score)
        }
        // Passes 1..4 free (three turns), the 4th, 5th and 6th turns cost 20 each.
        #expect(scores == [100, 100, 100, 80, 60, 40])
    }

    @Test func nothingToDrawIsIllegal() throws {
        var game = try klondike("t0: KS")
        game.expectRefused(tapStock, rule: "nothing-to-draw")
    }

    @Test func onlyTheStockTaps() throws {
        var game = try klondike("stock: 4C\nwaste: 7H\nt0: KS")
        game.expectRefused(.tap(.waste), rule: "tap-stock-only")
        game.expectRefused(.tap(.tableau(0, card: 0)), rule: "tap-stock-only")
        game.expectRefused(.tap(.tableau(9)), .badRequest, rule: "bad-target")
        game.expectRefused(.tap(Target(.waste, cardIndex: 0)), .badRequest, rule: "bad-target")
    }
}

@Suite struct KlondikeDoubleTapTests {
    @Test func anAceGoesToTheLeftmostEmptyFoundation() throws {
        var game = try klondike("waste: AH\nf0: AS\nf2: AD\nt0: 5C")
        let outcome = game.expectAccepted(try doubleTap("/waste"))
        #expect(game.picture == "f0: AS\nf1: AH\nf2: AD\nt0: 5C")
        #expect(game.score == 10)
        #expect(outcome?.diff.encodedOps == #"[{"op":"remove","path":"/waste/0"},{"op":"add","path":"/foundations/1/0","value":"AH"},{"op":"replace","path":"/moves","value":1},{"op":"replace","path":"/score","value":10}]"#)
    }

    @Test func aCardGoesHomeOntoItsSuitAndTurnsUpTheCardBelowInTheSameDiff() throws {
        var game = try klondike(
            """
            f0: AS
            f3: AH
            t2: (9C) 2H
            """)
        let outcome = game.expectAccepted(try doubleTap("/tableau/2/1"))
        #expect(game.picture == "f0: AS\nf3: AH 2H\nt2: 9C")
        #expect(game.score == 15)  // 10 to the foundation, 5 for turning the 9 up
        #expect(outcome?.diff.encodedOps == #"[{"op":"replace","path":"/tableau/2/0","value":"9C"},{"op":"remove","path":"/tableau/2/1"},{"op":"add","path":"/foundations/3/1","value":"2H"},{"op":"replace","path":"/moves","value":1},{"op":"replace","path":"/score","value":15}]"#)
    }

    @Test func withNoFoundationACardGoesToTheFirstTableauPileThatTakesIt() throws {
        var game = try klondike(
            """
            waste: 8D
            t1: 9H
            t3: 9S
            t5: 9C
            """)
        game.expectAccepted(try doubleTap("/waste"))
        #expect(game.picture == "t1: 9H\nt3: 9S 8D\nt5: 9C")
        #expect(game.score == 5)
    }

    @Test func aKingGoesToTheFirstEmptyPileButNotBackToItsOwn() throws {
        var game = try klondike("t0: (5C) KD\nt2: 4S")
        game.expectAccepted(try doubleTap("/tableau/0"))
        #expect(game.picture == "t0: 5C\nt1: KD\nt2: 4S")
    }

    @Test func aCardThatFitsNowhereIsIllegal() throws {
        var game = try klondike("waste: 8D\nt0: 9D\nf0: AS")
        game.expectRefused(try doubleTap("/waste"), rule: "no-place")
    }

    @Test func onlyTheTopCardOfTheWasteOrATableauPileMoves() throws {
        var game = try klondike("stock: 3C\nwaste: AC\nf0: AS\nt0: 5H 4S\nt1: AD")
        game.expectRefused(try doubleTap("/tableau/0/0"), rule: "not-top-card")
        game.expectRefused(try doubleTap("/tableau/0/2"), rule: "no-such-card")
        game.expectRefused(try doubleTap("/stock"), rule: "double-tap-source")
        game.expectRefused(try doubleTap("/foundations/0"), rule: "double-tap-source")
        game.expectRefused(try doubleTap("/tableau/3"), rule: "empty-pile")
        game.expectAccepted(try doubleTap("/tableau/1/0"))
        #expect(game.picture == "stock: 3C\nwaste: AC\nf0: AS\nf1: AD\nt0: 5H 4S")
    }

    @Test func anEmptyWasteHasNothingToSend() throws {
        var game = try klondike("stock: 3C")
        game.expectRefused(try doubleTap("/waste"), rule: "empty-pile")
    }
}

@Suite struct KlondikeDragTests {
    @Test func aRunMovesFromItsBottomCardAndUncoversTheCardBelow() throws {
        var game = try klondike(
            """
            t0: (AS) (4D) 9C 8H 7S
            t4: ?? TD
            """)
        let outcome = game.expectAccepted(try drag("/tableau/0/2", "/tableau/4"))
        #expect(game.picture == "t0: ?? 4D\nt4: ?? TD 9C 8H 7S")
        #expect(game.score == 5)
        #expect(outcome?.diff.encodedOps == #"[{"op":"replace","path":"/tableau/0/1","value":"4D"},{"op":"remove","path":"/tableau/0/4"},{"op":"remove","path":"/tableau/0/3"},{"op":"remove","path":"/tableau/0/2"},{"op":"add","path":"/tableau/4/2","value":"9C"},{"op":"add","path":"/tableau/4/3","value":"8H"},{"op":"add","path":"/tableau/4/4","value":"7S"},{"op":"replace","path":"/moves","value":1},{"op":"replace","path":"/score","value":5}]"#)
    }

    @Test func aPileTargetMeansItsTopCardAndACardTargetMeansItsPile() throws {
        var game = try klondike("t0: 9C 8H\nt1: 8S\nt2: ?? ?? 9D")
        game.expectAccepted(try drag("/tableau/1", "/tableau/2/1"))  // a face-down card names its pile too
        #expect(game.picture == "t0: 9C 8H\nt2: ?? ?? 9D 8S")
        #expect(game.score == 0)  // tableau to tableau scores nothing
    }

    @Test func aKingOrARunHeadedByOneFillsAnEmptyPile() throws {
        var game = try klondike("t0: (3S) KH QS\nt1: QD")
        game.expectRefused(try drag("/tableau/1", "/tableau/3"), rule: "tableau-needs-king")
        game.expectAccepted(try drag("/tableau/0/1", "/tableau/3"))
        #expect(game.picture == "t0: 3S\nt1: QD\nt3: KH QS")
    }

    @Test func theTableauBuildsDownInAlternatingColours() throws {
        var game = try klondike("t0: 9C\nt1: 8S\nt2: 7H\nt3: TD")
        game.expectRefused(try drag("/tableau/1", "/tableau/0"), rule: "tableau-order")  // same colour
        game.expectRefused(try drag("/tableau/2", "/tableau/0"), rule: "tableau-order")  // two ranks down
        game.expectRefused(try drag("/tableau/3", "/tableau/0"), rule: "tableau-order")  // up
        game.expectAccepted(try drag("/tableau/2", "/tableau/1"))
    }

    @Test func theWasteScores5ToTheTableauAnd10ToAFoundation() throws {
        var game = try klondike("waste: 2S 8D\nt0: 9C\nf1: AS")
        game.expectAccepted(try drag("/waste", "/tableau/0"))
        #expect(game.score == 5)
        game.expectAccepted(try drag("/waste", "/foundations/1"))
        #expect(game.score == 15)
        #expect(game.picture == "f1: AS 2S\nt0: 9C 8D")
    }

    @Test func aFoundationCardBackOnTheTableauCosts15DownToZero() throws {
        var game = try klondike("f0: AH 2H 3H\nt0: 4S", score: 10)
        game.expectAccepted(try drag("/foundations/0", "/tableau/0"))
        #expect(game.picture == "f0: AH 2H\nt0: 4S 3H")
        #expect(game.score == 0)
    }

    @Test func aTableauCardHomeScores10() throws {
        var game = try klondike("f0: AC\nt6: 3H 2C")
        game.expectAccepted(try drag("/tableau/6/1", "/foundations/0"))
        #expect(game.score == 10)
    }

    @Test func foundationsTakeOneCardAtATimeUpBySuitFromTheAce() throws {
        var game = try klondike("f0: AS\nf1: AH\nt0: 3S 2H\nt1: 2S\nt2: 3H")
        game.expectRefused(try drag("/tableau/0/0", "/foundations/1"), rule: "foundation-one-card")
        game.expectRefused(try drag("/tableau/1", "/foundations/1"), rule: "foundation-order")  // wrong suit
        game.expectRefused(try drag("/tableau/2", "/foundations/1"), rule: "foundation-order")  // a rank skipped
        game.expectRefused(try drag("/tableau/1", "/foundations/2"), rule: "foundation-needs-ace")
        game.expectAccepted(try drag("/tableau/1", "/foundations/0"))
        game.expectAccepted(try drag("/tableau/0/1", "/foundations/1"))
        game.expectAccepted(try drag("/tableau/2", "/foundations/1"))
        #expect(game.picture == "f0: AS 2S\nf1: AH 2H 3H\nt0: 3S")
    }

    @Test func anyAceMayStartAnyEmptyFoundationEvenFromAnother() throws {
        var game = try klondike("f0: AS\nt0: 2D")
        game.expectAccepted(try drag("/foundations/0", "/foundations/3"))
        #expect(game.picture == "f3: AS\nt0: 2D")
        #expect(game.score == 0)
    }

    @Test func whatCannotBeDragged() throws {
        var game = try klondike(
            """
            stock: 5C
            waste: 9H
            f0: AS 2S
            t0: ?? (6D) 5S
            t1: 6H
            """)
        game.expectRefused(try drag("/tableau/0/1", "/tableau/1"), rule: "face-down")
        game.expectRefused(try drag("/tableau/0/3", "/tableau/1"), rule: "no-such-card")
        game.expectRefused(try drag("/tableau/0/2", "/tableau/1/1"), rule: "no-such-card")  // past the top of the drop pile
        game.expectRefused(try drag("/tableau/0/2", "/stock"), rule: "drop-on-stock")
        game.expectRefused(try drag("/tableau/0/2", "/waste"), rule: "drop-on-waste")
        game.expectRefused(try drag("/tableau/0/2", "/tableau/0"), rule: "same-pile")
        game.expectRefused(try drag("/tableau/0/2", "/tableau/0/0"), rule: "same-pile")
        game.expectRefused(try drag("/foundations/0", "/foundations/0"), rule: "same-pile")
        game.expectRefused(try drag("/stock", "/tableau/1"), rule: "drag-from-stock")
        game.expectRefused(try drag("/tableau/5", "/tableau/1"), rule: "empty-pile")
        game.expectRefused(try drag("/foundations/3", "/tableau/1"), rule: "empty-pile")
        game.expectRefused(.drag(from: .tableau(0, card: 2), to: .tableau(7)), .badRequest, rule: "bad-target")
        game.expectRefused(.drag(from: Target(.foundation(0), cardIndex: 1), to: .tableau(1)), .badRequest, rule: "bad-target")
        game.expectAccepted(try drag("/tableau/0/2", "/tableau/1/0"))
    }

    @Test func aBrokenRunDoesNotMove() throws {
        // Play never builds this, but a run is checked rather than trusted.
        var game = try klondike("t0: 9C 8H 7H\nt1: TD")
        game.expectRefused(try drag("/tableau/0/0", "/tableau/1"), rule: "not-a-run")
    }
}

@Suite struct KlondikeTargetTests {
    @Test func theProtocolFormsParse() throws {
        #expect(try Target.parse("/stock") == .stock)
        #expect(try Target.parse("/waste") == .waste)
        #expect(try Target.parse("/foundations/3") == .foundation(3))
        #expect(try Target.parse("/tableau/0") == .tableau(0))
        #expect(try Target.parse("/tableau/2/4") == .tableau(2, card: 4))
        #expect(try Target.parse("/tableau/6/18").pointer == "/tableau/6/18")
        #expect(try Target.parse("/tableau/6/99999999999999999999999") == .tableau(6, card: Int.max))
    }

    @Test(arguments: [
        "", "/", "/foo", "stock", "waste", "tableau/2/4", "foundations/0", "/stock/0", "/stock/", "/waste/0", "/foundations", "/foundations/4", "/foundations/-1",
        "/foundations/0/0", "/tableau", "/tableau/7", "/tableau/9", "/tableau/01", "/tableau/1/", "/tableau/1/01",
        "/tableau/1/2/3", "//stock", "/Stock", "/tableau/ 1", "/tableau/1/-1", "/tableau/1/x",
    ])
    func otherPointersAreBadRequests(pointer: String) {
        #expect {
            try Target.parse(pointer)
        } throws: { error in
            (error as? GameError)?.code == .badRequest
        }
    }

    @Test func badRequestsComeBeforeIllegalMovesEvenAfterAWin() throws {
        var game = try klondike("f0: AS\nf1: AH\nf2: AD\nf3: AC")
        #expect(game.isWon)
        game.expectRefused(.drag(from: .tableau(9), to: .foundation(0)), .badRequest, rule: "bad-target")
        game.expectRefused(.drag(from: .tableau(0), to: .foundation(0)), rule: "game-won")
    }
}
