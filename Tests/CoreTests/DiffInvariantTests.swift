import Testing
@testable import Core
import JSONPatchCheck

/// The protocol's central promise (section 4), checked by an RFC 6902 apply
/// that shares no code with the games: for every accepted gesture, its ops
/// applied to the document before give exactly the document after; a refused
/// gesture leaves the document byte for byte as it was.
@Suite struct DiffInvariantTests {
    enum Verdict { case accepted, refused, broken }

    /// Checks one gesture's result against the documents around it. After a
    /// `broken` one the caller moves to the next seed, so one bug is one report.
    static func checkInvariant(
        before: String, after: String, result: Result<MoveOutcome, GameError>, gesture: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Verdict {
        switch result {
        case .success(let outcome):
            guard !outcome.diff.isEmpty else {
                Issue.record("accepted with no ops: \(gesture())", sourceLocation: sourceLocation)
                return .broken
            }
            do {
                let patched = try applyJSONPatch(outcome.diff.encodedOps, to: before)
                guard jsonValuesEqual(patched, try parseJSONText(after)) else {
                    Issue.record("\(gesture()): ops \(outcome.diff.encodedOps) on \(before) do not give \(after)",
                                 sourceLocation: sourceLocation)
                    return .broken
                }
            } catch {
                Issue.record("\(gesture()): ops \(outcome.diff.encodedOps) do not apply to \(before): \(error)",
                             sourceLocation: sourceLocation)
                return .broken
            }
            return .accepted
        case .failure:
            guard before == after else {
                Issue.record("refused \(gesture()) changed the document", sourceLocation: sourceLocation)
                return .broken
            }
            return .refused
        }
    }

    // MARK: Plane

    static let planeSeeds: [UInt64] = Array(1...UInt64(SampleCount.of(100)))
    static let planeGesturesPerSeed = 200

    @Test(arguments: [0, 1, 2, 3])
    func planeDiffsPatchTheDocument(quarter: Int) throws {
        var accepted = 0, refused = 0
        nextSeed: for seed in Self.planeSeeds where Int(seed % 4) == quarter {
            // Odd sizes on some seeds so clamping meets fractional edges.
            let width: Double = seed % 3 == 0 ? 640.5 : 1024
            let height: Double = seed % 5 == 0 ? 100 : 768
            var plane = try Plane(options: PlaneOptions(width: width, height: height, seed: seed))
            var gestures = PlaneGestureGenerator(seed: seed &* 7919)
            var before = plane.publicState.encoded
            for _ in 0..<Self.planeGesturesPerSeed {
                let (command, player) = gestures.next(on: plane)
                let result = plane.apply(command, context: MoveContext(player: player, time: 0))
                let after = plane.publicState.encoded
                switch Self.checkInvariant(before: before, after: after, result: result, gesture: "seed \(seed) \(player) \(command)") {
                case .accepted: accepted += 1
                case .refused: refused += 1
                case .broken: continue nextSeed
                }
                guard Self.checkPlaneShape(plane, seed: seed) else { continue nextSeed }
                before = after
            }
        }
        // The generator must exercise both sides, or the test proves little.
        #expect(accepted > SampleCount.of(2000) && refused > SampleCount.of(500), "accepted \(accepted), refused \(refused)")
    }

    static func checkPlaneShape(_ plane: Plane, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        if let outside = plane.rectangles.first(where: { r in
            !(r.x >= 0 && r.y >= 0 && r.x + r.width <= plane.width && r.y + r.height <= plane.height)
        }) {
            Issue.record("seed \(seed): \(outside) sticks out", sourceLocation: sourceLocation)
            return false
        }
        guard Set(plane.rectangles.map(\.id)).count == plane.rectangles.count else {
            Issue.record("seed \(seed): duplicate ids", sourceLocation: sourceLocation)
            return false
        }
        return true
    }
}

extension DiffInvariantTests {
    // MARK: Klondike

    static let klondikeSeeds: [UInt64] = Array(1...UInt64(SampleCount.of(200)))
    static let klondikeGesturesPerSeed = 200

    @Test(arguments: [0, 1, 2, 3])
    func klondikeDiffsPatchTheDocumentAndNeverShowAFaceDownCard(quarter: Int) throws {
        var accepted = 0, refused = 0, cardsHome = 0
        nextSeed: for seed in Self.klondikeSeeds where Int(seed % 4) == quarter {
            let options = KlondikeOptions(draw: seed % 3 == 0 ? 3 : 1, deal: .seed(seed), entropy: seed &* 31)
            var game = try Klondike(options: options, time: 0)
            var gestures = KlondikeGestureGenerator(seed: seed &* 104_729)
            var before = game.publicState.encoded
            var mostHome = 0
            guard Self.checkHiddenCards(game, ops: [], seed: seed) else { continue }
            for step in 0..<Self.klondikeGesturesPerSeed {
                let command = gestures.next(on: game)
                let result = game.apply(command, context: MoveContext(player: "p1", time: Double(step)))
                let after = game.publicState.encoded
                switch Self.checkInvariant(before: before, after: after, result: result, gesture: "seed \(seed) step \(step) \(command)") {
                case .accepted: accepted += 1
                case .refused: refused += 1
                case .broken: continue nextSeed
                }
                mostHome = max(mostHome, (0..<4).reduce(0) { $0 + (game.pile(.foundation($1))?.cards.count ?? 0) })
                guard Self.checkHiddenCards(game, ops: (try? result.get())?.diff.ops ?? [], seed: seed) else { continue nextSeed }
                before = after
            }
            cardsHome += mostHome
        }
        // Games must really be played, not just refused, for the test to mean much.
        #expect(accepted > SampleCount.of(4000) && refused > SampleCount.of(400), "accepted \(accepted), refused \(refused)")
        #expect(cardsHome > SampleCount.of(50 * 8), "at best only \(cardsHome) cards reached foundations in \(Self.klondikeSeeds.count / 4) games")
    }

    /// Face-down cards stay hidden: the stock shows only `??`; each tableau pile
    /// shows `??` below its face-up cards and a face-up top; the public document
    /// shows exactly the face-up cards the table holds; and no op of the diff
    /// carries the name of a card that is face down after it. Records one issue
    /// for the first breach and returns false.
    static func checkHiddenCards(_ game: Klondike, ops: [PatchOp], seed: UInt64,
                                 sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        func breach(_ message: String) -> Bool {
            Issue.record("seed \(seed): \(message)", sourceLocation: sourceLocation)
            return false
        }
        let state = game.publicState
        guard let stock = state["stock"]?.arrayValue, stock.allSatisfy({ $0 == "??" }) else {
            return breach("a stock card shows: \(state["stock"]?.encoded ?? "no stock")")
        }
        var hidden = Set(game.pile(.stock)?.cards.map(\.name) ?? [])
        guard let tableau = state["tableau"]?.arrayValue, tableau.count == 7 else { return breach("no 7 tableau piles") }
        for (i, shown) in tableau.enumerated() {
            let names = (shown.arrayValue ?? []).map { $0.stringValue ?? "" }
            guard let (cards, faceDown) = game.pile(.tableau(i)) else { return breach("no tableau \(i)") }
            hidden.formUnion(cards.prefix(faceDown).map(\.name))
            let expected = cards.enumerated().map { $0.offset < faceDown ? "??" : $0.element.name }
            guard names == expected else { return breach("tableau \(i) shows \(names), holds \(expected)") }
            let firstUp = names.firstIndex { $0 != "??" } ?? names.count
            guard names[firstUp...].allSatisfy({ $0 != "??" }), names.last != "??" else {
                return breach("tableau \(i) is not face-down cards under a face-up run: \(names)")
            }
        }
        for op in ops {
            if let leaked = strings(in: op.json).first(where: { hidden.contains($0) }) {
                return breach("\(op.json.encoded) shows the face-down \(leaked)")
            }
        }
        return true
    }

    /// Every string anywhere in a JSON value (object keys too).
    static func strings(in json: JSON) -> [String] {
        switch json {
        case .string(let s): return [s]
        case .array(let items): return items.flatMap(strings(in:))
        case .object(let pairs): return pairs.flatMap { [$0.key] + strings(in: $0.value) }
        case .null, .bool, .int, .double: return []
        }
    }
}

/// Random Klondike gestures: mostly moves that make progress (hints and legal
/// moves, so games get far enough to turn cards and fill foundations), mixed
/// with stock taps, undo, the odd reset, and targets picked blindly, most of
/// which the rules refuse.
struct KlondikeGestureGenerator {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

    mutating func blindTarget(_ game: Klondike) -> Target {
        switch int(5) {
        case 0: return .stock
        case 1: return .waste
        case 2: return .foundation(int(4))
        default:
            let pile = int(7)
            let count = game.pile(.tableau(pile))?.cards.count ?? 0
            // A card index sometimes past the top, sometimes face down, sometimes none at all.
            return int(3) == 0 ? .tableau(pile) : .tableau(pile, card: int(count + 2))
        }
    }

    mutating func next(on game: Klondike) -> KlondikeCommand {
        let roll = int(100)
        if roll < 75, let hint = game.hint() {
            if hint.from == "/stock" { return .tap(.stock) }
            if let from = try? Target.parse(hint.from), let to = try? Target.parse(hint.to) { return .drag(from: from, to: to) }
        }
        switch roll {
        case 0..<82:
            let legal = game.legalCommands()
            return legal.isEmpty ? .tap(.stock) : legal[int(legal.count)]
        case 82..<86: return .tap(.stock)
        case 86..<90: return .doubleTap(blindTarget(game))
        case 90..<94: return .drag(from: blindTarget(game), to: blindTarget(game))
        case 94..<95: return .tap(blindTarget(game))
        case 95..<99: return .undo
        default:
            let draw = [nil, 1, 3][int(3)]
            return .reset(KlondikeResetOptions(draw: draw, deal: int(2) == 0 ? nil : .seed(rng.next() >> 11)))
        }
    }
}

/// Random plane gestures in their valid wire form, aimed often enough at
/// rectangles to succeed and often enough elsewhere to be refused.
struct PlaneGestureGenerator {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }

    mutating func coordinate(_ side: Double) -> Double {
        switch int(10) {
        case 0: return -50 + Double(int(100))  // around the low edge, sometimes outside
        case 1: return side - 50 + Double(int(100))  // around the high edge
        case 2: return Double(int(Int(side) + 1)) + Double(int(4)) / 4  // quarter fractions
        default: return Double(int(Int(side) + 1))
        }
    }

    /// A point on a random rectangle (corners and edges included) or anywhere.
    mutating func point(on plane: Plane) -> PlanePoint {
        if !plane.rectangles.isEmpty, chance(70) {
            let r = plane.rectangles[int(plane.rectangles.count)]
            switch int(4) {
            case 0: return PlanePoint(x: r.x, y: r.y)
            case 1: return PlanePoint(x: r.x + r.width, y: r.y + r.height)
            default: return PlanePoint(x: r.x + Double(int(Int(r.width) + 1)), y: r.y + Double(int(Int(r.height) + 1)))
            }
        }
        return PlanePoint(x: coordinate(plane.width), y: coordinate(plane.height))
    }

    mutating func next(on plane: Plane) -> (PlaneCommand, String) {
        let player = ["p1", "p2", "p3"][int(3)]
        let command: PlaneCommand
        switch int(100) {
        case 0..<15: command = .tap(point(on: plane))
        case 15..<25: command = .doubleTap(point(on: plane))
        case 25..<45:
            let from = point(on: plane)
            let to = chance(10) ? from : PlanePoint(x: from.x + Double(int(801)) - 400, y: from.y + Double(int(601)) - 300)
            command = .drag(from: from, to: to)
        case 45..<47: command = .reset
        case 47..<60: command = .add(randomSpec(plane))
        case 60..<75:
            switch int(4) {
            case 0: command = .color(nil)
            case 1: command = .color(RGB(r: int(300) - 20, g: int(256), b: int(256)))
            default:
                let current = plane.selection(of: player).flatMap { id in plane.rectangles.first { $0.id == id } }?.color
                command = .color(chance(30) ? current : RGB(r: int(256), g: int(256), b: int(256)))
            }
        case 75..<92: command = .alpha(step: [1, -1, 1, -1, 1, -1, 2, 0][int(8)])
        case 92..<96: command = .leave
        default: command = .tap(PlanePoint(x: chance(50) ? .nan : 1, y: chance(50) ? .infinity : 1))
        }
        return (command, player)
    }

    mutating func randomSpec(_ plane: Plane) -> RectangleSpec {
        var spec = RectangleSpec()
        if chance(30) { spec.x = coordinate(plane.width) }
        if chance(30) { spec.y = coordinate(plane.height) }
        if chance(20) { spec.width = [0, 1, 20.5, 150, plane.width, plane.width + 1][int(6)] }
        if chance(20) { spec.height = [-3, 1, 33.25, 120, plane.height, .nan][int(6)] }
        if chance(20) { spec.r = int(260) }
        if chance(20) { spec.g = int(256) }
        if chance(20) { spec.b = int(256) }
        if chance(20) { spec.alpha = int(12) }
        return spec
    }
}
