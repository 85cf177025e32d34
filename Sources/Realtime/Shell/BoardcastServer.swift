import Foundation
import Logging

/// The whole server: the driver that feeds the hub its events and carries out what it
/// decides. lws runs on the calling thread (the service thread, which also owns the hub and
/// the Redis link); storage commits on its writer thread; loads and history reads on a
/// worker queue; solves on a solver queue; a ticker drives time. Other threads reach the
/// service thread only through `inbox` + `waker`.
public final class BoardcastServer {
    private let options: ServerOptions
    let logger: Logger
    let metrics: ServerMetrics
    let lws: LWSContext
    private let lwsConfig: LWSConfig
    let hub: Hub
    let hubConfig: Hub.Config
    let signIn: SignInSettings
    private let store: any GameStore
    /// The store again when several nodes share it (PostgreSQL): claims, releases, owners.
    private let sharedStore: (any SharedGameStore)?
    /// The store again when it is this node's SQLite file: its background integrity check.
    private let sqlite: SQLiteGameStore?
    private let commits: CommitQueue
    let inbox = LockedBox<[ServiceInboxItem]>([])
    /// Storage reads and solves, off this thread.
    private let work: OffServiceWork
    private let storageReads: StorageReads
    let clock = ServiceClock()
    var keepalive: KeepaliveWheel
    private var ticker: DispatchSourceTimer?
    private var stopping: Bool { health.stopping }
    private var stopDeadline = Date.distantFuture
    /// What `/healthz` says.
    var health = ServerHealth()
    private var probe: StoreProbe?
    /// The cluster: this node's identity and Redis, the hub as a cluster node, and the driver once serving.
    private let identity: ClusterIdentity?
    private let redisAddress: RedisAddress?
    private let clusterNode: ClusterNode?
    private(set) var cluster: ClusterDriver?
    private var reportedCounters = ClusterCounters()
    /// `--retain-days`: when the next batch of untouched games is deleted.
    var retention: RetentionSweep?
    /// When storage's size was last read for `/metrics`.
    private var lastUsageRead = -Double.infinity
    var readingUsage = false

    public init(options: ServerOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        metrics = ServerMetrics(prover: options.games.prover)
        var lwsConfig = LWSConfig(host: options.host, port: options.port, webRoot: options.web)
        lwsConfig.reusePort = options.reusePort
        lwsConfig.folders = options.pages.map { ($0.mountPoint, $0.folder) }
        lwsConfig.rxBufferSize = options.rxBufferSize
        lwsConfig.clientLimits = options.limits
        lwsConfig.auth = options.auth
        lws = LWSContext(config: lwsConfig)
        self.lwsConfig = lwsConfig
        keepalive = KeepaliveWheel(intervalSeconds: options.pingInterval)
        let store: any GameStore
        switch try StoreLocation.parse(options.store ?? options.data) {
        case .sqlite(let directory):
            sqlite = try SQLiteGameStore(directory: directory)
            store = sqlite!
            sharedStore = nil
        case .sqliteInMemory:
            sqlite = try SQLiteGameStore.inMemory()
            store = sqlite!
            sharedStore = nil
        case .postgres(let configuration):
            let postgres = try PostgresGameStore(configuration: configuration)
            store = postgres
            sharedStore = postgres
            sqlite = nil
        }
        self.store = store
        let inbox = self.inbox
        let waker = lws.waker
        commits = CommitQueue(
            store: store,
            onCommitted: { ticket, outcome in
                inbox.withLock { $0.append(.committed(ticket, outcome.refused)) }
                waker.wake()
            },
            onFailure: { tickets, error in
                inbox.withLock { $0.append(.event(.storageFailed(tickets, reason: "\(error)"))) }
                waker.wake()
            })
        var config = Hub.Config(games: options.games)
        config.pages = options.pages
        config.idleSeconds = options.idleSeconds
        config.createsPerMinute = options.limits.createsPerMinute
        config.retainSeconds = options.retainDays.map { $0 * 86_400 }
        config.auth = options.auth
        config.requireAuth = options.requireAuth
        let node = options.node ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        if sharedStore != nil { config.sharedStoreNode = node }
        if options.store == nil && options.data == ":memory:" {
            // Nothing is kept: no game waits for a commit, none can rest (it would be lost), and
            // every diff stays in memory for `since`.
            config.durable = false
            config.idleSeconds = .infinity
            config.windowSize = Int.max
        }
        hubConfig = config
        signIn = SignInSettings(signsIn: options.auth != nil, sites: options.authSites)
        work = OffServiceWork(inbox: inbox, waker: lws.waker, solverBudget: config.solverBudget, prover: config.games.prover)
        storageReads = StorageReads(store: store, sharedStore: sharedStore, windowSize: config.windowSize, games: config.games,
                                    metrics: metrics, work: work)
        let startedAt = clock.now.monotonic
        retention = options.retainDays.map { RetentionSweep(retainDays: $0, start: startedAt) }
        if let url = options.redis {
            let address = try RedisAddress.parse(url)
            // With a shared store, owners are recorded there: ids need no owner's code.
            let code = sharedStore != nil ? "" : try ClusterDriver.claimNodeCode(node: node, store: store, redis: address)
            redisAddress = address
            identity = ClusterIdentity(node: node, code: code, leaseSeconds: options.leaseSeconds)
        } else {
            redisAddress = nil
            identity = nil
        }
        let hub = Hub(config: config, random: { var secure = SystemRandomNumberGenerator(); return secure.next() },
                      provenSeeds: (try? store.provenSeeds()) ?? [])
        self.hub = hub
        clusterNode = identity.map { ClusterNode(hub: hub, identity: $0) }
        lws.events = self
        try restoreLiveGames()
    }

    /// Loads the games that were live when the server stopped (a command within `--idle`
    /// seconds): the others rest in storage, so start-up does not grow with stored games.
    private func restoreLiveGames() throws {
        // A shared store's games belong to whichever node is asked for them: none is loaded ahead.
        guard sharedStore == nil else { return }
        let started = ContinuousClock.now
        let now = clock.now
        let live = try store.games(updatedSince: now.unixTime - options.idleSeconds)
        for stored in live {
            let loaded = try GameLoader.rebuild(stored, from: store, games: hubConfig.games, windowSize: hubConfig.windowSize, asOf: now.unixTime)
            handle(.read(.loaded(game: stored.id, .loaded(loaded))), at: now)
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
            inbox.withLock { $0.append(.event(.tick)) }
            waker.wake()
        }
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.resume()
        ticker = timer
        if let redisAddress, let identity, let loop = lws.loop {
            let driver = ClusterDriver(identity: identity, address: redisAddress, loop: loop) { [weak self] event in
                self?.clusterEvent(event)
            }
            cluster = driver
            driver.tick(now: clock.now.monotonic)
            logger.info("cluster node", metadata: ["node": "\(identity.node)", "code": "\(identity.code)",
                                                   "redis": "\(redisAddress.host):\(redisAddress.port)"])
        }
        if sharedStore != nil {
            probe = StoreProbe.started(store: store, inbox: inbox, waker: lws.waker)
        }
        if let store = sqlite, store.integrityCheckDeferred {
            work.read { .integrity((try? store.integrityProblems()) ?? ["the integrity check could not read the file"]) }
        }
        while !(stopping && keepalive.count == 0) {
            lws.runOnce()
            if stopping && Date() > stopDeadline { break }
        }
        timer.cancel()
        probe?.stop()
        cluster?.close()
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

    func stop() {
        guard !stopping else { return }
        health.stopping = true
        stopDeadline = Date().addingTimeInterval(3)
        logger.info("shutting down")
        // Accepted moves go out (and are stored) before the connections close.
        commits.flush()
        wokenUp()
        lws.beginStopping(connections: keepalive.all)
    }

    // MARK: Carrying out the hub's actions

    func handle(_ event: HubEvent, at now: Instant) {
        for action in hub.handle(event, at: now) { perform(action) }
    }

    private func clusterEvent(_ event: ClusterEvent) {
        switch event {
        case .link(let up):
            if up {
                logger.notice("cluster link up", metadata: ["redis": "\(redisAddress.map { "\($0.host):\($0.port)" } ?? "")"])
            } else {
                logger.warning("cluster link down; this node keeps serving its own games")
            }
            metrics.redisUp.set(up ? 1.0 : 0.0)
        default:
            break
        }
        for action in clusterNode?.receive(event, at: clock.now) ?? [] { perform(action) }
    }

    func perform(_ action: HubAction) {
        switch action {
        case .send(let frame, let id):
            guard let connection = lws.connection(id) else { return }
            lws.send(frame, to: connection)
            metrics.messagesOut.increment()
            metrics.bytesOut.increment(by: Int64(frame.count))
        case .broadcast(let frame, let audience, let arrival):
            let bulk = audience.count > lwsConfig.bulkThreshold
            var sent = 0
            for id in audience {
                guard let connection = lws.connection(id) else { continue }
                lws.send(frame, to: connection, bulk: bulk)
                sent += 1
            }
            metrics.messagesOut.increment(by: Int64(sent))
            metrics.bytesOut.increment(by: Int64(sent * frame.count))
            if let arrival { metrics.moveLatency.record(.seconds(clock.now.since(arrival))) }
        case .link(let order):
            cluster?.carryOut(order)
        case .remote:
            break  // the node link turns these into its own orders; none reach here
        case .close(let id, let code, let reason):
            if let connection = lws.connection(id) { lws.close(connection, code: code, reason: reason) }
        case .store(let batch, let ticket):
            let issued = commits.submit(batch)
            precondition(issued == ticket, "the hub and the commit queue count tickets alike")
        case .resumeStorage:
            commits.resume()
        case .wake(let instant):
            lws.wake(after: instant.since(clock.now))
        case .read(let request):
            storageReads.carryOut(request, asOf: clock.now.unixTime)
        case .respond(let request, let response):
            lws.respond(request, response)
        case .solve(let job):
            work.solve(job)
        case .countError(let code):
            metrics.countError(code)
        case .countRefusal(let limit):
            metrics.countRefusal(limit)
        case .countSignIn(let ok):
            metrics.countSignIn(ok: ok)
        case .log(let line):
            var metadata = Logger.Metadata()
            for field in line.metadata { metadata[field.key] = .string(field.value) }
            logger.log(level: line.level, "\(line.message)", metadata: metadata)
        }
    }

    /// Off the service thread: a batch of games untouched past `--retain-days` deleted when one
    /// is due, and storage's size read for `/metrics` every ten seconds.
    func maintainStorage(now: Instant) {
        let store = self.store
        if let cutoff = retention?.due(monotonic: now.monotonic, unixTime: now.unixTime), let batch = retention?.batch {
            work.read { .deleted(try? store.deleteUntouched(before: cutoff, limit: batch)) }
        }
        if !readingUsage && now.monotonic - lastUsageRead >= 10 {
            readingUsage = true
            lastUsageRead = now.monotonic
            work.read { .usage(try? store.usage()) }
        }
    }

    /// The hub counts; Prometheus counters only go up: add what changed since the last report.
    func reportClusterCounters() {
        guard let now = clusterNode?.counters else { return }
        metrics.forwarded.increment(by: Int64(now.forwarded - reportedCounters.forwarded))
        metrics.published.increment(by: Int64(now.published - reportedCounters.published))
        metrics.received.increment(by: Int64(now.received - reportedCounters.received))
        metrics.gapsFilled.increment(by: Int64(now.gapsFilled - reportedCounters.gapsFilled))
        metrics.resyncs.increment(by: Int64(now.resyncs - reportedCounters.resyncs))
        reportedCounters = now
    }
}
