// storage-bench: durable moves per second and commit latency, written the way the
// server writes them: each accepted move is one StoreBatch (its command and the game's
// new summary row) submitted to a CommitQueue, which writes whatever is pending in one
// transaction (group commit).
//
//   swift run -c release storage-bench [--quick] [--store postgresql://USER@HOST:PORT/DB] [--three-only]
//   Benchmarks/storage-bench/run-postgres.sh [--quick] [--three-only]   (starts a private PostgreSQL)
//   Benchmarks/storage-bench/run-postgres.sh --profile-postgres       (only three writers on PostgreSQL, paced: to profile)
//
// Without --store: SQLite in a temporary folder, one writer (synchronous FULL and NORMAL).
// With --store: the same scenarios on that PostgreSQL database too (use a scratch database:
// the bench leaves its games there), and the three-writer scenario side by side on both:
// three CommitQueues, each with its own store instance and its own 100 games, as three
// cluster nodes (SQLite: one file per node; PostgreSQL: one shared database, fenced batches).
//
// Latency is submit -> onCommitted (the moment the server could send the diff).
// Every scenario is bounded in moves and in seconds.

import Core
import Foundation
import Realtime

let arguments = CommandLine.arguments
let quick = arguments.contains("--quick")
let threeOnly = arguments.contains("--three-only")
/// Three writers on PostgreSQL only, at the paced load: one phase to profile.
let profilePhase = arguments.contains("--profile-postgres")
let timeCap: UInt64 = (quick ? 2 : 8) * 1_000_000_000
let postgres: PostgresStoreConfiguration? = {
    guard let index = arguments.firstIndex(of: "--store"), index + 1 < arguments.count else { return nil }
    do {
        guard case .postgres(let configuration) = try StoreLocation.parse(arguments[index + 1]) else {
            fatalError("--store takes a postgresql:// URL (SQLite runs anyway)")
        }
        return configuration
    } catch {
        fatalError("\(error)")
    }
}()

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Bytes this process has caused to be written to disk (Linux), to see what a commit costs in I/O.
func diskBytesWritten() -> UInt64? {
    guard let io = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
    let line = io.split(separator: "\n").first { $0.hasPrefix("write_bytes:") }
    return line.flatMap { UInt64($0.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces)) }
}

/// Where a rig's games go.
enum BenchStore {
    case sqlite(SQLiteGameStore.Sync)
    case postgres(PostgresStoreConfiguration)

    var label: String {
        switch self {
        case .sqlite(let durability): return "SQLite \(durability.rawValue)"
        case .postgres: return "PostgreSQL"
        }
    }

    /// A store instance of its own (a node's), and what removes it afterwards.
    func open() throws -> (store: any GameStore, cleanup: () -> Void) {
        switch self {
        case .sqlite(let durability):
            let directory = NSTemporaryDirectory() + "storage-bench-" + UUID().uuidString
            let store = try SQLiteGameStore(directory: directory, durability: durability)
            return (store, { try? FileManager.default.removeItem(atPath: directory) })
        case .postgres(let configuration):
            return (try PostgresGameStore(configuration: configuration), {})
        }
    }
}

/// What the queue reported, and when: shared by the writer thread and the driver.
final class CommitLog: @unchecked Sendable {  // every field is guarded by `condition`
    private let condition = NSCondition()
    private var committed: UInt64 = 0
    private var reports: [(ticket: UInt64, at: UInt64)] = []
    private var failure: String?

    func record(_ ticket: UInt64, _ outcome: WriteOutcome) {
        let at = now()
        condition.lock()
        if !outcome.wroteEverything { failure = "games refused: \(outcome.refused)" }
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
        if let failure { fatalError("storage failed: \(failure)") }
        return reports
    }
}

struct Result {
    var scenario: String
    var store: String
    var moves: Int
    var transactions: Int
    var seconds: Double
    var latenciesMs: [Double]  // sorted
    var diskBytes: UInt64?

    func percentile(_ p: Double) -> Double {
        latenciesMs[min(latenciesMs.count - 1, Int(Double(latenciesMs.count) * p))]
    }

    var movesPerSecond: Double { Double(moves) / seconds }
}

/// One writer (a node): a store of its own, a queue, and `games` games already created.
// @unchecked Sendable: a rig is driven by one thread at a time, handed to it before the
// thread starts and taken back after it is joined.
final class Rig: @unchecked Sendable {
    let store: any GameStore
    private let cleanup: () -> Void
    let log = CommitLog()
    let queue: CommitQueue
    let gameIDs: [String]
    /// The node whose fence every batch carries (a cluster node on a shared store).
    let node: String?
    var seqs: [Int]
    var submittedAt: [UInt64] = [0]  // by ticket; ticket 0 does not exist
    var random = SplitMix64(seed: 7)
    var diskBytesAtStart: UInt64?

    init(games: Int, on where: BenchStore, node: String? = nil) throws {
        (store, cleanup) = try `where`.open()
        self.node = node
        let log = self.log
        queue = CommitQueue(store: store, onCommitted: { log.record($0, $1) }, onFailure: { log.fail($1) })
        gameIDs = (0..<games).map { "g\($0)-" + String(UInt64.random(in: 0..<1 << 40), radix: 36) }
        seqs = Array(repeating: 0, count: games)
        let created = Date().timeIntervalSince1970
        queue.submit(StoreBatch(
            games: gameIDs.map { game($0, seq: 0, time: created) }, newGames: Set(gameIDs), fence: fence([])))
        queue.flush()
        submittedAt.append(0)
        diskBytesAtStart = diskBytesWritten()
    }

    /// New games start at epoch 1, owned by the rig's node.
    func fence(_ games: [String]) -> StoreFence? {
        node.map { node in StoreFence(node: node, epochs: Dictionary(uniqueKeysWithValues: games.map { ($0, 1) })) }
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
            player: "p1", clientID: "\"" + String(random.next() >> 16, radix: 36) + "\"", time: time,
            diff: #"{"type":"diff","game":"\#(id)","seq":\#(seq),"ops":[{"op":"move","from":"/tableau/3/4","path":"/foundations/1/-"}]}"#)
        let started = now()
        let ticket = queue.submit(StoreBatch(games: [game(id, seq: seq, time: time)], commands: [command], fence: fence([id])))
        precondition(ticket == UInt64(submittedAt.count))
        submittedAt.append(started)
        return ticket
    }

    /// Waits for everything submitted, stops the queue and returns the latency of every ticket
    /// after the set-up one (sorted is left to the caller), the transactions, the end time.
    func drain() -> (latencies: [Double], transactions: Int, ended: UInt64) {
        queue.flush()
        let ended = now()
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
        cleanup()
        return (latencies, reports.count, ended)
    }

    func finish(_ scenario: String, store label: String, started: UInt64) -> Result {
        let (latencies, transactions, ended) = drain()
        let diskBytes = diskBytesWritten().flatMap { end in diskBytesAtStart.map { end - $0 } }
        return Result(
            scenario: scenario, store: label, moves: latencies.count, transactions: transactions,
            seconds: Double(ended - started) / 1e9, latenciesMs: latencies.sorted(), diskBytes: diskBytes)
    }
}

/// (a) One player, one game: each move waits for its commit before the next.
func oneMoveAtATime(_ store: BenchStore) throws -> Result {
    let rig = try Rig(games: 1, on: store)
    let limit = quick ? 300 : 2000
    let started = now()
    for _ in 0..<limit where now() - started < timeCap {
        let ticket = rig.move(0)
        var committed: UInt64 = 0
        while committed < ticket { committed = rig.log.waitBeyond(committed) }
    }
    return rig.finish("1 game, one move at a time", store: store.label, started: started)
}

/// A game's next move is submitted as soon as its previous one is committed (its player saw
/// the diff), from one driver thread like the server's.
func closedLoop(_ rig: Rig, limit: Int, started: UInt64) {
    let games = rig.gameIDs.count
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
}

/// (b) 100 games, each with one move in flight.
func hundredGamesClosedLoop(_ store: BenchStore) throws -> Result {
    let rig = try Rig(games: 100, on: store)
    let started = now()
    closedLoop(rig, limit: quick ? 5_000 : 40_000, started: started)
    return rig.finish("100 games, 1 move in flight each", store: store.label, started: started)
}

/// (c) 100 games flooding: moves submitted as fast as one thread can, never waiting.
func hundredGamesFlood(_ store: BenchStore) throws -> Result {
    let games = 100
    let rig = try Rig(games: games, on: store)
    let limit = quick ? 10_000 : 100_000
    let started = now()
    for i in 0..<limit where now() - started < timeCap {
        rig.move(i % games)
    }
    return rig.finish("100 games, open-loop flood", store: store.label, started: started)
}

/// Moves at `rate` per second, spread over the rig's games, submitted on a 1 ms tick.
func paced(_ rig: Rig, rate: Double, started: UInt64) {
    var submitted = 0
    var index = 0
    while now() - started < timeCap {
        let due = Int(Double(now() - started) / 1e9 * rate)
        while submitted < due {
            rig.move(index)
            index = (index + 1) % rig.gameIDs.count
            submitted += 1
        }
        usleep(1000)  // pacing the load, not waiting for an event
    }
}

/// (d) Three nodes, each with its own store instance, queue and 100 games, writing at once;
/// on PostgreSQL into one database with fenced batches. `rate`: total moves per second,
/// paced; nil: each game has one move in flight (as many as the stores take).
func threeWriters(_ store: BenchStore, rate: Double?) throws -> Result {
    let fenced: Bool = if case .postgres = store { true } else { false }
    let rigs = try (1...3).map { try Rig(games: 100, on: store, node: fenced ? "node-\($0)" : nil) }
    let started = now()
    let threads = DispatchGroup()
    for rig in rigs {
        threads.enter()
        Thread {
            if let rate { paced(rig, rate: rate / 3, started: started) } else {
                closedLoop(rig, limit: quick ? 15_000 : 150_000, started: started)
            }
            threads.leave()
        }.start()
    }
    threads.wait()
    let drained = rigs.map { $0.drain() }
    let ended = drained.map(\.ended).max()!
    let load = rate.map { "paced \(Int($0))/s" } ?? "1 in flight per game"
    return Result(
        scenario: "3 writers x 100 games, \(load)", store: store.label, moves: drained.map(\.latencies.count).reduce(0, +),
        transactions: drained.map(\.transactions).reduce(0, +), seconds: Double(ended - started) / 1e9,
        latenciesMs: drained.flatMap(\.latencies).sorted(), diskBytes: nil)
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func number(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

var stores: [BenchStore] = [.sqlite(.full), .sqlite(.normal)]
if let postgres { stores.append(.postgres(postgres)) }
print("storage-bench: \(stores.map(\.label).joined(separator: ", "))\(quick ? " (quick)" : ""), temp dir \(NSTemporaryDirectory())"
    + (postgres.map { ", \($0.redactedURL)" } ?? ""))
var results: [Result] = []
if !threeOnly && !profilePhase {
    for store in stores {
        results.append(try oneMoveAtATime(store))
        results.append(try hundredGamesClosedLoop(store))
        results.append(try hundredGamesFlood(store))
    }
}
if profilePhase, let postgres {
    results.append(try threeWriters(.postgres(postgres), rate: 10_500))
} else if postgres != nil || threeOnly {
    // The three-writer comparison: SQLite (a file per node, as nodes without --store) and, with
    // --store, PostgreSQL (one database), at a paced load and at as much as each takes.
    let threeStores = [BenchStore.sqlite(.full)] + (postgres.map { [BenchStore.postgres($0)] } ?? [])
    for rate in [10_500.0, nil] {
        for store in threeStores { results.append(try threeWriters(store, rate: rate)) }
    }
}
print()
print(pad("scenario", 44) + pad("store", 15) + pad("moves", 8) + pad("txns", 8) + pad("moves/txn", 11)
    + pad("moves/s", 10) + pad("p50 ms", 9) + pad("p99 ms", 9) + pad("max ms", 9) + "disk KB/move")
for r in results {
    print(pad(r.scenario, 44) + pad(r.store, 15) + pad("\(r.moves)", 8) + pad("\(r.transactions)", 8)
        + pad(number(Double(r.moves) / Double(r.transactions), 1), 11) + pad(number(r.movesPerSecond, 0), 10)
        + pad(number(r.percentile(0.5), 3), 9) + pad(number(r.percentile(0.99), 3), 9) + pad(number(r.latenciesMs.last!, 3), 9)
        + (r.diskBytes.map { number(Double($0) / 1024 / Double(r.moves), 1) } ?? "n/a"))
}

if !threeOnly && !profilePhase {
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
}
