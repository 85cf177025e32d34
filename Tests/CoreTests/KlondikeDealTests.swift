import Testing
@testable import Core

/// A seed deals the same game in every version: these layouts are pinned forever. They
/// were checked against an independent script of the protocol's shuffle, and by hand for
/// the first swap (seed 0: next() = 0xE220A8397B1DCDAF, % 52 = 35, so KC and TD swap and
/// TD ends the deck).
@Suite struct KlondikeDealTests {
    static let seed0Deck =
        "8CJD9S2C2HQH6CTS3HASJS7S9D8SQCKD5D2S3D5SAD6S4CTH5H8D8HAHQDTCQSJH3C4H2D9H3SKHAC7C9C7HJC6DKC4S7D5C6H4DKSTD"

    @Test func seedZeroShufflesToThePinnedDeck() throws {
        let deck = Klondike.shuffledDeck(seed: 0)
        #expect(deck.map(\.name).joined() == Self.seed0Deck)
        #expect(deck.last == Card(.ten, .diamonds))
        #expect(try Klondike.parseDeck(Self.seed0Deck) == deck)
    }

    @Test(arguments: [
        (
            UInt64(0),
            """
            stock: TD KS 4D 6H 5C 7D 4S KC 6D JC 7H 9C 7C AC KH 3S 9H 2D 4H 3C JH QS TC QD
            t0: 8C
            t1: (JD) TS
            t2: (9S) (3H) 8S
            t3: (2C) (AS) (QC) 3D
            t4: (2H) (JS) (KD) (5S) 4C
            t5: (QH) (7S) (5D) (AD) (TH) 8D
            t6: (6C) (9D) (2S) (6S) (5H) (8H) AH
            """
        ),
        (
            UInt64(1),
            """
            stock: 7C 9D 2C 3D TS 8S 2D 4S AS 3C 3H 9H QH QD QC 6D KC AD 5S AC 7S 6S 4C QS
            t0: 7H
            t1: (9S) 6H
            t2: (4H) (9C) 2H
            t3: (8D) (JS) (JD) 2S
            t4: (8H) (5H) (5D) (AH) KD
            t5: (5C) (KH) (7D) (6C) (TD) JC
            t6: (JH) (3S) (4D) (KS) (TC) (TH) 8C
            """
        ),
        (
            UInt64(42),
            """
            stock: TS JS 9S QD 9D 3S QS JH 9H QC 6S 5D KD 9C QH 8H 3C 7C 6C 4S JC TD 3H 4D
            t0: 7S
            t1: (3D) KH
            t2: (KS) (TH) 4C
            t3: (AC) (5S) (6D) 6H
            t4: (2C) (8C) (5H) (AH) 8D
            t5: (AS) (JD) (2H) (7H) (8S) 7D
            t6: (AD) (2D) (5C) (2S) (4H) (KC) TC
            """
        ),
    ])
    func aSeedDealsThePinnedLayout(seed: UInt64, layout: String) throws {
        let game = try Klondike(options: KlondikeOptions(deal: .seed(seed), entropy: 0), time: 0)
        #expect(game.fullPicture == layout)
        // The stock's top card, drawn first, is the 29th card of the deck.
        #expect(game.pile(.stock)?.cards.last == Klondike.shuffledDeck(seed: seed)[28])
    }

    @Test func theDealtStateShowsOnlyTheTopCardOfEachPile() throws {
        let game = try Klondike(options: KlondikeOptions(draw: 3, deal: .seed(0), entropy: 0), time: 0)
        #expect(
            game.publicState.encoded
                == #"{"draw":3,"stock":["??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??","??"],"waste":[],"foundations":[[],[],[],[]],"tableau":[["8C"],["??","TS"],["??","??","8S"],["??","??","??","3D"],["??","??","??","??","4C"],["??","??","??","??","??","8D"],["??","??","??","??","??","??","AH"]],"moves":0,"score":0,"status":"playing"}"#
        )
        #expect(game.status == .playing && game.moves == 0 && game.score == 0)
    }

    @Test func aGivenDeckIsDealtInItsOrder() throws {
        let game = try Klondike(options: KlondikeOptions(deal: .deck(Card.orderedDeck), entropy: 0), time: 0)
        #expect(
            game.fullPicture == """
                stock: KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C AC KD QD JD TD 9D 8D 7D 6D 5D 4D 3D
                t0: AS
                t1: (2S) 8S
                t2: (3S) (9S) AH
                t3: (4S) (TS) (2H) 6H
                t4: (5S) (JS) (3H) (7H) TH
                t5: (6S) (QS) (4H) (8H) (JH) KH
                t6: (7S) (KS) (5H) (9H) (QH) (AD) 2D
                """)
    }

    @Test func drawMustBeOneOrThree() {
        for draw in [0, 2, 4, -1] {
            #expect(throws: GameError.badRequest("bad-draw", "draw is 1 or 3, not \(draw)")) {
                try Klondike(options: KlondikeOptions(draw: draw, deal: .seed(0), entropy: 0), time: 0)
            }
        }
    }
}

@Suite struct KlondikeDeckTests {
    static let ordered = Card.orderedDeck.map(\.name).joined()

    static func rule(of text: String) -> String? {
        do {
            _ = try Klondike.parseDeck(text)
            return nil
        } catch {
            #expect(error.code == .badRequest)
            return error.rule
        }
    }

    @Test func theOrderedDeckParses() throws {
        #expect(Self.ordered.hasPrefix("AS2S3S4S5S6S7S8S9STSJSQSKSAH"))
        #expect(try Klondike.parseDeck(Self.ordered) == Card.orderedDeck)
    }

    @Test func badDecksSayWhatIsWrong() throws {
        #expect(Self.rule(of: "") == "deck-missing")
        #expect(Self.rule(of: String(Self.ordered.dropLast(2))) == "deck-missing")
        #expect(Self.rule(of: String(Self.ordered.dropLast())) == "deck-length")
        #expect(Self.rule(of: Self.ordered + "AS") == "deck-length")
        #expect(Self.rule(of: "AS" + Self.ordered.dropFirst(4)) == "deck-missing")
        #expect(Self.rule(of: "ASAS" + Self.ordered.dropFirst(4)) == "deck-duplicate")
        #expect(Self.rule(of: "1S" + Self.ordered.dropFirst(2)) == "deck-unknown-card")
        #expect(Self.rule(of: "as" + Self.ordered.dropFirst(2)) == "deck-unknown-card")
        #expect(Self.rule(of: "AX" + Self.ordered.dropFirst(2)) == "deck-unknown-card")
        #expect(Self.rule(of: "é" + Self.ordered.dropFirst(2)) == "deck-unknown-card")
        do {
            _ = try Klondike.parseDeck(String(Self.ordered.dropLast(4)))
        } catch {
            #expect(error.message == "a deck has 52 cards, not 50: missing QC KC")
        }
        do {
            _ = try Klondike.parseDeck("ASAS" + Self.ordered.dropFirst(4))
        } catch {
            #expect(error.message == "the deck has AS more than once")
        }
    }

    @Test func aDeckOptionIsCheckedToo() {
        var cards = Card.orderedDeck
        cards[3] = cards[4]
        #expect(throws: GameError.self) {
            try Klondike(options: KlondikeOptions(deal: .deck(cards), entropy: 0), time: 0)
        }
        #expect(throws: GameError.self) {
            try Klondike(options: KlondikeOptions(deal: .deck(cards + [Card(.ace, .spades)]), entropy: 0), time: 0)
        }
    }

    @Test func cardNamesGoBothWays() {
        for card in Card.orderedDeck { #expect(Card(name: card.name) == card) }
        #expect(Card(name: "TD") == Card(.ten, .diamonds))
        #expect(Card(name: "10D") == nil && Card(name: "T") == nil && Card(name: "") == nil && Card(name: "td") == nil)
        #expect(Card(deckIndex: 13).name == "AH" && Card(deckIndex: 51).name == "KC")
        #expect(Card(.queen, .hearts).isRed && !Card(.queen, .clubs).isRed)
    }
}

extension Klondike {
    /// The picture with every card named: face-down tableau cards in parentheses.
    var fullPicture: String {
        (0..<KlondikeTable.pileCount).filter { !table.piles[$0].isEmpty }.map { slot in
            let names = table.piles[slot].enumerated().map { i, card in
                KlondikeTable.tableau.contains(slot) && i < table.hidden(slot) ? "(\(card.name))" : card.name
            }
            return "\(PileID(slot: slot).pictureLabel): " + names.joined(separator: " ")
        }.joined(separator: "\n")
    }
}

extension PileID {
    var pictureLabel: String {
        switch self {
        case .stock: "stock"
        case .waste: "waste"
        case .foundation(let i): "f\(i)"
        case .tableau(let i): "t\(i)"
        }
    }
}
