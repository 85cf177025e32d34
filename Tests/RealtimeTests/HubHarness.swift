import Core
import Foundation
@testable import Realtime

/// Drives the hub as the server would, with no sockets and no threads: it feeds
/// events, records every action, and (as the test chooses) stores batches in an
/// in-memory store, commits them, and answers loads and reads from that store.
final class HubHarness {
    let hub: Hub
    let store: SQLiteGameStore
    var now = 1_800_000_000.0
    /// Commit every stored batch as soon as the event that made it is handled.
    var autoCommit: Bool
    /// Answer loads and storage reads at once; otherwise they wait in `pendingReads`.
    var autoRead = true

    private(set) var connections: [ConnectionID: Connection] = [:]
    private var sent: [ConnectionID: [String]] = [:]
    private(set) var batches: [StoreBatch] = []
    private(set) var lastTicket: UInt64 = 0
    private(set) var closed: [ConnectionID: UInt16] = [:]
    /// Every action of the last event, in order (what the driver would have carried out).
    private(set) var actions: [HubAction] = []
    private(set) var pendingReads: [HubAction] = []
    private(set) var loads: [String] = []
    private(set) var resumes = 0
    /// What a cluster node would have asked of Redis.
    private(set) var redisActions: [RedisAction] = []
    /// Storage fails every write from now on (the ticket is reported failed instead).
    var failWrites = false
    /// Run solver jobs at once (with `solverBudget`); otherwise they wait in `pendingSolves`.
    var autoSolve = true
    var solverBudget = 300_000
    private(set) var solves: [SolveJob] = []
    private(set) var pendingSolves: [SolveJob] = []

    func finishSolves() {
        let jobs = pendingSolves
        pendingSolves = []
        for job in jobs { run(hub.solved(SolverWork.run(job, budget: solverBudget), now: now)) }
    }

    init(autoCommit: Bool = true, config: Hub.Config = Hub.Config(), store: SQLiteGameStore? = nil,
         winnableSeeds: [WinnableSeed] = []) {
        self.autoCommit = autoCommit
        let store = store ?? (try! SQLiteGameStore.inMemory())
        self.store = store
        let random = LockedRandom()
        hub = Hub(config: config, random: { random.next() }, gameIDIsTaken: { (try? store.game(id: $0)) != nil },
                  winnableSeeds: winnableSeeds)
    }

    /// A test ends as the server's clients do: every open connection closes, which breaks
    /// the references a connection in a game and its room hold to each other. Otherwise the
    /// rooms and connections of a test outlive it as cycles, which LeakSanitizer reports
    /// (`swift test --sanitize=address`), and a real leak would hide among them.
    deinit {
        for connection in connections.values where connection.session.isOpen {
            _ = hub.closed(connection, now: now)
        }
    }

    // MARK: Events

    func open(_ id: ConnectionID, query: [String: String] = [:]) {
        let connection = Connection(id: id, now: now)
        connections[id] = connection
        run(hub.opened(connection, query: query, now: now))
    }

    func send(_ id: ConnectionID, _ text: String) {
        run(hub.received(connections[id]!, text: Array(text.utf8), now: now))
    }

    func close(_ id: ConnectionID) {
        run(hub.closed(connections[id]!, now: now))
    }

    func tick() { run(hub.tick(now: now)) }

    func commit(upTo ticket: UInt64) { run(hub.committed(upTo: ticket)) }

    func commitAll() { commit(upTo: lastTicket) }

    func http(_ path: String, query: String? = nil) -> HTTPResponse? {
        nextHTTP += 1
        let id = nextHTTP
        run(hub.http(id, path: path, query: query))
        return responses.removeValue(forKey: id)
    }

    private var nextHTTP: HTTPRequestID = 0
    private var responses: [HTTPRequestID: HTTPResponse] = [:]

    /// Answers the reads that waited (`autoRead` off), in order.
    func finishReads() {
        let reads = pendingReads
        pendingReads = []
        for read in reads { answer(read) }
    }

    // MARK: Carrying out actions

    func run(_ first: [HubAction]) {
        actions = []
        var queue = first
        while !queue.isEmpty {
            let batch = queue
            queue = []
            for action in batch {
                actions.append(action)
                queue += carryOut(action)
            }
            if queue.isEmpty && autoCommit && lastCommitted < lastTicket && !failWrites {
                lastCommitted = lastTicket
                queue += hub.committed(upTo: lastTicket)
            }
        }
    }

    private var lastCommitted: UInt64 = 0

    private func carryOut(_ action: HubAction) -> [HubAction] {
        switch action {
        case .send(let frame, let connection):
            sent[connection.id, default: []].append(frame.text)
        case .broadcast(let frame, let recipients, _):
            for connection in recipients { sent[connection.id, default: []].append(frame.text) }
        case .close(let connection, let code, _):
            closed[connection.id] = code
        case .store(let batch, let ticket):
            lastTicket = ticket
            batches.append(batch)
            if failWrites {
                return hub.storageFailed(tickets: ticket...ticket, reason: "disk full", now: now)
            }
            try! store.write(batch)
        case .resumeStorage:
            resumes += 1
        case .load(let game):
            loads.append(game)
            if autoRead { return answerNow(action) }
            pendingReads.append(action)
        case .readHistory, .lookupCommand, .listStoredGames:
            if autoRead { return answerNow(action) }
            pendingReads.append(action)
        case .solve(let job):
            solves.append(job)
            if autoSolve { return hub.solved(SolverWork.run(job, budget: solverBudget), now: now) }
            pendingSolves.append(job)
        case .respond(let id, let response):
            responses[id] = response
        case .redis(let action):
            redisActions.append(action)
        case .countError, .log:
            break
        }
        return []
    }

    private func answer(_ read: HubAction) { run(answerNow(read)) }

    private func answerNow(_ read: HubAction) -> [HubAction] {
        switch read {
        case .load(let game):
            return hub.loaded(game, GameLoader.load(game, from: store, windowSize: 128), now: now)
        case .readHistory(let request):
            let frames = (try? store.diffs(game: request.game, after: request.after, limit: request.limit)) ?? []
            return hub.historyRead(token: request.token, frames: frames, now: now)
        case .lookupCommand(let token, let game, let clientID):
            return hub.commandFound(token: token, seq: (try? store.command(game: game, clientID: clientID))?.seq, now: now)
        case .listStoredGames(let token, let query):
            let games = try? store.recentGames(kind: query.kind?.rawValue, status: query.status, limit: query.limit)
            return hub.storedGamesListed(token: token, games: games)
        default:
            return []
        }
    }

    // MARK: Reading what was sent

    /// Takes and returns what a connection received so far, parsed (plain-text lines as strings).
    func take(_ id: ConnectionID) -> [JSON] {
        defer { sent[id] = [] }
        return (sent[id] ?? []).map { (try? JSONText.parse($0)) ?? .string($0) }
    }

    func types(_ id: ConnectionID) -> [String] { take(id).map { $0["type"]?.stringValue ?? "text" } }

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
