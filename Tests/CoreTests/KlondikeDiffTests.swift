import Testing
@testable import Core
import JSONPatchCheck

/// Random play over many deals: every accepted gesture's diff, applied by the independent
/// RFC 6902 apply, gives exactly the next public state and names no face-down card; a
/// refused gesture changes nothing; undo gives back exactly the game before the move.
@Suite struct KlondikeDiffTests {
    static let pointers: [String] =
        ["/stock", "/waste"] + (0..<4).map { "/foundations/\($0)" } + (0..<7).map { "/tableau/\($0)" }
        + (0..<7).flatMap { i in (0..<14).map { "/tableau/\(i)/\($0)" } }

    @Test(arguments: 0..<4)
    func randomPlayKeepsEveryPromise(part: Int) throws {
        var accepted = 0
        var refused = 0
        for seed in UInt64(part * 10)..<UInt64(part * 10 + 10) {
            var rng = SplitMix64(seed: seed &+ 1000)
            func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
            var game = try Klondike(options: KlondikeOptions(draw: seed % 3 == 0 ? 3 : 1, deal: .seed(seed), entropy: seed), time: 0)
            var earlier: [Klondike] = []
            for step in 0..<300 {
                let command: KlondikeCommand
                switch pick(100) {
                case 0..<70:
                    let legal = game.legalCommands()
                    command = legal.isEmpty ? .undo : legal[pick(legal.count)]
                case 70..<85:
                    let from = try target(Self.pointers[pick(Self.pointers.count)])
                    let to = try target(Self.pointers[pick(Self.pointers.count)])
                    command = [.tap(from), .doubleTap(from), .drag(from: from, to: to)][pick(3)]
                case 85..<98: command = .undo
                default: command = .reset(KlondikeResetOptions(draw: [nil, 1, 3][pick(3)]))
                }
                if step % 100 == 50 { Self.checkLegalCommands(game, seed: seed) }
                let before = game
                let beforeText = game.publicState.encoded
                switch game.apply(command, context: MoveContext(player: "p1", time: Double(step))) {
                case .success(let outcome):
                    accepted += 1
                    let afterText = game.publicState.encoded
                    let patched = try applyJSONPatch(outcome.diff.encodedOps, to: beforeText)
                    #expect(jsonValuesEqual(patched, try parseJSONText(afterText)), "seed \(seed) step \(step) \(command)")
                    #expect(Self.namedCards(outcome.diff).isSubset(of: Self.faceUpCards(game)), "seed \(seed) \(command) shows a hidden card")
                    switch command {
                    case .undo: #expect(game == earlier.popLast(), "seed \(seed) step \(step): undo")
                    case .reset: earlier.removeAll()
                    default: earlier.append(before)
                    }
                case .failure:
                    refused += 1
                    #expect(game == before)
                }
            }
        }
        #expect(accepted > 1500 && refused > 300, "accepted \(accepted), refused \(refused)")
    }

    /// `legalCommands` lists exactly the taps, double-taps and drags (to pile pointers)
    /// that `apply` accepts.
    static func checkLegalCommands(_ game: Klondike, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation) {
        var accepted: [KlondikeCommand] = []
        let piles = Array(pointers.prefix(13)).map { try! Target.parse($0) }
        var candidates: [KlondikeCommand] = piles.flatMap { [KlondikeCommand.tap($0), .doubleTap($0)] }
        for from in pointers.map({ try! Target.parse($0) }) {
            for to in piles { candidates.append(.drag(from: from, to: to)) }
        }
        for command in candidates {
            var copy = game
            if case .success = copy.apply(command, context: MoveContext(player: "p1", time: 0)) { accepted.append(command) }
        }
        let listed = game.legalCommands()
        let normalised = accepted.map { command -> KlondikeCommand in
            // A drag of a tableau pile's top card is listed with its card index.
            guard case .drag(let from, let to) = command, from.cardIndex == nil, case .tableau = from.pile,
                let top = game.pile(from.pile)?.cards.count
            else { return command }
            return .drag(from: Target(from.pile, cardIndex: top - 1), to: to)
        }
        #expect(Set(listed.map { "\($0)" }) == Set(normalised.map { "\($0)" }), "seed \(seed)", sourceLocation: sourceLocation)
        #expect(listed.count == Set(listed.map { "\($0)" }).count, "seed \(seed): duplicates", sourceLocation: sourceLocation)
    }

    static func namedCards(_ diff: Diff) -> Set<String> {
        var names = Set<String>()
        func collect(_ value: JSON) {
            switch value {
            case .string(let s) where Card(name: s) != nil: names.insert(s)
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        for op in diff.ops {
            switch op {
            case .add(_, let value), .replace(_, let value): collect(value)
            case .remove: break
            }
        }
        return names
    }

    static func faceUpCards(_ game: Klondike) -> Set<String> {
        var names = Set<String>()
        for slot in 0..<KlondikeTable.pileCount {
            let pile = game.table.piles[slot]
            for i in game.table.hidden(slot)..<pile.count { names.insert(pile[i].name) }
        }
        return names
    }

    @Test func theTextBoardDrawsTheTable() throws {
        var game = try Klondike(options: KlondikeOptions(draw: 3, deal: .seed(0), entropy: 0), time: 0)
        game.expectAccepted(tapStock)
        game.expectAccepted(try drag("/tableau/3", "/tableau/4"))
        let board = game.textBoard()
        #expect(
            board == [
                "Klondike  draw 3  moves 2  score 5  playing",
                "stock ## (21)   waste QD TC QS (3)         ",
                "foundations  --  --  --  --                ",
                "  t0  t1  t2  t3  t4  t5  t6               ",
                "  8C  ##  ##  ##  ##  ##  ##               ",
                "      TS  ##  ##  ##  ##  ##               ",
                "          8S  QC  ##  ##  ##               ",
                "                  ##  ##  ##               ",
                "                  4C  ##  ##               ",
                "                  3D  8D  ##               ",
                "                          AH               ",
            ])
        #expect(Set(board.map(\.count)).count == 1)
    }
}
