import Core
import Foundation
@testable import Realtime

/// Drives the hub as the server would, with no sockets and no threads: it feeds
/// events, records every action, and (as the test chooses) stores batches in an
/// in-memory store, commits them, and answers loads and reads from that store.
final class HubHarness {
    let hub: Hub
    let store: SQLiteGameStore
    /// The one clock: tests move it by hand.
    var now = Instant(monotonic: 1000, unixTime: 1_800_000_000)
    /// Commit every stored batch as soon as the event that made it is handled.
    var autoCommit: Bool
    /// Answer loads and storage reads at once; otherwise they wait in `pendingReads`.
    var autoRead = true

    private var sent: [ConnectionID: [String]] = [:]
    private(set) var batches: [StoreBatch] = []
    private(set) var lastTicket: UInt64 = 0
    private(set) var closed: [ConnectionID: UInt16] = [:]
    /// Every action of the last event, in order (what the driver would have carried out).
    private(set) var actions: [HubAction] = []
    private(set) var pendingReads: [StorageRead] = []
    private(set) var loads: [String] = []
    private(set) var resumes = 0
    /// Every `wake` the hub asked for, in order (the shell keeps one timer: the last counts).
    private(set) var wakes: [Instant] = []
    /// Storage fails every write from now on (the ticket is reported failed instead).
    var failWrites = false
    /// Storage takes each write and never stores it: the test reports how it ended (a store cut off).
    var hangWrites = false
    /// Run solver jobs at once (with `solverBudget`); otherwise they wait in `pendingSolves`.
    var autoSolve = true
    var solverBudget = 300_000
    private(set) var solves: [SolveJob] = []
    private(set) var pendingSolves: [SolveJob] = []
    private var open: Set<ConnectionID> = []

    /// Node n1 on a store shared by nodes, with a Klondike game played one move by connection 1
    /// (connections `others` open too), its reads held from then on (`autoRead` off).
    static func sharedStoreGame(others: [ConnectionID] = []) -> (HubHarness, String) {
        var config = Hub.Config(games: .standard)
        config.sharedStoreNode = "n1"
        let h = HubHarness(config: config)
        h.open(1)
        for id in others { h.open(id) }
        let (game, _) = h.createKlondike(1)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        _ = h.take(1)
        h.autoRead = false
        return (h, game)
    }

    func finishSolves() {
        let jobs = pendingSolves
        pendingSolves = []
        for job in jobs { run(.solved(SolverWork.run(job, budget: solverBudget, prover: hub.config.games.prover))) }
    }

    init(autoCommit: Bool = true, config: Hub.Config = Hub.Config(games: .standard), store: SQLiteGameStore? = nil,
         provenSeeds: [ProvenSeed] = []) {
        self.autoCommit = autoCommit
        self.store = store ?? (try! SQLiteGameStore.inMemory())
        let random = LockedRandom()
        hub = Hub(config: config, random: { random.next() }, provenSeeds: provenSeeds)
    }

    /// Moves the clock on.
    func advance(_ seconds: Double) { now = now + seconds }

    // MARK: Events

    func open(_ id: ConnectionID, query: [String: String] = [:], address: ClientAddress = ClientAddress("127.0.0.1")!) {
        open.insert(id)
        run(.opened(id, address, query: query))
    }

    func send(_ id: ConnectionID, _ text: String) { run(.frame(id, Array(text.utf8))) }

    func close(_ id: ConnectionID) {
        open.remove(id)
        run(.closed(id))
    }

    func tick() { run(.tick) }

    /// The instant of the last `wake` has come (the clock is not moved).
    func due() { run(.due) }

    func commit(upTo ticket: UInt64) { run(.committed(upTo: ticket, refused: [:])) }

    func commitAll() { commit(upTo: lastTicket) }

    func http(_ path: String, query: String? = nil) -> HTTPResponse? {
        nextHTTP += 1
        let id = nextHTTP
        run(.http(id, path: path, query: query))
        return responses.removeValue(forKey: id)
    }

    private var nextHTTP: HTTPRequestID = 0
    private var responses: [HTTPRequestID: HTTPResponse] = [:]

    /// Answers the reads that waited (`autoRead` off), in order.
    func finishReads() {
        let reads = pendingReads
        pendingReads = []
        for read in reads { run(.read(answer(read))) }
    }

    // MARK: Carrying out actions

    func run(_ event: HubEvent) {
        actions = []
        var queue: [HubEvent] = [event]
        while !queue.isEmpty {
            let next = queue.removeFirst()
            for action in hub.handle(next, at: now) {
                actions.append(action)
                queue += carryOut(action)
            }
            if queue.isEmpty && autoCommit && lastCommitted < lastTicket && !failWrites {
                lastCommitted = lastTicket
                queue.append(.committed(upTo: lastTicket, refused: [:]))
            }
        }
    }

    private var lastCommitted: UInt64 = 0

    private func carryOut(_ action: HubAction) -> [HubEvent] {
        switch action {
        case .send(let frame, let id):
            sent[id, default: []].append(frame.text)
        case .broadcast(let frame, let audience, _):
            for id in audience { sent[id, default: []].append(frame.text) }
        case .close(let id, let code, _):
            closed[id] = code
        case .store(let batch, let ticket):
            lastTicket = ticket
            batches.append(batch)
            if failWrites { return [.storageFailed(ticket...ticket, reason: "disk full")] }
            if hangWrites { return [] }
            try! store.write(batch)
        case .resumeStorage:
            resumes += 1
        case .wake(let instant):
            wakes.append(instant)
        case .read(let read):
            if case .load(let game) = read { loads.append(game) }
            if autoRead { return [.read(answer(read))] }
            pendingReads.append(read)
        case .solve(let job):
            solves.append(job)
            if autoSolve { return [.solved(SolverWork.run(job, budget: solverBudget, prover: hub.config.games.prover))] }
            pendingSolves.append(job)
        case .respond(let id, let response):
            responses[id] = response
        case .link, .remote, .countError, .countRefusal, .countSignIn, .log:
            break
        }
        return []
    }

    private func answer(_ read: StorageRead) -> StorageAnswer {
        switch read {
        case .load(let game):
            return .loaded(game: game, GameLoader.load(game, from: store, games: hub.config.games, windowSize: 128, asOf: now.unixTime))
        case .history(let request):
            let frames = (try? store.diffs(game: request.game, after: request.after, limit: request.limit)) ?? []
            return .history(token: request.token, frames: frames)
        case .command(let token, let game, let clientID):
            return .command(token: token, seq: (try? store.command(game: game, clientID: clientID))?.seq)
        case .listing(let token, let query):
            let games = try? store.recentGames(kind: query.kind?.rawValue, statuses: query.words, limit: query.limit)
            return .listing(token: token, games: games)
        case .chat(let token, let game, let through):
            return .chat(token: token, lines: (try? store.chat(game: game, after: -1, through: through, limit: 10_000)) ?? [])
        case .acquire(let game, let node, _):
            switch GameLoader.load(game, from: store, games: hub.config.games, windowSize: 128, asOf: now.unixTime) {
            case .loaded(let loaded): return .acquired(game: game, .loaded(loaded, GameOwnership(node: node, epoch: 1)))
            case .notFound: return .acquired(game: game, .notFound)
            case .failed(let why): return .acquired(game: game, .failed(why))
            }
        case .release:
            return .ownerships(token: 0, [:])
        case .ownerships(let token, _):
            return .ownerships(token: token, [:])
        }
    }

    // MARK: Reading what was sent

    /// Takes and returns what a connection received so far, parsed (plain-text lines as strings).
    func take(_ id: ConnectionID) -> [JSON] {
        defer { sent[id] = [] }
        return (sent[id] ?? []).map { (try? JSONText.parse($0)) ?? .string($0) }
    }

    func types(_ id: ConnectionID) -> [String] { take(id).map { $0["type"]?.stringValue ?? "text" } }

    /// A Plane game of connection 1 with one shape it selected, watched by connection 2 (both
    /// open, their replies taken): its id.
    func planeWithASelection() -> String {
        open(1)
        open(2)
        send(1, #"{"type":"create","kind":"plane","options":{"seed":5}}"#)
        let game = take(1)[0]["game"]!.stringValue!
        send(2, #"{"type":"watch","game":"\#(game)"}"#)
        send(1, #"{"type":"add"}"#)
        _ = take(2)
        return game
    }

    /// Creates a Klondike game from connection `id`; returns (game, token).
    func createKlondike(_ id: ConnectionID, options: String = #"{"seed":42}"#) -> (String, String) {
        send(id, #"{"type":"create","kind":"klondike","options":\#(options)}"#)
        let created = take(id).first { $0["type"] == "created" }!
        return (created["game"]!.stringValue!, created["token"]!.stringValue!)
    }
}

/// A seeded generator the hub may call from its closure (tests are single-threaded).
private final class LockedRandom: @unchecked Sendable {
    private var state = SplitMix64(seed: 99)
    func next() -> UInt64 { state.next() }
}
