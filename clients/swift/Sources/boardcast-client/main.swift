// boardcast-client: the reference command-line client of PROTOCOL section 21, built on the
// BoardcastClient library. JSON lines on standard output and nothing else there; its log goes to
// standard error; exit 0 when done, 1 when the game cannot be played or watched, 2 for usage
// (the same as the JavaScript client, clients/js/bin/cli.js).
//
//   boardcast-client play URL [--seed S] [--moves N] [--bot LEVEL]
//   boardcast-client watch URL GAME [--until-seq N]

import BoardcastClient
import Foundation

let usage = """
    usage: boardcast-client play URL [--seed S] [--moves N] [--bot LEVEL]
           boardcast-client watch URL GAME [--until-seq N]
           (--verbose for a detailed log on standard error)
    """

struct UsageError: Error {
    let message: String
}

/// Set once while the arguments are read, before anything runs concurrently.
nonisolated(unsafe) var verbose = false

/// One line on standard output, in one write (so lines never interleave or wait in a buffer).
func out(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func log(_ level: GameFollower.LogLevel, _ message: String) {
    if level == .debug && !verbose { return }
    let prefix = level == .warn ? "warning: " : ""
    FileHandle.standardError.write(Data("boardcast-client: \(prefix)\(message)\n".utf8))
}

// MARK: - Arguments

struct Arguments {
    var positional: [String] = []
    var values: [String: String] = [:]
}

/// `--flag value` or `--flag=value` for the flags given; `--verbose` or `-v` anywhere.
func parse(_ args: [String], flags: [String]) throws -> Arguments {
    var result = Arguments()
    var i = 0
    while i < args.count {
        let a = args[i]
        if a == "--verbose" || a == "-v" {
            verbose = true
        } else if a.hasPrefix("--") {
            let eq = a.firstIndex(of: "=")
            let name = eq.map { String(a[..<$0]) } ?? a
            guard flags.contains(name) else { throw UsageError(message: "unknown flag \(name)") }
            let value: String
            if let eq {
                value = String(a[a.index(after: eq)...])
            } else {
                i += 1
                guard i < args.count else { throw UsageError(message: "\(name) needs a value") }
                value = args[i]
            }
            result.values[name] = value
        } else {
            result.positional.append(a)
        }
        i += 1
    }
    return result
}

func integer(_ text: String?, _ name: String, min: Int) throws -> Int? {
    guard let text else { return nil }
    guard let n = Int(text), n >= min else { throw UsageError(message: "\(name) must be an integer of at least \(min)") }
    return n
}

func url(_ text: String) throws -> URL {
    guard let u = URL(string: text), let scheme = u.scheme, ["ws", "wss", "http", "https"].contains(scheme), u.host != nil else {
        throw UsageError(message: "\(text) is not a WebSocket address (ws://HOST:PORT/ws)")
    }
    return u
}

// MARK: - Commands

func ended(_ state: JSONValue) -> Bool {
    let status = state["status"]?.stringValue
    return status == "won" || status == "drawn" || status == "finished"
}

/// The first change of `session` for which `predicate` holds (the latest one first).
func firstChange(_ session: GameSession, where predicate: @Sendable (StateChange) -> Bool) async throws -> StateChange {
    for await change in session.changes where predicate(change) {
        return change
    }
    throw BoardcastError.closed("the game could not be followed any more")
}

/// Waits until the session's seq moves past `seq`, or `seconds` pass.
func waitForChange(_ session: GameSession, after seq: Int, atMost seconds: Double) async {
    await withTaskGroup(of: Void.self) { group in
        group.addTask { _ = try? await firstChange(session) { $0.seq != seq } }
        group.addTask { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
        await group.next()
        group.cancelAll()
    }
}

/// Waits for the session to join (closing the client if it cannot), then logs its status changes.
func started(_ session: GameSession, of client: BoardcastClient) async throws -> Task<Void, Never> {
    do {
        try await session.ready()
    } catch {
        await client.close()
        throw error
    }
    return logStatus(session)
}

/// play: a four-in-a-row game against the server's bot, p1 dropping at random (seeded).
func play(url: URL, seed: UInt64, moves: Int?, bot: Int) async throws -> Int32 {
    let client = BoardcastClient(url: url, log: log)
    var rng = SplitMix64(seed: seed)
    let session = client.creating(kind: "four", options: ["bots": ["p2": .number(Double(bot))]])
    let statusTask = try await started(session, of: client)
    defer { statusTask.cancel() }
    let me = session.you ?? "p1"
    log(.info, "created game \(session.game ?? "?") (four, bot level \(bot)); playing \(me)")
    var k = 0
    var final: (seq: Int, state: JSONValue)?
    while true {
        let change = try await firstChange(session) { c in
            ended(c.state) || (c.state["status"]?.stringValue == "playing" && c.state["turn"]?.stringValue == me)
        }
        if ended(change.state) { break }
        let state = try change.state.decode(FourInARowState.self)
        let open = state.openColumns
        if open.isEmpty {
            await waitForChange(session, after: change.seq, atMost: 1)
            continue
        }
        let column = open[rng.below(open.count)]
        // Subscribed before the move, so that the state at its seq can be found afterwards even
        // if the bot's answer has already been applied.
        let following = session.changes
        do {
            let ack = try await session.tap("/columns/\(column)", basedOn: change.seq)
            k += 1
            out(JSONValue.serializedObject([
                "move": .number(Double(k)), "id": .string(ack.id),
                "seq": ack.seq.map { .number(Double($0)) } ?? .null, "column": .number(Double(column)),
            ]))
            if let moves, k >= moves {
                for await c in following where c.seq >= (ack.seq ?? c.seq) {
                    final = (c.seq, c.state)
                    break
                }
                break
            }
        } catch let error as BoardcastError {
            if error.code == "closed" { throw error }
            // stale: the server showed a newer state first; illegal-move, unavailable,
            // rate-limited: look again at the state, and choose again once it moved or in a moment.
            log(error.code == "stale" ? .debug : .info, "move refused (\(error.code): \(error.message)); choosing again")
            if error.code != "stale" { await waitForChange(session, after: change.seq, atMost: 1) }
        }
    }
    guard let (seq, state) = final ?? session.current else { throw BoardcastError.closed("no state") }
    out(JSONValue.serializedObject([
        "game": .string(session.game ?? ""), "seq": .number(Double(seq)),
        "status": state["status"] ?? .null, "state": state,
    ]))
    await session.leave()
    await client.close()
    return 0
}

/// watch: every state of the game, once each and in order, until it ends or reaches a seq.
func watch(url: URL, game: String, untilSeq: Int?) async throws -> Int32 {
    let client = BoardcastClient(url: url, log: log)
    let session = client.watching(game: game)
    // Subscribed before the first snapshot: no state is missed.
    let changes = session.changes
    let statusTask = try await started(session, of: client)
    defer { statusTask.cancel() }
    log(.info, "watching game \(game) from seq \(session.seq.map(String.init) ?? "?")")
    var last = -1
    var finished = false
    for await change in changes {
        if change.seq <= last { continue }  // the same seq again (a snapshot after a resync)
        if last >= 0 && change.seq != last + 1 { log(.warn, "seq \(last + 1) to \(change.seq - 1) were never shown") }
        last = change.seq
        out(JSONValue.serializedObject(["seq": .number(Double(change.seq)), "state": change.state]))
        if ended(change.state) || (untilSeq.map { change.seq >= $0 } ?? false) {
            finished = true
            break
        }
    }
    if !finished {
        await client.close()
        throw BoardcastError.closed("the game could not be watched any more")
    }
    await session.leave()
    await client.close()
    return 0
}

func logStatus(_ session: GameSession) -> Task<Void, Never> {
    Task {
        for await status in session.statuses {
            if status == .ready { log(.info, "in game \(session.game ?? "?") at seq \(session.seq.map(String.init) ?? "?")") }
        }
    }
}

func main(_ argv: [String]) async -> Int32 {
    let command = argv.first
    let rest = Array(argv.dropFirst())
    do {
        switch command {
        case "play":
            let a = try parse(rest, flags: ["--seed", "--moves", "--bot"])
            guard a.positional.count == 1 else { throw UsageError(message: "play takes one URL") }
            var seed = UInt64.random(in: 0..<(UInt64(1) << 53))
            if let text = a.values["--seed"] {
                guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let s = UInt64(text) else {
                    throw UsageError(message: "--seed must be a non-negative integer")
                }
                seed = s
            }
            let moves = try integer(a.values["--moves"], "--moves", min: 1)
            let bot = try integer(a.values["--bot"], "--bot", min: 1) ?? 1
            let u = try url(a.positional[0])
            return try await play(url: u, seed: seed, moves: moves, bot: bot)
        case "watch":
            let a = try parse(rest, flags: ["--until-seq"])
            guard a.positional.count == 2 else { throw UsageError(message: "watch takes a URL and a GAME") }
            let untilSeq = try integer(a.values["--until-seq"], "--until-seq", min: 0)
            let u = try url(a.positional[0])
            return try await watch(url: u, game: a.positional[1], untilSeq: untilSeq)
        case "--help", "-h", "help":
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 0
        default:
            throw UsageError(message: command.map { "unknown command \($0)" } ?? "no command")
        }
    } catch let error as UsageError {
        FileHandle.standardError.write(Data("boardcast-client: \(error.message)\n\(usage)\n".utf8))
        return 2
    } catch let error as BoardcastError {
        log(.warn, "\(error.code): \(error.message)")
        return 1
    } catch {
        FileHandle.standardError.write(Data("boardcast-client: \(error)\n".utf8))
        return 1
    }
}

exit(await main(Array(CommandLine.arguments.dropFirst())))
