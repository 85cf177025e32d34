// storage-bench: durable moves per second and commit latency, written the way the
// server writes them: each accepted move is one StoreBatch (its command and the game's
// new summary row) submitted to a CommitQueue over an SQLiteGameStore in a temp directory.
//
//   swift run -c release storage-bench [--quick]
//
// Latency is submit -> onCommitted (the moment the server could send the diff).
// Every scenario is bounded in moves and in seconds.

import Core
import Foundation
import Realtime

let quick = CommandLine.arguments.contains("--quick")
let timeCap: UInt64 = (quick ? 2 : 8) * 1_000_000_000

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Bytes this process has caused to be written to disk (Linux), to see what a commit costs in I/O.
func diskBytesWritten() -> UInt64? {
    guard let io = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
    let line = io.split(separator: "\n").first { $0.hasPrefix("write_bytes:") }
    return line.flatMap { UInt64($0.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces)) }
}

/// What the queue reported, and when: shared by the writer thread and the driver.
final class CommitLog: @unchecked Sendable {  // every field is guarded by `condition`
    private let condition = NSCondition()
    private var committed: UInt64 = 0
    private var reports: [(ticket: UInt64, at: UInt64)] = []
    private var failure: String?

    func record(_ ticket: UInt64) {
        let at = now()
        condition.lock()
        committed = ticket
        reports.append((ticket, at))
        condition.broadcast()
        condition.unlock()
    }

    func fail(_ error: any Error) {
        condition.lock()
        failure = "\(error)"
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until a ticket above `seen` is committed; returns the highest committed.
    func waitBeyond(_ seen: UInt64) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        while committed <= seen && failure == nil { condition.wait() }
        if let failure { fatalError("storage failed: \(failure)") }
        return committed
    }

    var allReports: [(ticket: UInt64, at: UInt64)] {
        condition.lock()
        defer { condition.unlock() }
        return reports
    }
}

struct Result {
    var scenario: String
    var durability: SQLiteGameStore.Durability
    var moves: Int
    var transactions: Int
    var seconds: Double
    var latenciesMs: [Double]  // sorted
    var diskBytes: UInt64?

    func percentile(_ p: Double) -> Double {
        latenciesMs[min(latenciesMs.count - 1, Int(Double(latenciesMs.count) * p))]
    }
}

/// A store and queue in a fresh temp directory with `games` games already created.
final class Rig {
    let directory = NSTemporaryDirectory() + "storage-bench-" + UUID().uuidString
    let store: SQLiteGameStore
    let log = CommitLog()
    let queue: CommitQueue
    let gameIDs: [String]
    var seqs: [Int]
    var submittedAt: [UInt64] = [0]  // by ticket; ticket 0 does not exist
    var random = SplitMix64(seed: 7)
    var diskBytesAtStart: UInt64?

    init(games: Int, durability: SQLiteGameStore.Durability) throws {
        store = try SQLiteGameStore(directory: directory, durability: durability)
        let log = self.log
        queue = CommitQueue(store: store, onCommitted: { log.record($0) }, onFailure: { log.fail($1) })
        gameIDs = (0..<games).map { "g\($0)-" + String(UInt64.random(in: 0..<1 << 30), radix: 36) }
        seqs = Array(repeating: 0, count: games)
        let created = Date().timeIntervalSince1970
        queue.submit(StoreBatch(games: gameIDs.map { game($0, seq: 0, time: created) }))
        queue.flush()
        submittedAt.append(0)
        diskBytesAtStart = diskBytesWritten()
    }

    func game(_ id: String, seq: Int, time: Double) -> StoredGame {
        StoredGame(
            id: id, kind: "klondike", options: .object(["draw": 1, "seed": 4_242_424_242, "entropy": "9f86d081884c7d65"]),
            tokenHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            created: time, updated: time, status: "playing", seq: seq)
    }

    /// Submits the next move of game `index`, as the server does after applying it.
    @discardableResult
    func move(_ index: Int) -> UInt64 {
        seqs[index] += 1
        let seq = seqs[index]
        let time = Date().timeIntervalSince1970
        let id = gameIDs[index]
        let command = StoredCommand(
            game: id, seq: seq,
            command: .object(["type": "drag", "from": .string("/tableau/\(seq % 7)/\(seq % 5)"), "to": "/foundations/1"]),
            player: "p1", clientID: "\"" + String(random.next() >> 16, radix: 36) + "\"", time: time)
        let started = now()
        let ticket = queue.submit(StoreBatch(games: [game(id, seq: seq, time: time)], commands: [command]))
        precondition(ticket == UInt64(submittedAt.count))
        submittedAt.append(started)
        return ticket
    }

    /// Latency of every ticket after the set-up one, and how many transactions carried them.
    func finish(_ scenario: String, durability: SQLiteGameStore.Durability, started: UInt64) -> Result {
        queue.flush()
        let ended = now()
        let diskBytes = diskBytesWritten().flatMap { end in diskBytesAtStart.map { end - $0 } }
        let reports = log.allReports.filter { $0.ticket > 1 }
        var latencies: [Double] = []
        var report = reports.makeIterator()
        var current = report.next()
        for ticket in 2..<UInt64(submittedAt.count) {
            while let c = current, c.ticket < ticket { current = report.next() }
            latencies.append(Double(current!.at - submittedAt[Int(ticket)]) / 1e6)
        }
        queue.close()
        try? store.close()
        try? FileManager.default.removeItem(atPath: directory)
        return Result(
            scenario: scenario, durability: durability, moves: latencies.count, transactions: reports.count,
            seconds: Double(ended - started) / 1e9, latenciesMs: latencies.sorted(), diskBytes: diskBytes)
    }
}

/// (a) One player, one game: each move waits for its commit before the next.
func oneMoveAtATime(_ durability: SQLiteGameStore.Durability) throws -> Result {
    let rig = try Rig(games: 1, durability: durability)
    let limit = quick ? 300 : 2000
    let started = now()
    for _ in 0..<limit where now() - started < timeCap {
        let ticket = rig.move(0)
        var committed: UInt64 = 0
        while committed < ticket { committed = rig.log.waitBeyond(committed) }
    }
    return rig.finish("1 game, one move at a time", durability: durability, started: started)
}

/// (b) 100 games, each with one move in flight: a game's next move is submitted as soon as
/// its previous one is committed (its player saw the diff), from one driver thread like the server's.
func hundredGamesClosedLoop(_ durability: SQLiteGameStore.Durability) throws -> Result {
    let games = 100
    let rig = try Rig(games: games, durability: durability)
    let limit = quick ? 5_000 : 40_000
    let started = now()
    var inFlight = (0..<games).map { rig.move($0) }
    var submitted = games
    var committed: UInt64 = 1
    while submitted < limit && now() - started < timeCap {
        committed = rig.log.waitBeyond(committed)
        for index in 0..<games where inFlight[index] <= committed && submitted < limit {
            inFlight[index] = rig.move(index)
            submitted += 1
        }
    }
    return rig.finish("100 games, 1 move in flight each", durability: durability, started: started)
}

/// (c) 100 games flooding: moves submitted as fast as one thread can, never waiting.
func hundredGamesFlood(_ durability: SQLiteGameStore.Durability) throws -> Result {
    let games = 100
    let rig = try Rig(games: games, durability: durability)
    let limit = quick ? 10_000 : 100_000
    let started = now()
    for i in 0..<limit where now() - started < timeCap {
        rig.move(i % games)
    }
    return rig.finish("100 games, open-loop flood", durability: durability, started: started)
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func number(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

print("storage-bench: SQLite \(quick ? "(quick)" : ""), temp dir \(NSTemporaryDirectory())")
var results: [Result] = []
for durability in [SQLiteGameStore.Durability.full, .normal] {
    results.append(try oneMoveAtATime(durability))
    results.append(try hundredGamesClosedLoop(durability))
    results.append(try hundredGamesFlood(durability))
}
print()
print(pad("scenario", 34) + pad("sync", 8) + pad("moves", 8) + pad("txns", 8) + pad("moves/txn", 11)
    + pad("moves/s", 10) + pad("p50 ms", 9) + pad("p99 ms", 9) + pad("max ms", 9) + "disk KB/move")
for r in results {
    print(pad(r.scenario, 34) + pad(r.durability.rawValue, 8) + pad("\(r.moves)", 8) + pad("\(r.transactions)", 8)
        + pad(number(Double(r.moves) / Double(r.transactions), 1), 11) + pad(number(Double(r.moves) / r.seconds, 0), 10)
        + pad(number(r.percentile(0.5), 3), 9) + pad(number(r.percentile(0.99), 3), 9) + pad(number(r.latenciesMs.last!, 3), 9)
        + (r.diskBytes.map { number(Double($0) / 1024 / Double(r.moves), 1) } ?? "n/a"))
}

// JSON text parsing, as the protocol layer will use it on client frames.
let frames = [
    #"{"type":"drag","from":"/tableau/2/4","to":"/foundations/0","id":"k3j4h5"}"#,
    #"{"type":"add","x":120.5,"y":80,"width":150,"height":120,"r":255,"g":128,"b":0,"alpha":7,"id":17}"#,
    #"{"type":"join","game":"k7f3q9","token":"c2VjcmV0LXRva2VuLW9mLTEyOC1iaXRz","since":42}"#,
].map { Array($0.utf8) }
let rounds = quick ? 50_000 : 300_000
var parsedBytes = 0
let parseStart = now()
for i in 0..<rounds {
    let frame = frames[i % frames.count]
    guard case .object = try JSONText.parse(frame) else { fatalError("not an object") }
    parsedBytes += frame.count
}
let parseSeconds = Double(now() - parseStart) / 1e9
print()
print("JSONText.parse: \(rounds) client frames (avg \(parsedBytes / rounds) B): "
    + "\(number(Double(rounds) / parseSeconds / 1e6, 2)) M frames/s, \(number(Double(parsedBytes) / parseSeconds / 1e6, 0)) MB/s")
