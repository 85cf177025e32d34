// Gestures per second through the pure game core, one core, with their diffs
// encoded once per gesture as the server does before sending.
//
//     swift run -c release core-bench [seconds-per-game]
//
// Each game replays a fixed script of gestures recorded beforehand, so the
// timed loop holds only `apply` and `encodedOps`. It prints figures; it is
// not a pass/fail test.
//
// Rates are per second of this thread's CPU time, the figure for one core; the
// wall-clock rate is printed beside it, and is lower when the machine is busy.
//
// A second table replays the same scripts through the game interface, as the realtime
// layer holds a game (`AnyGame`): an `any Game`, each command read from its JSON message by
// the game type found in `GameCatalog.standard` (`G.read`), erased to `any Sendable &
// Equatable`, and applied through the game's `apply(erased:)` (its witness casts the command
// back, specialised for its type); every view's diff encoded. Once with the commands read beforehand (the interface's own cost:
// compare with the first table), once reading every message in the loop, as the server
// does for each gesture it receives.
import Core
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let target = 1_000_000.0
let secondsPerGame = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 2

struct Figures {
    var name: String
    var mix: String
    var gestures = 0
    var accepted = 0
    var opBytes = 0
    var cpuSeconds = 0.0
    var wallSeconds = 0.0

    var perCPUSecond: Double { Double(gestures) / cpuSeconds }
    var perWallSecond: Double { Double(gestures) / wallSeconds }
}

/// Seconds of CPU time this thread has used.
func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Runs `round` (one pass over a script, returning gestures, accepted and op bytes) until the time is up.
func measure(_ name: String, mix: String, round: () -> (gestures: Int, accepted: Int, opBytes: Int)) -> Figures {
    _ = round()  // warm up caches and the allocator
    var figures = Figures(name: name, mix: mix)
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = threadCPUSeconds()
    var elapsed = Duration.zero
    repeat {
        let r = round()
        figures.gestures += r.gestures
        figures.accepted += r.accepted
        figures.opBytes += r.opBytes
        elapsed = clock.now - start
    } while elapsed < .seconds(secondsPerGame)
    figures.cpuSeconds = threadCPUSeconds() - cpuStart
    figures.wallSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return figures
}

// MARK: - Plane

/// A realistic plane session: three players adding, tapping, dragging and
/// recolouring around a few dozen rectangles, recorded against a live plane so
/// most gestures land on rectangles.
func planeScript(seed: UInt64, count: Int) -> [(PlaneCommand, String)] {
    var plane = try! Plane(options: PlaneOptions(seed: seed))
    var rng = SplitMix64(seed: seed ^ 0xBEEF)
    func int(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    func pointOnARectangle() -> PlanePoint {
        guard !plane.rectangles.isEmpty, int(10) < 8 else { return PlanePoint(x: Double(int(1025)), y: Double(int(769))) }
        let r = plane.rectangles[int(plane.rectangles.count)]
        return PlanePoint(x: r.x + Double(int(Int(r.width))) + 0.5, y: r.y + Double(int(Int(r.height))) + 0.5)
    }
    var script: [(PlaneCommand, String)] = []
    script.reserveCapacity(count)
    while script.count < count {
        let player = ["p1", "p2", "p3"][int(3)]
        let command: PlaneCommand
        if plane.rectangles.count >= 40 {
            command = .reset
        } else {
            switch int(100) {
            case 0..<10: command = .add(RectangleSpec())
            case 10..<40: command = .tap(pointOnARectangle())
            case 40..<70:
                let from = pointOnARectangle()
                command = .drag(from: from, to: PlanePoint(x: from.x + Double(int(201)) - 100, y: from.y + Double(int(151)) - 75))
            case 70..<85: command = int(2) == 0 ? .color(nil) : .color(RGB(r: int(256), g: int(256), b: int(256)))
            default: command = .alpha(step: int(2) == 0 ? 1 : -1)
            }
        }
        _ = plane.apply(command, context: MoveContext(player: player, time: 0))
        script.append((command, player))
    }
    return script
}

func benchPlane() -> Figures {
    let script = planeScript(seed: 2024, count: 100_000)
    let contexts = ["p1", "p2", "p3"].map { MoveContext(player: $0, time: 0) }
    let players = script.map { step in contexts.firstIndex { $0.player == step.1 }! }
    return measure("plane", mix: "add 10, tap 30, drag 30, color 15, alpha 15 (%)") {
        var plane = try! Plane(options: PlaneOptions(seed: 2024))
        var accepted = 0, bytes = 0
        for (i, step) in script.enumerated() {
            if case .success(let outcome) = plane.apply(step.0, context: contexts[players[i]]) {
                accepted += 1
                bytes += outcome.diff.encodedOps.utf8.count
            }
        }
        return (script.count, accepted, bytes)
    }
}

// MARK: - Klondike

/// A realistic Klondike session recorded against a live game: hint-driven
/// moves, stock taps, double-taps, drags (legal ones and blind ones the rules
/// refuse) and undo, with a new deal when a game is won or has gone on long.
func klondikeScript(seed: UInt64, count: Int) -> [KlondikeCommand] {
    var game = try! Klondike(options: KlondikeOptions(draw: 1, deal: .seed(seed), entropy: seed), time: 0)
    var rng = SplitMix64(seed: seed ^ 0xC0FFEE)
    func int(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    var script: [KlondikeCommand] = []
    script.reserveCapacity(count)
    var sinceDeal = 0
    while script.count < count {
        var command: KlondikeCommand
        if game.isWon || sinceDeal >= 400 {
            command = .reset(KlondikeResetOptions(draw: int(2) == 0 ? 1 : 3, deal: .seed(rng.next() >> 11)))
            sinceDeal = 0
        } else {
            switch int(100) {
            case 0..<35:
                command = .tap(.stock)
                if let hint = game.hint(), hint.from != "/stock" {
                    command = .drag(from: try! Target.parse(hint.from), to: try! Target.parse(hint.to))
                }
            case 35..<55: command = .tap(.stock)
            case 55..<70: command = .doubleTap(int(3) == 0 ? .waste : .tableau(int(7)))
            case 70..<85:
                let drags = game.legalCommands().filter { if case .drag = $0 { return true } else { return false } }
                command = drags.isEmpty ? .tap(.stock) : drags[int(drags.count)]
            case 85..<95: command = .undo
            default: command = .drag(from: .tableau(int(7), card: int(8)), to: .tableau(int(7)))
            }
        }
        _ = game.apply(command, context: MoveContext(player: "p1", time: Double(script.count)))
        script.append(command)
        sinceDeal += 1
    }
    return script
}

func benchKlondike() -> Figures {
    let script = klondikeScript(seed: 2024, count: 100_000)
    let options = KlondikeOptions(draw: 1, deal: .seed(2024), entropy: 2024)
    let contexts = script.indices.map { MoveContext(player: "p1", time: Double($0)) }
    return measure("klondike", mix: "hint moves 35, stock tap 20, double-tap 15, drag 15, undo 10, blind drag 5 (%)") {
        var game = try! Klondike(options: options, time: 0)
        var accepted = 0, bytes = 0
        for (i, command) in script.enumerated() {
            if case .success(let outcome) = game.apply(command, context: contexts[i]) {
                accepted += 1
                bytes += outcome.diff.encodedOps.utf8.count
            }
        }
        return (script.count, accepted, bytes)
    }
}

// MARK: - Through the game interface

/// A command erased as the realtime layer keeps it (`GameCommand`).
struct HeldCommand {
    let base: ErasedCommand
}

/// A game held as the realtime layer holds it (`AnyGame.apply`): the erased command goes to the
/// game's own `apply(erased:)`, a requirement whose default each game's witness specialises.
struct HeldGame {
    var base: any Game

    mutating func apply(_ command: HeldCommand, context: MoveContext) -> Result<GameOutcome, GameError> {
        base.apply(erased: command.base, context: context)
    }
}

/// A gesture's message, as a client sends it (already parsed from its text).
struct Message {
    var type: String
    var json: JSON
}

/// Reads a message as the server does (`GameCatalog.parse`): the kind's type from the catalog,
/// the type checked to be a generic gesture or one of its `commandTypes`, the command read by
/// the game and erased.
func readErased(kind: String, _ message: Message) -> HeldCommand {
    guard let game = GameCatalog.standard.game(named: kind),
          ["tap", "double-tap", "drag", "reset", "undo"].contains(message.type) || game.commandTypes.contains(message.type) else {
        fatalError("\(kind) does not read \(message.type)")
    }
    func open<G: Game>(_ game: G.Type) -> HeldCommand {
        do {
            return HeldCommand(base: CommandBox(try game.read(message.type, message.json).command))
        } catch {
            fatalError("\(kind) refused \(message.json.encoded): \(error)")
        }
    }
    return open(game)
}

func klondikeMessage(_ command: KlondikeCommand) -> Message {
    func pairs(_ type: String, _ rest: [(key: String, value: JSON)]) -> Message {
        Message(type: type, json: .object([("type", .string(type))] + rest))
    }
    switch command {
    case .tap(let target): return pairs("tap", [("target", .string(target.pointer))])
    case .doubleTap(let target): return pairs("double-tap", [("target", .string(target.pointer))])
    case .drag(let from, let to): return pairs("drag", [("from", .string(from.pointer)), ("to", .string(to.pointer))])
    case .undo: return pairs("undo", [])
    case .reset(let options):
        var fields: [(key: String, value: JSON)] = []
        if let draw = options.draw { fields.append(("draw", .int(draw))) }
        switch options.deal {
        case .seed(let seed)?: fields.append(("seed", .int(Int(seed))))
        case .deck(let cards)?: fields.append(("deck", .string(cards.map(\.name).joined())))
        case nil: break
        }
        return pairs("reset", fields.isEmpty ? [] : [("options", .object(fields))])
    }
}

func planeMessage(_ command: PlaneCommand) -> Message {
    func point(_ p: PlanePoint) -> [(key: String, value: JSON)] { [("x", .double(p.x)), ("y", .double(p.y))] }
    func pairs(_ type: String, _ rest: [(key: String, value: JSON)]) -> Message {
        Message(type: type, json: .object([("type", .string(type))] + rest))
    }
    switch command {
    case .tap(let p): return pairs("tap", point(p))
    case .doubleTap(let p): return pairs("double-tap", point(p))
    case .drag(let from, let to): return pairs("drag", [("from", .object(point(from))), ("to", .object(point(to)))])
    case .reset: return pairs("reset", [])
    case .add(let spec):
        var fields: [(key: String, value: JSON)] = []
        for (name, value) in [("x", spec.x), ("y", spec.y), ("width", spec.width), ("height", spec.height)] {
            if let value { fields.append((name, .double(value))) }
        }
        for (name, value) in [("r", spec.r), ("g", spec.g), ("b", spec.b), ("alpha", spec.alpha)] {
            if let value { fields.append((name, .int(value))) }
        }
        return pairs("add", fields)
    case .color(let rgb?): return pairs("color", [("r", .int(rgb.r)), ("g", .int(rgb.g)), ("b", .int(rgb.b))])
    case .color(nil): return pairs("color", [])
    case .alpha(let step): return pairs("alpha", [("step", .int(step))])
    case .leave: fatalError("leave is the server's command, not in a script")
    }
}

/// Replays `messages` on a game made from `options` through the interface; `readInLoop` reads
/// every message in the timed loop, otherwise the commands are read (and checked equal to the
/// script's) beforehand.
func measureInterface<C: Sendable & Equatable>(_ name: String, kind: String, options: JSON, script: [C],
                                    messages: [Message], contexts: [MoveContext], readInLoop: Bool) -> Figures {
    guard let type = GameCatalog.standard.game(named: kind) else { fatalError("no \(kind) in the catalog") }
    let commands = messages.map { readErased(kind: kind, $0) }
    for (i, command) in commands.enumerated() where (command.base as? CommandBox<C>)?.command != script[i] {
        fatalError("\(kind): message \(messages[i].json.encoded) reads as another command than the script's")
    }
    return measure(name, mix: readInLoop ? "read each message in the loop" : "commands read beforehand") {
        var game = HeldGame(base: try! type.init(stored: options, time: 0))
        var accepted = 0, bytes = 0
        for i in messages.indices {
            let command = readInLoop ? readErased(kind: kind, messages[i]) : commands[i]
            if case .success(let outcome) = game.apply(command, context: contexts[i]) {
                accepted += 1
                for view in outcome.views { bytes += view.diff.encodedOps.utf8.count }
            }
        }
        return (messages.count, accepted, bytes)
    }
}

func benchKlondikeInterface(readInLoop: Bool) -> Figures {
    let script = klondikeScript(seed: 2024, count: 100_000)
    let contexts = script.indices.map { MoveContext(player: "p1", time: Double($0)) }
    let options: JSON = .object([("draw", .int(1)), ("seed", .int(2024)), ("entropy", .int(2024))])
    let direct = try! Klondike(options: KlondikeOptions(draw: 1, deal: .seed(2024), entropy: 2024), time: 0)
    precondition(try! Klondike(stored: options, time: 0) == direct, "stored options make another game")
    return measureInterface("klondike", kind: Klondike.kind, options: options, script: script,
                            messages: script.map(klondikeMessage), contexts: contexts, readInLoop: readInLoop)
}

func benchPlaneInterface(readInLoop: Bool) -> Figures {
    let script = planeScript(seed: 2024, count: 100_000)
    let options: JSON = .object([("seed", .int(2024))])
    precondition(try! Plane(stored: options, time: 0) == (try! Plane(options: PlaneOptions(seed: 2024))),
                 "stored options make another game")
    return measureInterface("plane", kind: Plane.kind, options: options, script: script.map(\.0),
                            messages: script.map { planeMessage($0.0) },
                            contexts: script.map { MoveContext(player: $0.1, time: 0) }, readInLoop: readInLoop)
}

// MARK: - Report

func grouped(_ n: Double) -> String {
    let digits = String(Int(n.rounded()))
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
        out.append(c)
    }
    return out
}

func padded(_ s: String, _ width: Int, right: Bool = false) -> String {
    let pad = String(repeating: " ", count: max(0, width - s.count))
    return right ? pad + s : s + pad
}

let results = [benchKlondike(), benchPlane()]

print("core-bench: gestures applied per second with their diffs encoded once each, one thread, \(secondsPerGame) s per game")
print(padded("game", 10) + padded("per CPU s", 12, right: true) + padded("per wall s", 12, right: true)
    + padded("accepted", 10, right: true) + padded("op bytes", 10, right: true) + padded("target", 14, right: true)
    + "  verdict  mix")
for f in results {
    let verdict = f.perCPUSecond >= target ? "ok" : "BELOW"
    print(padded(f.name, 10) + padded(grouped(f.perCPUSecond), 12, right: true)
        + padded(grouped(f.perWallSecond), 12, right: true)
        + padded("\(Int((100 * Double(f.accepted) / Double(f.gestures)).rounded()))%", 10, right: true)
        + padded(grouped(Double(f.opBytes) / Double(max(1, f.accepted))), 10, right: true)
        + padded(">= " + grouped(target), 14, right: true) + "  " + padded(verdict, 7) + "  " + f.mix)
}

let throughInterface = [benchKlondikeInterface(readInLoop: false), benchPlaneInterface(readInLoop: false),
                        benchKlondikeInterface(readInLoop: true), benchPlaneInterface(readInLoop: true)]

print("")
print("through the game interface, as the realtime layer holds a game (any Game, commands erased and cast back)")
print(padded("game", 10) + padded("per CPU s", 12, right: true) + padded("per wall s", 12, right: true)
    + padded("accepted", 10, right: true) + padded("op bytes", 10, right: true) + padded("vs direct", 11, right: true)
    + "  commands")
for f in throughInterface {
    let direct = results.first { $0.name == f.name }!
    print(padded(f.name, 10) + padded(grouped(f.perCPUSecond), 12, right: true)
        + padded(grouped(f.perWallSecond), 12, right: true)
        + padded("\(Int((100 * Double(f.accepted) / Double(f.gestures)).rounded()))%", 10, right: true)
        + padded(grouped(Double(f.opBytes) / Double(max(1, f.accepted))), 10, right: true)
        + padded("\(Int((100 * f.perCPUSecond / direct.perCPUSecond).rounded()))%", 11, right: true)
        + "  " + f.mix)
}
