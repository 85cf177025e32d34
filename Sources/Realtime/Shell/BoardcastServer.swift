import Foundation
import Logging

public struct ServerOptions: Sendable {
    public var host: String
    public var port: Int
    /// A directory for the SQLite store, or `:memory:` to keep nothing past the process.
    public var data: String
    public var web: String
    public var pingInterval: Int
    /// Seconds without a member or a command after which a game rests in storage only.
    public var idleSeconds: Double = 600
    /// Let several servers listen on the same port (`SO_REUSEPORT`).
    public var reusePort = false
    /// lws's per-connection receive buffer (bytes).
    public var rxBufferSize = 1024

    public init(host: String, port: Int, data: String, web: String, pingInterval: Int) {
        self.host = host
        self.port = port
        self.data = data
        self.web = web
        self.pingInterval = pingInterval
    }
}

/// The whole server: the driver that carries out what the hub decides. lws runs on the
/// calling thread (the service thread, which also owns the hub); storage commits on its
/// writer thread; loads and history reads on a worker queue; a ticker drives time. Other
/// threads reach the service thread only through `inbox` + `waker`.
public final class BoardcastServer {
    private enum InboxItem: Sendable {
        case committed(UInt64)
        case storageFailed(ClosedRange<UInt64>, String)
        case tick
        case stop
        case loaded(String, LoadResult)
        case history(UInt64, [String])
        case commandFound(UInt64, Int?)
        case listed(UInt64, [StoredGame]?)
        case integrity([String])
        case solved(SolveResult)
    }

    private let options: ServerOptions
    private let logger: Logger
    private let metrics = ServerMetrics()
    private let lws: LWSContext
    private let hub: Hub
    private let hubConfig: Hub.Config
    private let store: SQLiteGameStore
    private let commits: CommitQueue
    private let inbox = LockedBox<[InboxItem]>([])
    /// Loads, history pages and lookups: reads that must never run on the service thread.
    private let readers = DispatchQueue(label: "boardcast-read", attributes: .concurrent)
    /// The solver pool: a hard deal takes up to its budget, so it runs here, never on the
    /// service thread; one worker per core but the service thread's.
    private let solvers = DispatchQueue(label: "boardcast-solve", attributes: .concurrent)
    private let solverSlots = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))
    private var keepalive: KeepaliveWheel
    private var ticker: DispatchSourceTimer?
    private var stopping = false
    private var stopDeadline = Date.distantFuture
    /// Set while storage writes fail, until one succeeds: `/healthz` says so.
    private var storageProblem: String?
    /// Set for good when the background integrity check finds damage.
    private var damage: String?

    public init(options: ServerOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        var lwsConfig = LWSConfig(host: options.host, port: options.port, webRoot: options.web)
        lwsConfig.reusePort = options.reusePort
        lwsConfig.rxBufferSize = options.rxBufferSize
        lws = LWSContext(config: lwsConfig)
        keepalive = KeepaliveWheel(intervalSeconds: options.pingInterval)
        let store = options.data == ":memory:" ? try SQLiteGameStore.inMemory() : try SQLiteGameStore(directory: options.data)
        self.store = store
        let inbox = self.inbox
        let waker = lws.waker
        commits = CommitQueue(
            store: store,
            onCommitted: { ticket in
                inbox.withLock { $0.append(.committed(ticket)) }
                waker.wake()
            },
            onFailure: { tickets, error in
                inbox.withLock { $0.append(.storageFailed(tickets, "\(error)")) }
                waker.wake()
            })
        var config = Hub.Config()
        config.idleSeconds = options.idleSeconds
        hubConfig = config
        hub = Hub(config: config, random: { var secure = SystemRandomNumberGenerator(); return secure.next() },
                  gameIDIsTaken: { id in (try? store.game(id: id)) != nil },
                  winnableSeeds: (try? store.winnableSeeds()) ?? [])
        lws.events = self
        try restoreLiveGames()
    }

    /// Loads the games that were live when the server stopped (a command within `--idle`
    /// seconds): the others rest in storage, so start-up does not grow with stored games.
    private func restoreLiveGames() throws {
        let started = ContinuousClock.now
        let now = Date().timeIntervalSince1970
        let live = try store.games(updatedSince: now - options.idleSeconds)
        for stored in live {
            let loaded = try GameLoader.rebuild(stored, from: store, windowSize: hubConfig.windowSize)
            perform(hub.loaded(stored.id, .loaded(loaded), now: now))
        }
        commits.flush()
        wokenUp()
        logger.info("live games restored", metadata: ["games": "\(live.count)", "took": "\(ContinuousClock.now - started)"])
    }

    /// Listens, prints `listening on http://HOST:PORT`, and serves until `requestStop()`.
    public func run() throws {
        try lws.start()
        let line = "listening on http://\(options.host):\(lws.boundPort)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let inbox = self.inbox
        let waker = lws.waker
        timer.setEventHandler { @Sendable in
            inbox.withLock { $0.append(.tick) }
            waker.wake()
        }
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.resume()
        ticker = timer
        if store.integrityCheckDeferred {
            let store = self.store
            read { .integrity((try? store.integrityProblems()) ?? ["the integrity check could not read the file"]) }
        }
        while !(stopping && keepalive.count == 0) {
            lws.runOnce()
            if stopping && Date() > stopDeadline { break }
        }
        timer.cancel()
        commits.close()
        do {
            try store.close()
        } catch {
            logger.error("closing the game database failed", metadata: ["error": "\(error)"])
        }
        lws.shutdown()
        logger.info("server stopped")
    }

    /// Asks the server to close every connection with 1001, flush storage and return from `run`.
    public func requestStop() { stopper.stop() }

    /// A handle other threads (signal handlers) may keep to stop the server.
    public var stopper: Stopper {
        let inbox = self.inbox
        let waker = lws.waker
        return Stopper {
            inbox.withLock { $0.append(.stop) }
            waker.wake()
        }
    }

    public struct Stopper: Sendable {
        let action: @Sendable () -> Void
        public func stop() { action() }
    }

    private func stop() {
        guard !stopping else { return }
        stopping = true
        stopDeadline = Date().addingTimeInterval(3)
        logger.info("shutting down")
        // Accepted moves go out (and are stored) before the connections close.
        commits.flush()
        wokenUp()
        lws.beginStopping(connections: keepalive.all)
    }

    // MARK: Carrying out the hub's actions

    private func perform(_ actions: [HubAction]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: HubAction) {
        switch action {
        case .send(let frame, let connection):
            lws.send(frame, to: connection)
            metrics.messagesOut.increment()
            metrics.bytesOut.increment(by: Int64(frame.count))
        case .broadcast(let frame, let recipients, let arrival):
            for connection in recipients { lws.send(frame, to: connection) }
            metrics.messagesOut.increment(by: Int64(recipients.count))
            metrics.bytesOut.increment(by: Int64(recipients.count * frame.count))
            if let arrival { metrics.moveLatency.record(ContinuousClock.now - arrival) }
        case .close(let connection, let code, let reason):
            lws.close(connection, code: code, reason: reason)
        case .store(let batch, let ticket):
            let issued = commits.submit(batch)
            precondition(issued == ticket, "the hub and the commit queue count tickets alike")
        case .resumeStorage:
            commits.resume()
        case .load(let game):
            metrics.gamesLoaded.increment()
            let store = self.store
            let window = hubConfig.windowSize
            read { .loaded(game, GameLoader.load(game, from: store, windowSize: window)) }
        case .readHistory(let request):
            let store = self.store
            read { .history(request.token, (try? store.diffs(game: request.game, after: request.after, limit: request.limit)) ?? []) }
        case .lookupCommand(let token, let game, let clientID):
            let store = self.store
            read { .commandFound(token, (try? store.command(game: game, clientID: clientID))?.seq) }
        case .listStoredGames(let token, let query):
            let store = self.store
            read {
                .listed(token, try? store.recentGames(kind: query.kind?.rawValue, status: query.status, limit: query.limit))
            }
        case .respond(let request, let response):
            lws.respond(request, response)
        case .solve(let job):
            let inbox = self.inbox
            let waker = lws.waker
            let slots = solverSlots
            let budget = hubConfig.solverBudget
            solvers.async {
                slots.wait()
                let result = SolverWork.run(job, budget: budget)
                slots.signal()
                inbox.withLock { $0.append(.solved(result)) }
                waker.wake()
            }
        case .countError(let code):
            metrics.countError(code)
        case .log(let line):
            var metadata = Logger.Metadata()
            for (key, value) in line.metadata { metadata[key] = .string(value) }
            logger.log(level: line.level, "\(line.message)", metadata: metadata)
        }
    }

    /// Runs a storage read on the readers' queue and posts its result to the service thread.
    private func read(_ work: @escaping @Sendable () -> InboxItem) {
        let inbox = self.inbox
        let waker = lws.waker
        readers.async {
            let item = work()
            inbox.withLock { $0.append(item) }
            waker.wake()
        }
    }

    private var now: Double { Date().timeIntervalSince1970 }
}

extension BoardcastServer: LWSEvents {
    func opened(_ connection: Connection, query: [String: String]) {
        keepalive.add(connection, now: now)
        metrics.connections.increment()
        metrics.connectionsOpened.increment()
        perform(hub.opened(connection, query: query, now: now))
    }

    func received(_ connection: Connection, text: [UInt8]) {
        metrics.messagesIn.increment()
        perform(hub.received(connection, text: text, now: now, arrival: ContinuousClock.now))
    }

    func receivedBinary(_ connection: Connection) {
        metrics.messagesIn.increment()
        perform(hub.receivedBinary(connection, now: now))
    }

    func closed(_ connection: Connection) {
        keepalive.remove(connection)
        metrics.connections.decrement()
        perform(hub.closed(connection, now: now))
    }

    func httpRequest(_ id: HTTPRequestID, path: String, query: String?) -> HTTPResponse? {
        switch path {
        case "/healthz":
            if stopping { return .text(503, "stopping\n") }
            if let damage { return .text(503, "\(damage)\n") }
            if let storageProblem { return .text(503, "storage failing: \(storageProblem)\n") }
            return .text(200, "ok\n")
        case "/metrics":
            metrics.games.set(Double(hub.liveGameCount))
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4", body: metrics.render())
        default:
            // Answered now if the hub can; later (through `respond`) if it must read storage first.
            var immediate: HTTPResponse?
            for action in hub.http(id, path: path, query: query) {
                if case .respond(let request, let response) = action, request == id {
                    immediate = response
                } else {
                    perform(action)
                }
            }
            return immediate
        }
    }

    func wokenUp() {
        let items = inbox.withLock { items -> [InboxItem] in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
        var highest: UInt64 = 0
        var ticked = false
        let now = self.now
        for item in items {
            switch item {
            case .committed(let ticket):
                highest = max(highest, ticket)
                if storageProblem != nil {
                    storageProblem = nil
                    logger.notice("storage writes succeed again")
                }
            case .storageFailed(let tickets, let why):
                if highest > 0 {
                    perform(hub.committed(upTo: highest))
                    highest = 0
                }
                storageProblem = why
                metrics.storageFailures.increment()
                perform(hub.storageFailed(tickets: tickets, reason: why, now: now))
            case .tick: ticked = true
            case .stop: stop()
            case .loaded(let game, let result): perform(hub.loaded(game, result, now: now))
            case .history(let token, let frames): perform(hub.historyRead(token: token, frames: frames, now: now))
            case .commandFound(let token, let seq): perform(hub.commandFound(token: token, seq: seq, now: now))
            case .listed(let token, let games): perform(hub.storedGamesListed(token: token, games: games))
            case .solved(let result): perform(hub.solved(result, now: now))
            case .integrity(let problems):
                if problems.isEmpty {
                    logger.info("background integrity check of the game database: ok")
                } else {
                    damage = "the game database is damaged: " + problems.prefix(4).joined(separator: "; ")
                    logger.critical("the game database is damaged; stop the server and restore a backup",
                                    metadata: ["quick_check": "\(problems.prefix(4).joined(separator: "; "))"])
                }
            }
        }
        if highest > 0 { perform(hub.committed(upTo: highest)) }
        if ticked {
            perform(hub.tick(now: now))
            let due = keepalive.advance(to: now)
            for connection in due.ping { lws.ping(connection) }
            for connection in due.dead { lws.kill(connection) }
        }
    }
}
