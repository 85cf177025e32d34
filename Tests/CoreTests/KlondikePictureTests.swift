import Testing
@testable import Core
import JSONPatchCheck

// Klondike positions written as pictures of the table, one pile a line, bottom card first:
//
//     stock: 4C 9D        the stock is all face down; its LAST card is drawn first
//     waste: 7H           all face up; last = top
//     f0: AS 2S           foundations f0..f3
//     t3: ?? (5H) 9C 8H   tableau t0..t6; (5H) is a face-down 5H, ?? a face-down card
//                         the picture does not care about (any card not named elsewhere)
//
// Piles not listed are empty. Rendering (`picture`) shows every face-down tableau card as ??.

func klondike(_ picture: String, draw: Int = 1, moves: Int = 0, score: Int = 0, time: Double = 0) throws -> Klondike {
    var piles = [[Card?]](repeating: [], count: KlondikeTable.pileCount)
    var faceDown = [Int](repeating: 0, count: KlondikeTable.pileCount)
    var named = Set<Card>()
    for line in picture.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
        let parts = line.split(separator: ":", maxSplits: 1)
        let label = parts[0].trimmingPrefix(while: \.isWhitespace)
        guard parts.count == 2, let slot = pictureSlot(String(label)) else {
            throw PictureError.badLine(String(line))
        }
        for word in parts[1].split(separator: " ") {
            var name = String(word)
            let hidden = name == "??" || (name.hasPrefix("(") && name.hasSuffix(")"))
            if name.hasPrefix("(") { name = String(name.dropFirst().dropLast()) }
            if hidden && !KlondikeTable.tableau.contains(slot) && slot != KlondikeTable.stock {
                throw PictureError.badLine("only the stock and tableau have face-down cards: \(line)")
            }
            if hidden && KlondikeTable.tableau.contains(slot) {
                guard faceDown[slot] == piles[slot].count else {
                    throw PictureError.badLine("face-down cards lie under the face-up ones: \(line)")
                }
                faceDown[slot] += 1
            }
            if name == "??" {
                piles[slot].append(nil)
            } else {
                guard let card = Card(name: name) else { throw PictureError.badLine("no card \(name): \(line)") }
                guard named.insert(card).inserted else { throw PictureError.badLine("\(name) twice") }
                piles[slot].append(card)
            }
        }
    }
    // Fillers come from the end of the ordered deck, so the low cards tests play with stay free.
    var fillers = Card.orderedDeck.reversed().filter { !named.contains($0) }.makeIterator()
    let cards = try piles.map { pile in
        try pile.map { card in
            guard let card = card ?? fillers.next() else { throw PictureError.badLine("more than 52 cards") }
            return card
        }
    }
    return try Klondike(
        testTable: KlondikeTable(piles: cards, faceDown: faceDown), draw: draw, moves: moves, score: score, time: time)
}

enum PictureError: Error {
    case badLine(String)
}

private func pictureSlot(_ label: String) -> Int? {
    switch label {
    case "stock": return KlondikeTable.stock
    case "waste": return KlondikeTable.waste
    default:
        guard let kind = label.first, let i = Int(label.dropFirst()) else { return nil }
        if kind == "f", (0..<4).contains(i) { return KlondikeTable.foundations.lowerBound + i }
        if kind == "t", (0..<7).contains(i) { return KlondikeTable.tableau.lowerBound + i }
        return nil
    }
}

private func pictureLabel(_ slot: Int) -> String {
    switch slot {
    case KlondikeTable.stock: "stock"
    case KlondikeTable.waste: "waste"
    case KlondikeTable.foundations: "f\(slot - KlondikeTable.foundations.lowerBound)"
    default: "t\(slot - KlondikeTable.tableau.lowerBound)"
    }
}

/// A pointer in its parsed form, for tests that write gestures as the protocol does.
func target(_ pointer: String) throws -> Target { try Target.parse(pointer) }

func drag(_ from: String, _ to: String) throws -> KlondikeCommand { .drag(from: try target(from), to: try target(to)) }

func doubleTap(_ pointer: String) throws -> KlondikeCommand { .doubleTap(try target(pointer)) }

let tapStock = KlondikeCommand.tap(.stock)

extension Klondike {
    /// The table in the picture language: non-empty piles only, face-down tableau cards as ??.
    var picture: String {
        (0..<KlondikeTable.pileCount).filter { !table.piles[$0].isEmpty }.map { slot in
            let names = table.piles[slot].enumerated().map { i, card in
                KlondikeTable.tableau.contains(slot) && i < table.hidden(slot) ? "??" : card.name
            }
            return pictureLabel(slot) + ": " + names.joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// Applies a command that must be accepted, and checks its diff with the independent
    /// RFC 6902 apply: the ops on the state before give exactly the state after.
    @discardableResult
    mutating func expectAccepted(
        _ command: KlondikeCommand, time: Double = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) -> MoveOutcome? {
        let before = publicState.encoded
        switch apply(command, context: MoveContext(player: "p1", time: time)) {
        case .success(let outcome):
            #expect(!outcome.diff.isEmpty, "an accepted command must change something", sourceLocation: sourceLocation)
            let after = publicState.encoded
            do {
                let patched = try applyJSONPatch(outcome.diff.encodedOps, to: before)
                #expect(
                    jsonValuesEqual(patched, try parseJSONText(after)),
                    "\(command): ops \(outcome.diff.encodedOps) on \(before) do not give \(after)",
                    sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(command): ops \(outcome.diff.encodedOps) do not apply: \(error)", sourceLocation: sourceLocation)
            }
            return outcome
        case .failure(let error):
            Issue.record("expected \(command) to be accepted, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Applies a command that must be refused with this code and rule, and checks nothing changed.
    mutating func expectRefused(
        _ command: KlondikeCommand, _ code: GameError.Code = .illegalMove, rule: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = self
        switch apply(command, context: MoveContext(player: "p1", time: 0)) {
        case .success(let outcome):
            Issue.record("expected \(command) to be refused, got \(outcome.diff.encodedOps)", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == code && error.rule == rule, "got \(error)", sourceLocation: sourceLocation)
        }
        #expect(self == before, "a refused command changed the game", sourceLocation: sourceLocation)
    }
}

@Suite struct KlondikePictureTests {
    @Test func aPictureReadsBackAsDrawn() throws {
        let game = try klondike(
            """
            stock: 4C 9D
            waste: 7H 8S
            f0: AS 2S
            t0: KD
            t3: ?? (5H) 9C 8H
            """)
        #expect(
            game.picture == """
                stock: 4C 9D
                waste: 7H 8S
                f0: AS 2S
                t0: KD
                t3: ?? ?? 9C 8H
                """)
        #expect(game.pile(.tableau(3))?.faceDown == 2)
        #expect(game.pile(.tableau(3))?.cards[1] == Card(.five, .hearts))
        #expect(
            game.publicState["tableau"] == [[.string("KD")], [], [], ["??", "??", "9C", "8H"], [], [], []])
        #expect(game.publicState["stock"] == ["??", "??"])
    }

    @Test func aPictureRefusesImpossibleTables() {
        #expect(throws: PictureError.self) { try klondike("t0: 9C (8H)") }
        #expect(throws: PictureError.self) { try klondike("t0: AS\nt1: AS") }
        #expect(throws: PictureError.self) { try klondike("waste: ??") }
        #expect(throws: GameError.self) { try klondike("t0: ??") }
    }
}
