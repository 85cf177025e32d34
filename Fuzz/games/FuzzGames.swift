// Gestures on game states: the input is a game (Klondike, Plane or a race of 2 or 3
// seats), its options, and a sequence of commands. After every command it checks the
// protocol's promises with the independent RFC 6902 apply (JSONPatchCheck):
// - an accepted command's diff, applied to the public state before it, gives exactly
//   the public state after it (for a race: every view's diff, each view's state);
// - a refused command changes nothing (the whole game value is equal);
// - no face-down card shows: a Klondike state and diff never name a face-down card;
//   a race seat never sees a card of a rival's stock, waste or tableau.
import Core
import FuzzSupport
import JSONPatchCheck

@_cdecl("fuzz_games_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzMain(argc, argv, fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    switch input.int(3) {
    case 0: KlondikeRun.run(&input)
    case 1: PlaneRun.run(&input)
    default: RaceRun.run(&input)
    }
    return 0
}

/// Commands in one run, hinted runs included: enough to win a game by hints, few
/// enough that one input takes well under a second.
let maxSteps = 300

// MARK: - Checks shared by the games

/// What a client holds of one view: the state as text, as last sent, and its own parsed copy,
/// to which it applies every diff it is sent (with the independent RFC 6902 apply).
struct Replica {
    let text: String
    let document: Any

    init(_ text: String) {
        self.text = text
        do {
            document = try parseJSONText(text)
        } catch {
            fatalError("the state \(text) is not JSON: \(error)")
        }
    }

    private init(text: String, document: Any) {
        self.text = text
        self.document = document
    }

    /// The copy after an accepted command's diff, which must be exactly the state `after`.
    func following(_ diff: Diff, to after: String, _ what: @autoclosure () -> String) -> Replica {
        require(!diff.isEmpty, "\(what()): accepted with no ops")
        let ops = diff.encodedOps
        do {
            let patched = try applyJSONPatch(ops, toDocument: document)
            let expected = try parseJSONText(after)
            require(jsonValuesEqual(patched, expected), "\(what()): ops \(ops) on \(text) do not give \(after)")
            return Replica(text: after, document: patched)
        } catch {
            fatalError("\(what()): ops \(ops) do not apply to \(text): \(error)")
        }
    }
}

enum Check {
    /// Every string anywhere in a JSON value, object keys too.
    static func strings(in json: JSON) -> [String] {
        switch json {
        case .string(let s): return [s]
        case .array(let items): return items.flatMap(strings(in:))
        case .object(let pairs): return pairs.flatMap { [$0.key] + strings(in: $0.value) }
        case .null, .bool, .int, .double: return []
        }
    }

    /// A Klondike table shows exactly its face-up cards: the stock only `??`, the waste and
    /// foundations as they are, each tableau pile `??` below a face-up run with a face-up top;
    /// and no op names a card that is face down after it.
    static func hidesFaceDownCards(_ game: Klondike, state: JSON, ops: [PatchOp], _ what: @autoclosure () -> String) {
        guard let stock = game.pile(.stock) else { return require(false, "\(what()): no stock") }
        require(state["stock"] == .array(stock.cards.map { _ in "??" }), "\(what()): the stock shows \(state["stock"]?.encoded ?? "-")")
        var hidden = Set(stock.cards.map(\.name))
        if let waste = game.pile(.waste) {
            require(state["waste"] == .array(waste.cards.map { .string($0.name) }), "\(what()): waste shown wrong")
        }
        for i in 0..<4 {
            guard let pile = game.pile(.foundation(i)) else { return require(false, "\(what()): no foundation \(i)") }
            require(state["foundations"]?.arrayValue?[i] == .array(pile.cards.map { .string($0.name) }),
                    "\(what()): foundation \(i) shown wrong")
        }
        for i in 0..<7 {
            guard let (cards, faceDown) = game.pile(.tableau(i)) else { return require(false, "\(what()): no tableau \(i)") }
            require(cards.isEmpty ? faceDown == 0 : faceDown < cards.count,
                    "\(what()): tableau \(i) has \(faceDown) face-down cards of \(cards.count)")
            hidden.formUnion(cards.prefix(faceDown).map(\.name))
            let expected: [JSON] = cards.enumerated().map { $0.offset < faceDown ? "??" : .string($0.element.name) }
            require(state["tableau"]?.arrayValue?[i] == .array(expected),
                    "\(what()): tableau \(i) shows \(state["tableau"]?.arrayValue?[i].encoded ?? "-"), holds \(expected)")
        }
        for op in ops {
            if let leaked = strings(in: op.json).first(where: { hidden.contains($0) }) {
                require(false, "\(what()): \(op.json.encoded) shows the face-down \(leaked)")
            }
        }
    }

    /// The same value, field by field. `==` first; on a difference the two dumps decide,
    /// since a clock of NaN (a time the fuzzer may give) is stored and never `==` itself.
    static func unchanged<T: Equatable>(_ a: T, _ b: T) -> Bool {
        guard a != b else { return true }
        var textA = "", textB = ""
        dump(a, to: &textA)
        dump(b, to: &textB)
        return textA == textB
    }

    /// Events are sent as JSON: they must encode.
    static func encodes(_ events: [GameEvent]) {
        for event in events { _ = JSON.object(event.fields).encoded }
    }
}

// MARK: - Choosing commands from bytes

extension FuzzInput {
    /// A target, often one the rules refuse or that no pointer can name.
    mutating func target(on game: Klondike) -> Target {
        let pile: PileID
        switch int(8) {
        case 0: pile = .stock
        case 1: pile = .waste
        case 2: pile = .foundation(pick([-1, 0, 1, 2, 3, 4, 100]))
        case 3: pile = .foundation(int(4))
        default: pile = .tableau(int(9) - 1)
        }
        switch int(6) {
        case 0, 1: return Target(pile)
        case 2: return Target(pile, cardIndex: pick([-1, Int.max, Int.min, 52, 53]))
        default:
            let count = game.pile(pile)?.cards.count ?? 0
            return Target(pile, cardIndex: int(count + 2))
        }
    }

    /// Any of the 52 cards in an order from the input; sometimes not a valid deck.
    mutating func deck() -> [Card] {
        var deck = Card.orderedDeck
        for i in stride(from: 51, through: 1, by: -1) { deck.swapAt(i, int(i + 1)) }
        switch int(8) {
        case 0: deck.removeLast()
        case 1: deck[int(52)] = deck[int(52)]
        default: break
        }
        return deck
    }

    mutating func resetOptions() -> KlondikeResetOptions {
        let draw = pick([nil, nil, 1, 3, 0, 2, -1] as [Int?])
        switch int(5) {
        case 0: return KlondikeResetOptions(draw: draw, deal: .seed(uint64()))
        case 1: return KlondikeResetOptions(draw: draw, deal: .deck(deck()))
        case 2: return KlondikeResetOptions(draw: draw, deal: .deck(homeDeck))
        default: return KlondikeResetOptions(draw: draw)
        }
    }

    /// The hint as a command, if there is one.
    func hinted(_ game: Klondike) -> KlondikeCommand? {
        guard let hint = game.hint() else { return nil }
        if hint.from == "/stock" { return .tap(.stock) }
        guard let from = try? Target.parse(hint.from), let to = try? Target.parse(hint.to) else {
            require(false, "hint \(hint) names no target")
            return nil
        }
        return .drag(from: from, to: to)
    }

    /// Mostly moves that make progress (one of `legalCommands()`, the hint), so games get
    /// far; the rest blind gestures the rules mostly refuse, undo and reset. `legal`: the
    /// game promised to accept it.
    mutating func klondikeCommand(on game: Klondike) -> (command: KlondikeCommand, legal: Bool) {
        switch int(16) {
        case 0..<5:
            let legal = game.legalCommands()
            return legal.isEmpty ? (.tap(.stock), false) : (legal[int(legal.count)], true)
        case 5..<8: return hinted(game).map { ($0, true) } ?? (.undo, false)
        case 8: return (.tap(target(on: game)), false)
        case 9: return (.doubleTap(target(on: game)), false)
        case 10, 11: return (.drag(from: target(on: game), to: target(on: game)), false)
        case 12, 13: return (.undo, false)
        case 14: return (.reset(resetOptions()), false)
        default: return (.tap(.stock), false)
        }
    }

    /// The clock: mostly forward, sometimes backwards or not a number at all.
    mutating func time(after step: Int) -> Double {
        int(16) == 0 ? double() : Double(step) * 7.5
    }
}

/// A deck a player who sends cards home wins (the tableau tops go home one after
/// another, then the stock in order), so runs reach won games and finished races.
let homeDeck: [Card] = {
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

// MARK: - Klondike

enum KlondikeRun {
    static func run(_ input: inout FuzzInput) {
        let draw = input.bool() ? 3 : 1
        let deal: KlondikeDeal = input.int(4) == 0 ? .deck(homeDeck) : .seed(input.uint64())
        guard var game = try? Klondike(options: KlondikeOptions(draw: draw, deal: deal, entropy: input.uint64()), time: 0) else {
            return require(false, "a valid deal was refused")
        }
        var before = Replica(game.publicState.encoded)
        Check.hidesFaceDownCards(game, state: game.publicState, ops: [], "the deal")
        var step = 0
        while !input.isAtEnd && step < maxSteps {
            step += 1
            // A run of hinted moves: one byte plays a game far.
            if input.int(32) == 0 {
                for _ in 0..<input.int(120) where step < maxSteps {
                    guard let command = input.hinted(game) else { break }
                    step += 1
                    before = apply(command, to: &game, before: before, time: Double(step), step: step, legal: true)
                }
                continue
            }
            let (command, legal) = input.klondikeCommand(on: game)
            before = apply(command, to: &game, before: before, time: input.time(after: step), step: step, legal: legal)
        }
    }

    /// Applies one command and checks it; returns the client's copy after it. `legal`: a
    /// command `legalCommands()` or `hint()` offered, which must be accepted.
    static func apply(_ command: KlondikeCommand, to game: inout Klondike, before: Replica, time: Double, step: Int,
                      legal: Bool) -> Replica {
        let old = game
        let result = game.apply(command, context: MoveContext(player: "p1", time: time))
        let state = game.publicState
        let after = state.encoded
        switch result {
        case .success(let outcome):
            Check.hidesFaceDownCards(game, state: state, ops: outcome.diff.ops, "step \(step) \(command)")
            Check.encodes(outcome.events)
            return before.following(outcome.diff, to: after, "step \(step) \(command)")
        case .failure(let error):
            require(!legal, "step \(step): \(command), offered as legal, was refused: \(error)")
            require(Check.unchanged(game, old), "step \(step): refused \(command) (\(error)) changed the game")
            require(after == before.text, "step \(step): refused \(command) changed the state")
            return before
        }
    }
}

// MARK: - Plane

enum PlaneRun {
    static let players = ["p1", "p2", "p3", "a/b", "~1", ""]

    static func run(_ input: inout FuzzInput) {
        let sides: [Double] = [1024, 768, 640.5, 100, 1, 0.5, 150, PlaneOptions.maxSide]
        let width = input.int(3) == 0 ? input.double() : input.pick(sides)
        let height = input.int(3) == 0 ? input.double() : input.pick(sides)
        guard var plane = try? Plane(options: PlaneOptions(width: width, height: height, seed: input.uint64())) else {
            require(!(width.isFinite && width > 0 && width <= PlaneOptions.maxSide
                && height.isFinite && height > 0 && height <= PlaneOptions.maxSide), "plane \(width)x\(height) refused")
            return
        }
        var before = Replica(plane.publicState.encoded)
        var step = 0
        while !input.isAtEnd && step < maxSteps {
            step += 1
            let player = input.pick(players)
            let command = command(&input, on: plane, player: player)
            let old = plane
            let result = plane.apply(command, context: MoveContext(player: player, time: Double(step)))
            let after = plane.publicState.encoded
            switch result {
            case .success(let outcome):
                before = before.following(outcome.diff, to: after, "step \(step) \(player) \(command)")
                Check.encodes(outcome.events)
            case .failure(let error):
                require(Check.unchanged(plane, old), "step \(step): refused \(player) \(command) (\(error)) changed the plane")
                require(after == before.text, "step \(step): refused \(command) changed the state")
            }
            checkShape(plane, "step \(step) \(player) \(command)")
        }
    }

    /// Every rectangle lies inside the plane, ids are unique, selections name rectangles.
    static func checkShape(_ plane: Plane, _ what: @autoclosure () -> String) {
        for r in plane.rectangles {
            require(r.x >= 0 && r.y >= 0 && r.x + r.width <= plane.width && r.y + r.height <= plane.height
                && r.width > 0 && r.height > 0 && Rectangle.alphaRange.contains(r.alpha) && r.color.isValid,
                "\(what()): \(r) is not a rectangle inside the \(plane.width)x\(plane.height) plane")
        }
        require(Set(plane.rectangles.map(\.id)).count == plane.rectangles.count, "\(what()): duplicate ids")
    }

    /// A point on a rectangle (corner, edge or inside) or anywhere, finite or not.
    static func point(_ input: inout FuzzInput, on plane: Plane) -> PlanePoint {
        if !plane.rectangles.isEmpty, input.int(4) != 0 {
            let r = plane.rectangles[input.int(plane.rectangles.count)]
            switch input.int(4) {
            case 0: return PlanePoint(x: r.x, y: r.y)
            case 1: return PlanePoint(x: r.x + r.width, y: r.y + r.height)
            default: return PlanePoint(x: r.x + r.width * Double(input.int(5)) / 4, y: r.y + r.height * Double(input.int(5)) / 4)
            }
        }
        return PlanePoint(x: input.double(), y: input.double())
    }

    static func command(_ input: inout FuzzInput, on plane: Plane, player: String) -> PlaneCommand {
        switch input.int(10) {
        case 0, 1: return .tap(point(&input, on: plane))
        case 2: return .doubleTap(point(&input, on: plane))
        case 3, 4:
            let from = point(&input, on: plane)
            let to = input.bool() ? point(&input, on: plane) : PlanePoint(x: from.x + input.double(), y: from.y - input.double())
            return .drag(from: from, to: to)
        case 5:
            return input.int(4) == 0 ? .reset : .leave
        case 6:
            var spec = RectangleSpec()
            if input.bool() { spec.x = input.double() }
            if input.bool() { spec.y = input.double() }
            if input.bool() { spec.width = input.int(3) == 0 ? input.double() : plane.width * Double(input.int(9)) / 8 }
            if input.bool() { spec.height = input.int(3) == 0 ? input.double() : plane.height * Double(input.int(9)) / 8 }
            if input.bool() { spec.r = input.int(270) - 5 }
            if input.bool() { spec.g = input.int(256) }
            if input.bool() { spec.b = input.pick([0, 255, 256, -1, Int.max, Int.min]) }
            if input.bool() { spec.alpha = input.int(13) - 1 }
            return .add(spec)
        case 7:
            switch input.int(4) {
            case 0: return .color(nil)
            case 1: return .color(RGB(r: input.int(300) - 20, g: input.int(256), b: input.pick([0, 255, 256, -1])))
            case 2:
                let current = plane.selection(of: player).flatMap { id in plane.rectangles.first { $0.id == id } }?.color
                return .color(current ?? RGB(r: 1, g: 2, b: 3))
            default: return .color(RGB(r: input.int(256), g: input.int(256), b: input.int(256)))
            }
        default:
            return .alpha(step: input.pick([1, -1, 1, -1, 0, 2, Int.min]))
        }
    }
}

// MARK: - Race

enum RaceRun {
    static func run(_ input: inout FuzzInput) {
        let seats = 2 + input.int(2)
        let draw = input.bool() ? 3 : 1
        let deal: KlondikeDeal = input.int(3) == 0 ? .deck(homeDeck) : .seed(input.uint64())
        guard var race = try? Race(options: RaceOptions(seats: seats, draw: draw, deal: deal, entropy: input.uint64()), time: 0)
        else { return require(false, "a valid race was refused") }
        var before = views(of: race).map { Replica(race.publicState(for: $0).encoded) }
        for viewer in views(of: race) { checkMasked(race, for: viewer, diff: Diff(), "the deal") }
        // The server starts a race once every seat is taken: `start` comes first.
        before = apply(.start, by: "p1", to: &race, before: before, time: 0, step: 0, legal: true)
        require(race.phase == .playing, "start did not start the race")
        var step = 0
        while !input.isAtEnd && step < maxSteps {
            step += 1
            let seat = input.int(24) == 0 ? input.pick(["p4", "p9", "spectator", "", "p1/"]) : race.seats[input.int(race.seats.count)]
            let table = race.table(of: seat) ?? race.table(of: "p1")!
            let command: RaceCommand
            var legal = false
            switch input.int(32) {
            case 0: command = .start
            case 1, 2: command = .reset(input.resetOptions())
            case 3:
                // A run of hinted moves on one table, so tables are won and races finish.
                for _ in 0..<input.int(120) where step < maxSteps {
                    guard let table = race.table(of: seat), let hinted = input.hinted(table) else { break }
                    step += 1
                    before = apply(.table(hinted), by: seat, to: &race, before: before, time: Double(step), step: step,
                                   legal: race.phase == .playing)
                }
                continue
            default:
                let gesture = input.klondikeCommand(on: table)
                command = .table(gesture.command)
                // The seat's own table offered it, and a playing race plays it.
                legal = gesture.legal && race.table(of: seat) != nil && race.phase == .playing
            }
            before = apply(command, by: seat, to: &race, before: before, time: input.time(after: step), step: step,
                           legal: legal)
        }
    }

    /// Every view of the race: the spectators', then one per seat.
    static func views(of race: Race) -> [Viewer] { [.spectator] + race.seats.map { .seat($0) } }

    /// Applies one command and checks every view; returns each view's client copy after it.
    static func apply(_ command: RaceCommand, by seat: String, to race: inout Race, before: [Replica], time: Double,
                      step: Int, legal: Bool) -> [Replica] {
        let old = race
        let result = race.apply(command, context: MoveContext(player: seat, time: time))
        let viewers = views(of: race)
        let full = race.publicState
        let shown = viewers.map { RaceView.state(full, for: $0) }
        let after = shown.map(\.encoded)
        let what = "step \(step) \(seat) \(command)"
        switch result {
        case .success(let outcome):
            let grouped = outcome.views.flatMap(\.viewers)
            require(grouped.count == viewers.count && Set(grouped) == Set(viewers),
                    "\(what): views grouped as \(outcome.views.map(\.viewers)), not each of \(viewers) once")
            require(outcome.views.first?.viewers.first == .spectator, "\(what): the spectators' group is not first")
            Check.encodes(outcome.events)
            var replicas: [Replica] = []
            for (index, viewer) in viewers.enumerated() {
                guard let diff = outcome.diff(for: viewer) else { fatalError("\(what): no diff for \(viewer)") }
                // The server stores the full diff and derives every view's from it.
                require(diff == RaceView.diff(outcome.fullDiff, for: viewer), "\(what): \(viewer)'s diff is not derived")
                replicas.append(before[index].following(diff, to: after[index], "\(what) seen by \(viewer)"))
                checkMasked(race, full: full, view: shown[index], for: viewer, diff: diff, what)
            }
            for (seat, prefix) in race.seats.map({ ($0, "/tables/\($0)") }) {
                guard let table = race.table(of: seat), let state = full["tables"]?[seat] else { continue }
                let ops = outcome.fullDiff.ops.filter { op in
                    let path = op.json["path"]?.stringValue ?? ""
                    return path.hasPrefix(prefix + "/") || path == prefix
                }
                Check.hidesFaceDownCards(table, state: state, ops: ops, "\(what), table \(seat)")
            }
            return replicas
        case .failure(let error):
            require(!legal, "\(what): offered as legal, but refused: \(error)")
            require(Check.unchanged(race, old), "\(what): refused (\(error)) but changed the race")
            require(after == before.map(\.text), "\(what): refused but changed a view")
            return before
        }
    }

    /// A spectator sees the full state; a seat its own table as it is and each rival table
    /// with the same shape, numbers and foundations but `??` for every card of its stock,
    /// waste and tableau; no op of a seat's diff carries a card into a rival's hidden piles.
    static func checkMasked(_ race: Race, full: JSON? = nil, view: JSON? = nil, for viewer: Viewer, diff: Diff,
                            _ what: @autoclosure () -> String) {
        let full = full ?? race.publicState
        let view = view ?? race.publicState(for: viewer)
        guard case .seat(let own) = viewer else {
            return require(view == full, "\(what()): a spectator's state is not the full state")
        }
        require(view["seats"] == full["seats"] && view["status"] == full["status"] && view["finished"] == full["finished"],
                "\(what()): \(own)'s view of the race's own fields differs")
        for seat in race.seats {
            guard let shown = view["tables"]?[seat], let real = full["tables"]?[seat] else {
                return require(false, "\(what()): no table \(seat)")
            }
            if seat == own {
                require(shown == real, "\(what()): \(own) does not see its own table as it is")
                continue
            }
            for key in ["draw", "foundations", "moves", "score", "status"] {
                require(shown[key] == real[key], "\(what()): \(own) sees \(seat)'s \(key) wrong")
            }
            for key in ["stock", "waste", "tableau"] {
                require(shape(shown[key] ?? .null) == shape(real[key] ?? .null), "\(what()): \(seat)'s \(key) shape differs for \(own)")
                if let card = Check.strings(in: shown[key] ?? .null).first(where: { $0 != "??" }) {
                    require(false, "\(what()): \(own) sees \(card) in \(seat)'s \(key)")
                }
            }
        }
        for op in diff.ops {
            let tokens = (op.json["path"]?.stringValue ?? "").split(separator: "/", omittingEmptySubsequences: false)
            guard tokens.count >= 3, tokens[1] == "tables", tokens[2] != Substring(own) else { continue }
            let value = op.json["value"] ?? .null
            let hidden: [JSON]
            if tokens.count == 3 {
                hidden = ["stock", "waste", "tableau"].map { value[$0] ?? .null }
            } else {
                hidden = ["stock", "waste", "tableau"].contains(String(tokens[3])) ? [value] : []
            }
            if let card = hidden.flatMap(Check.strings(in:)).first(where: { $0 != "??" }) {
                require(false, "\(what()): \(op.json.encoded) shows \(own) the card \(card) on a rival's table")
            }
        }
    }

    /// A JSON value with every string blanked: two piles of the same shape have the same lengths.
    static func shape(_ json: JSON) -> JSON {
        switch json {
        case .string: return ""
        case .array(let items): return .array(items.map(shape))
        case .object(let pairs): return .object(pairs.map { (key: $0.key, value: shape($0.value)) })
        case .null, .bool, .int, .double: return json
        }
    }
}
