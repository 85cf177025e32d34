// Gestures on game states: the input is a game (Klondike, Plane, a race of 2 or 3
// seats or four in a row), its options, and a sequence of commands. After every command it checks the
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
    // A first byte of 0, 1 or 2 picks what it always did (the seeds in Fuzz/corpus/games).
    switch input.int(4) {
    case 0: KlondikeRun.run(&input)
    case 1: PlaneRun.run(&input)
    case 2: RaceRun.run(&input)
    default: FourRun.run(&input)
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

// MARK: - Four in a row

/// Four in a row through the game interface alone, as the server drives it: a game from
/// stored options, the server's `start`, then messages read by `read` and applied for a
/// seat (or for a connection holding none). Besides the diff and refusal checks, every
/// state is checked against the rules as PROTOCOL section 16 states them, with a board
/// read back from the state and lines of four found cell by cell (not as the game does).
enum FourRun {
    typealias Command = FourInARow.Command
    static let seatNames = ["p1", "p2"]
    /// Players that hold no seat: no command of theirs is accepted.
    static let strangers = ["p3", "", "spectator", "s1", "P1", "p1 ", "p1/", "~1"]
    static let stateKeys: Set<String> = ["columns", "rows", "turn", "first", "status", "winner", "line", "moves"]
    static let columnCount = 7, rowCount = 6
    /// Targets `read` must refuse as `bad-request`.
    static let malformedTargets = [
        "/columns/7", "/columns/-1", "/columns/03", "/columns/+3", "/columns/", "/columns", "columns/3", "/columns/3/6",
        "/columns/3/x", "/columns/3/2/1", "/columns/3/", "", "/", "//3", "/rows/3", "/columns/ 3", "/columns/3 ",
        "/columns/99999999999999999999", "/columns/3/-0", "/columns/3/02", "/7", "/-1", "/columns/1e0", "/columns/\u{663}",
        "/columns/-0", "/3/2", "/columns/9223372036854775807",
    ]

    /// What a message's reading must give.
    enum Expect: Equatable {
        case drop(Int)
        case command(Command)
        /// `bad-request` (a target of another form) or `unknown-type` (a type four does not have).
        case refused(GameError.Code)
        /// A target from random bytes: a drop into a column 0 to 6, or `bad-request`.
        case unknown
    }

    /// The board as a client reads it from the state: each column's discs bottom first.
    struct Board {
        var columns: [[String]]

        init?(_ state: JSON) {
            guard let columns = state["columns"]?.arrayValue, columns.count == FourRun.columnCount else { return nil }
            var read: [[String]] = []
            for column in columns {
                guard let discs = column.arrayValue else { return nil }
                let seats = discs.compactMap(\.stringValue)
                guard seats.count == discs.count, seats.allSatisfy(FourRun.seatNames.contains) else { return nil }
                read.append(seats)
            }
            self.columns = read
        }

        var discs: Int { columns.reduce(0) { $0 + $1.count } }
        func count(of seat: String) -> Int { columns.reduce(0) { $0 + $1.filter { $0 == seat }.count } }

        func owner(_ column: Int, _ row: Int) -> String? {
            guard (0..<columns.count).contains(column), row >= 0, row < columns[column].count else { return nil }
            return columns[column][row]
        }

        /// Every four cells in a straight line that one seat holds, as (seat, cells along the line).
        func fours() -> [(seat: String, cells: [[Int]])] {
            var found: [(seat: String, cells: [[Int]])] = []
            for column in 0..<FourRun.columnCount {
                for row in 0..<FourRun.rowCount {
                    guard let seat = owner(column, row) else { continue }
                    for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)]
                    where (1..<4).allSatisfy({ owner(column + $0 * dc, row + $0 * dr) == seat }) {
                        found.append((seat, (0..<4).map { [column + $0 * dc, row + $0 * dr] }))
                    }
                }
            }
            return found
        }

        /// Whether `seat` dropping into `column` would make four.
        func makesFour(_ column: Int, by seat: String) -> Bool {
            var next = self
            next.columns[column].append(seat)
            return next.fours().contains { $0.seat == seat }
        }
    }

    static func other(_ seat: String) -> String { seat == "p1" ? "p2" : "p1" }

    static func run(_ input: inout FuzzInput) {
        // Options as `create` stores them: `first` p1 or p2, or left to its default (p1).
        let first: String
        let options: JSON
        switch input.int(6) {
        case 0, 1: (first, options) = ("p1", .object([("first", "p1")]))
        case 2, 3: (first, options) = ("p2", .object([("first", "p2")]))
        case 4: (first, options) = ("p1", .object([]))
        default: (first, options) = ("p1", .object([("first", .null)]))
        }
        if input.int(16) == 0 {
            let bad: JSON = input.pick(["p3", "P2", "", 1, true, ["p1"], .object([("seat", "p1")])])
            require((try? FourInARow(stored: .object([("first", bad)]), time: 0)) == nil, "first \(bad.encoded) was taken")
        }
        let start = input.time(after: 0)
        guard var game = try? FourInARow(stored: options, time: start) else {
            return require(false, "four with options \(options.encoded) was refused")
        }
        var before = Replica(game.state(for: .spectator).encoded)
        check(game, "the new game")
        require(game.status == .waiting && game.turn == nil && game.seats == seatNames,
                "a new game is \(game.status), turn \(game.turn ?? "-"), seats \(game.seats)")
        require(game.state(for: .spectator)["first"] == .string(first), "options \(options.encoded) give first \(before.text)")
        require(game.command(for: .departure(player: "p1")) == nil, "a departure maps to a command")
        // Once both seats are taken the server issues `start` (for no one in particular).
        guard let startCommand = game.command(for: .start) else { return require(false, "a waiting game offers no start") }
        require(startCommand == .start, "the start maps to \(startCommand)")
        before = apply(.start, by: input.pick(["p1", "p2", ""]), to: &game, before: before, time: start, step: 0)
        require(game.status == .playing && game.turn == first && game.command(for: .start) == nil,
                "start left \(game.status), turn \(game.turn ?? "-") (first \(first))")

        var step = 0
        while !input.isAtEnd && step < maxSteps {
            step += 1
            // A run of careful drops (the mover never makes four if it can help it), so boards fill and games are drawn.
            if input.int(16) == 0 {
                for _ in 0..<input.int(48) where step < maxSteps {
                    guard let mover = game.turn, let column = careful(game, mover: mover, from: input.int(columnCount)) else { break }
                    step += 1
                    let message: JSON = .object([("type", "tap"), ("target", .string("/columns/\(column)"))])
                    before = play("tap", message, expect: .drop(column), by: mover, on: &game, before: before,
                                  time: Double(step) * 7.5, step: step)
                }
                continue
            }
            let player: String
            switch input.int(16) {
            case 0..<11: player = game.turn ?? input.pick(seatNames)
            case 11..<15: player = input.pick(seatNames)
            default: player = input.pick(strangers)
            }
            let time = input.time(after: step)
            // A game that ended is mostly reset, so runs play several games.
            if game.isOver && input.int(4) != 0 {
                before = play("reset", .object([("type", "reset")]), expect: .command(.reset), by: player, on: &game,
                              before: before, time: time, step: step)
                continue
            }
            let kind = input.int(32)
            if kind == 31 && input.bool() {
                // The server's `start` again: refused once the game has started.
                before = apply(.start, by: player, to: &game, before: before, time: time, step: step)
                continue
            }
            let (type, message, expect) = gesture(kind, &input)
            before = play(type, message, expect: expect, by: player, on: &game, before: before, time: time, step: step)
        }
    }

    /// A column the mover may drop into without making four, looking from `from` on; any open column if every
    /// one makes four; nil if the board is full.
    static func careful(_ game: FourInARow, mover: String, from: Int) -> Int? {
        guard let board = Board(game.state(for: .spectator)) else { return nil }
        let open = (0..<columnCount).map { (from + $0) % columnCount }.filter { board.columns[$0].count < rowCount }
        return open.first { !board.makesFour($0, by: mover) } ?? open.first
    }

    /// A message from the input: mostly a tap into a column, sometimes a target of another form (a cell, a
    /// terminal's `/3`, a malformed one, random bytes, not a string), resign, reset, drag, undo, a type four lacks.
    static func gesture(_ kind: Int, _ input: inout FuzzInput) -> (String, JSON, Expect) {
        func tap(_ target: JSON?, _ expect: Expect) -> (String, JSON, Expect) {
            let type = input.int(4) == 0 ? "double-tap" : "tap"
            var pairs: [(key: String, value: JSON)] = [("type", .string(type))]
            if let target { pairs.append(("target", target)) }
            return (type, .object(pairs), expect)
        }
        switch kind {
        case 0..<20:
            let column = input.int(columnCount)
            return tap(.string("/columns/\(column)"), .drop(column))
        case 20:
            let (column, row) = (input.int(columnCount), input.int(rowCount + 1))
            return tap(.string("/columns/\(column)/\(row)"), row < rowCount ? .drop(column) : .refused(.badRequest))
        case 21:
            let column = input.int(columnCount + 2)
            return tap(.string("/\(column)"), column < columnCount ? .drop(column) : .refused(.badRequest))
        case 22: return tap(.string(input.pick(malformedTargets)), .refused(.badRequest))
        case 23: return tap(.string(input.string()), .unknown)
        case 24:
            let targets: [JSON?] = [3, JSON.null, 3.0, ["/columns/3"], .object([("column", 3)]), true, Optional<JSON>.none]
            let target = input.pick(targets)
            return tap(target, .refused(.badRequest))
        case 25, 26: return ("resign", .object([("type", "resign")]), .command(.resign))
        case 27, 28: return ("reset", .object([("type", "reset")]), .command(.reset))
        case 29:
            let message: JSON = .object([("type", "drag"), ("from", "/columns/1"), ("to", .string("/columns/\(input.int(9))"))])
            return ("drag", message, .command(.unsupported("drag")))
        case 30: return ("undo", .object([("type", "undo")]), .command(.unsupported("undo")))
        default:
            let type = input.pick(["start", "hint", "add", "Tap", "", "tap ", "double_tap", "shake"])
            return (type, .object([("type", .string(type)), ("target", "/columns/3")]), .refused(.unknownType))
        }
    }

    /// Reads a message as the server does and, if it reads, applies it for `player`.
    static func play(_ type: String, _ message: JSON, expect: Expect, by player: String, on game: inout FourInARow,
                     before: Replica, time: Double, step: Int) -> Replica {
        let what = { "step \(step): \(player) \(message.encoded)" }
        let read: ReadCommand<Command>
        do throws(GameError) {
            read = try FourInARow.read(type, message)
        } catch {
            switch expect {
            case .refused(let code): require(error.code == code, "\(what()): refused as \(error), not \(code.rawValue)")
            case .unknown: require(error.code == .badRequest, "\(what()): refused as \(error), not bad-request")
            case .drop, .command: require(false, "\(what()): not read: \(error)")
            }
            return before
        }
        let sent = message["target"]?.stringValue ?? ""
        switch (expect, read.command) {
        case (.drop(let expected), .move(let column)):
            require(column == expected, "\(what()): read as column \(column)")
            // The cause names the target as sent; a terminal's `/3` is named in full.
            let target = sent.dropFirst().contains("/") ? sent : "/columns/\(column)"
            require(read.cause == .object([("type", .string(type)), ("target", .string(target))]),
                    "\(what()): cause \(read.cause.encoded)")
        case (.unknown, .move(let column)):
            require((0..<columnCount).contains(column), "\(what()): read as column \(column)")
        case (.command(let expected), let command):
            require(command == expected, "\(what()): read as \(command)")
            require(read.cause == .object([("type", .string(type))]), "\(what()): cause \(read.cause.encoded)")
        default:
            require(false, "\(what()): read as \(read.command), expected \(expect)")
        }
        // Storage keeps the stored form and replays it: it reads back as the same command, with no secret.
        require(read.stored == read.cause, "\(what()): stored \(read.stored.encoded) is not the cause")
        require((try? FourInARow.read(type, read.stored))?.command == read.command, "\(what()): stored form reads otherwise")
        return apply(read.command, by: player, to: &game, before: before, time: time, step: step)
    }

    /// Whether the rules accept `command` from `player` in `state` (PROTOCOL section 16).
    static func accepts(_ command: Command, by player: String, in state: JSON) -> Bool {
        guard seatNames.contains(player), let board = Board(state) else { return false }
        let status = state["status"]?.stringValue
        switch command {
        case .move(let column):
            return status == "playing" && state["turn"] == .string(player) && board.columns[column].count < rowCount
        case .resign: return status == "playing"
        case .reset: return status == "won" || status == "drawn"
        case .start, .unsupported, .timeout: return false
        }
    }

    /// Applies one command and checks it; returns the client's copy after it.
    static func apply(_ command: Command, by player: String, to game: inout FourInARow, before: Replica, time: Double,
                      step: Int) -> Replica {
        let what = { "step \(step): \(player) \(command)" }
        let old = game
        let oldState = old.state(for: .spectator)
        let expected = command == .start ? old.status == .waiting : accepts(command, by: player, in: oldState)
        let result = game.apply(command, context: MoveContext(player: player, time: time))
        let state = game.state(for: .spectator)
        let after = state.encoded
        defer { check(game, what()) }
        switch result {
        case .success(let outcome):
            require(expected, "\(what()): accepted in \(oldState.encoded)")
            // One view, the spectators': every seat sees the same state and diff.
            require(outcome.views.count == 1 && outcome.views[0].viewers == [.spectator],
                    "\(what()): views \(outcome.views.map(\.viewers))")
            for seat in seatNames {
                // Without `SeatViews` the server sends each seat the spectators' diff.
                require(game.state(for: .seat(seat)) == state && !(FourInARow.self is any SeatViews.Type),
                        "\(what()): \(seat) sees another state or diff")
            }
            Check.encodes(outcome.events)
            checkOutcome(command, by: player, events: outcome.events, before: oldState, after: state, what())
            return before.following(outcome.fullDiff, to: after, what())
        case .failure(let error):
            require(!expected, "\(what()): refused (\(error)) in \(oldState.encoded)")
            if seatNames.contains(player) || command == .start {
                require(error.code == .illegalMove, "\(what()): refused as \(error), not illegal-move")
            }
            require(Check.unchanged(game, old), "\(what()): refused (\(error)) but changed the game")
            require(after == before.text, "\(what()): refused but changed the state")
            return before
        }
    }

    /// What an accepted command must have done, from the states before and after it.
    static func checkOutcome(_ command: Command, by player: String, events: [GameEvent], before: JSON, after: JSON,
                             _ what: @autoclosure () -> String) {
        let status = after["status"]?.stringValue ?? ""
        let names = events.map(\.name)
        func field(_ key: String) -> JSON? { events.last.flatMap { event in event.fields.first { $0.key == key }?.value } }
        switch command {
        case .start:
            require(status == "playing" && after["turn"] == after["first"] && names == ["start"],
                    "\(what()): start gave \(after.encoded), events \(names)")
        case .reset:
            let opened = before["first"]?.stringValue ?? ""
            require(after["first"] == .string(other(opened)), "\(what()): reset after \(opened) opened gives first \(after["first"]?.encoded ?? "-")")
            require(status == "playing" && after["turn"] == after["first"] && after["moves"] == 0
                    && after["winner"] == .null && after["line"] == .null && Board(after)?.discs == 0 && names == ["reset"],
                    "\(what()): reset gave \(after.encoded), events \(names)")
        case .move(let column):
            let row = Board(before)?.columns[column].count ?? -1
            require(Board(after)?.columns[column].count == row + 1 && Board(after)?.owner(column, row) == player
                    && after["moves"]?.intValue == (before["moves"]?.intValue ?? 0) + 1,
                    "\(what()): the disc did not land at \(column),\(row): \(after.encoded)")
            switch status {
            case "playing": require(names.isEmpty && after["turn"] == .string(other(player)), "\(what()): events \(names), \(after.encoded)")
            case "won":
                require(names == ["won"] && field("by") == .string(player) && field("reason") == "four"
                        && after["winner"] == .string(player) && after["line"] != .null,
                        "\(what()): a win by four gave \(after.encoded), events \(events.map { JSON.object($0.fields).encoded })")
                // The winning line passes through the disc just dropped.
                require(after["line"]?.arrayValue?.contains([.int(column), .int(row)]) == true, "\(what()): line misses the new disc")
            case "drawn":
                require(names == ["drawn"] && after["moves"] == .int(columnCount * rowCount), "\(what()): drawn with events \(names)")
            default: require(false, "\(what()): a drop left the game \(status)")
            }
            if names == ["won"] || names == ["drawn"] {
                require(field("moves") == after["moves"] && (field("seconds")?.intValue ?? -1) >= 0,
                        "\(what()): end event \(JSON.object(events[0].fields).encoded)")
            }
        case .resign:
            require(status == "won" && after["winner"] == .string(other(player)) && after["line"] == .null
                    && names == ["won"] && field("by") == .string(other(player)) && field("reason") == "resign"
                    && field("moves") == after["moves"] && after["columns"] == before["columns"],
                    "\(what()): resign gave \(after.encoded), events \(events.map { JSON.object($0.fields).encoded })")
        case .unsupported:
            require(false, "\(what()): accepted")
        case .timeout(let seat):
            let loser = seatNames[seat]
            require(status == "won" && after["winner"] == .string(other(loser)) && field("reason") == "time",
                    "\(what()): a timeout gave \(after.encoded)")
        }
    }

    /// The state as PROTOCOL section 16 describes it, and the game's own fields agreeing with it.
    static func check(_ game: FourInARow, _ what: @autoclosure () -> String) {
        let state = game.state(for: .spectator)
        let keys = state.objectPairs?.map(\.key) ?? []
        require(Set(keys) == stateKeys && keys.count == stateKeys.count, "\(what()): keys \(keys)")
        guard let board = Board(state) else { return require(false, "\(what()): columns \(state["columns"]?.encoded ?? "-")") }
        require(board.columns.allSatisfy { $0.count <= rowCount }, "\(what()): a column above \(rowCount): \(state.encoded)")
        require(state["rows"] == .int(rowCount), "\(what()): rows \(state["rows"]?.encoded ?? "-")")
        require(state["moves"] == .int(board.discs), "\(what()): moves \(state["moves"]?.encoded ?? "-") for \(board.discs) discs")
        guard let first = state["first"]?.stringValue, seatNames.contains(first) else {
            return require(false, "\(what()): first \(state["first"]?.encoded ?? "-")")
        }
        // Seats alternate from `first`: it has as many discs as the other seat, or one more.
        let lead = board.count(of: first) - board.count(of: other(first))
        require(lead == 0 || lead == 1, "\(what()): \(first) opened but has \(lead) more discs: \(state.encoded)")
        let status = state["status"]?.stringValue ?? ""
        require(["waiting", "playing", "won", "drawn"].contains(status), "\(what()): status \(status)")
        require(game.status.word == status && (game.turn.map(JSON.string) ?? JSON.null) == state["turn"]
                && game.isOver == (status == "won" || status == "drawn") && (game.command(for: .start) != nil) == (status == "waiting"),
                "\(what()): the game's own fields disagree with \(state.encoded)")
        if status == "playing" {
            let mover = lead == 0 ? first : other(first)
            require(state["turn"] == .string(mover), "\(what()): turn \(state["turn"]?.encoded ?? "-"), \(mover) is to move")
            require(board.discs < columnCount * rowCount, "\(what()): playing on a full board")
        } else {
            require(state["turn"] == .null, "\(what()): turn \(state["turn"]?.encoded ?? "-") while \(status)")
        }
        if status == "waiting" { require(board.discs == 0, "\(what()): discs while waiting") }
        let winner = state["winner"]?.stringValue
        require((winner != nil) == (status == "won") && (winner.map(seatNames.contains) ?? (state["winner"] == .null)),
                "\(what()): winner \(state["winner"]?.encoded ?? "-") while \(status)")
        let fours = board.fours()
        // No game goes on (or is drawn) with four in a line, and only the winner can have one.
        if status != "won" {
            require(fours.isEmpty, "\(what()): \(status) with four in a line: \(state.encoded)")
        } else {
            require(fours.allSatisfy { $0.seat == winner }, "\(what()): the loser has four: \(state.encoded)")
        }
        if status == "drawn" { require(board.discs == columnCount * rowCount, "\(what()): drawn with \(board.discs) discs") }
        switch state["line"] {
        case .null?:
            // Won by resigning: no line, and no four on the board.
            require(status != "won" || fours.isEmpty, "\(what()): won by four without a line: \(state.encoded)")
        case .array(let cells)?:
            require(status == "won", "\(what()): a line while \(status)")
            let points = cells.compactMap { cell -> [Int]? in
                guard let pair = cell.arrayValue, pair.count == 2, let c = pair[0].intValue, let r = pair[1].intValue,
                      case .int = pair[0], case .int = pair[1] else { return nil }
                return [c, r]
            }
            require(points.count == 4 && cells.count == 4, "\(what()): line \(state["line"]?.encoded ?? "-") is not four cells")
            require(points.allSatisfy { board.owner($0[0], $0[1]) == winner }, "\(what()): line cells not all \(winner ?? "-")'s")
            // Adjacent cells, one step apart in one direction, in order along the line.
            if points.count == 4 {
                let (dc, dr) = (points[1][0] - points[0][0], points[1][1] - points[0][1])
                require((dc != 0 || dr != 0) && abs(dc) <= 1 && abs(dr) <= 1
                        && (1..<4).allSatisfy { points[$0] == [points[$0 - 1][0] + dc, points[$0 - 1][1] + dr] },
                        "\(what()): line \(points) is not four cells in a row")
            }
        default:
            require(false, "\(what()): line \(state["line"]?.encoded ?? "-")")
        }
        // `show`: six rows, top first, X for p1, O for p2, . for empty.
        let rows = (0..<rowCount).reversed().map { row in
            (0..<columnCount).map { column in board.owner(column, row).map { $0 == "p1" ? "X" : "O" } ?? "." }.joined(separator: " ")
        }
        require(Array(game.text(for: .spectator, heading: "four").prefix(rowCount)) == rows, "\(what()): show draws another board")
    }
}
