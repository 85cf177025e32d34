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
    public var rxBufferSize = 512
    /// `redis://HOST:PORT[/DB]`: this server is one node of a cluster (PROTOCOL section 11).
    public var redis: String?
    /// The node's name in the cluster (default: host name and process id).
    public var node: String?
    /// Seconds a node's liveness lease lasts; other nodes answer `unavailable` for its games
    /// once it is that long gone.
    public var leaseSeconds: Double = 15
    /// Limits per client address, trusted proxies, allowed origins (PROTOCOL section 14).
    public var limits = ClientLimits()

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
        case clusterView(codes: [String: String], alive: [String: String], lobbies: [String: [LobbyEntry]])
    }

    private let options: ServerOptions
    private let logger: Logger
    private let metrics = ServerMetrics()
    private let lws: LWSContext
    private let lwsConfig: LWSConfig
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
    /// One thread at the lowest priority for the pool of proven seeds.
    private let poolFiller = DispatchQueue(label: "boardcast-pool")
    private var keepalive: KeepaliveWheel
    private var ticker: DispatchSourceTimer?
    private var stopping = false
    private var stopDeadline = Date.distantFuture
    /// Set while storage writes fail, until one succeeds: `/healthz` says so.
    private var storageProblem: String?
    /// Set for good when the background integrity check finds damage.
    private var damage: String?
    /// The cluster: this node's identity, the Redis address, and the link once serving.
    private let identity: ClusterIdentity?
    private let redisAddress: (host: String, port: Int, database: Int)?
    private var redis: RedisLink?
    /// A random id of this process: its liveness key holds it, so a second process with
    /// the same node name is noticed (fencing).
    private let incarnation = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    private var lastClusterRound = -Double.infinity
    private var claimedAlive = false
    private var reportedCounters = ClusterCounters()

    public init(options: ServerOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        var lwsConfig = LWSConfig(host: options.host, port: options.port, webRoot: options.web)
        lwsConfig.reusePort = options.reusePort
        lwsConfig.rxBufferSize = options.rxBufferSize
        lwsConfig.clientLimits = options.limits
        lws = LWSContext(config: lwsConfig)
        self.lwsConfig = lwsConfig
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
        if options.data == ":memory:" {
            // Nothing is kept: no game waits for a commit, none can rest (it would be lost), and
            // every diff stays in memory for `since`.
            config.durable = false
            config.idleSeconds = .infinity
            config.windowSize = Int.max
        }
        hubConfig = config
        if let url = options.redis {
            let address = try Self.parseRedisURL(url)
            let node = options.node ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
            let code = try Self.claimNodeCode(node: node, store: store, redis: address)
            redisAddress = address
            identity = ClusterIdentity(node: node, code: code, leaseSeconds: options.leaseSeconds)
        } else {
            redisAddress = nil
            identity = nil
        }
        hub = Hub(config: config, random: { var secure = SystemRandomNumberGenerator(); return secure.next() },
                  gameIDIsTaken: { id in (try? store.game(id: id)) != nil },
                  winnableSeeds: (try? store.winnableSeeds()) ?? [], cluster: identity)
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
        if let redisAddress, let identity, let loop = lws.loop {
            let link = RedisLink(host: redisAddress.host, port: redisAddress.port, database: redisAddress.database, loop: loop)
            link.events = self
            link.subscribe(ClusterKeys.nodeChannel(identity.node))
            redis = link
            link.tick(now: now)
            logger.info("cluster node", metadata: ["node": "\(identity.node)", "code": "\(identity.code)",
                                                   "redis": "\(redisAddress.host):\(redisAddress.port)"])
        }
        if store.integrityCheckDeferred {
            let store = self.store
            read { .integrity((try? store.integrityProblems()) ?? ["the integrity check could not read the file"]) }
        }
        while !(stopping && keepalive.count == 0) {
            lws.runOnce()
            if stopping && Date() > stopDeadline { break }
        }
        timer.cancel()
        redis?.close()
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
            if let remote = connection.remote {
                // Another node's connection: the frame goes to that node, which passes it on.
                redis?.command([Array("PUBLISH".utf8), Array(ClusterKeys.nodeChannel(remote.node).utf8),
                                ClusterMessage.reply(connection: remote.connection, frame: frame.bytes).bytes])
                return
            }
            lws.send(frame, to: connection)
            metrics.messagesOut.increment()
            metrics.bytesOut.increment(by: Int64(frame.count))
        case .broadcast(let frame, let recipients, let arrival):
            var local = 0
            let bulk = recipients.count > lwsConfig.bulkThreshold
            for connection in recipients where connection.remote == nil {
                lws.send(frame, to: connection, bulk: bulk)
                local += 1
            }
            metrics.messagesOut.increment(by: Int64(local))
            metrics.bytesOut.increment(by: Int64(local * frame.count))
            if let arrival { metrics.moveLatency.record(ContinuousClock.now - arrival) }
        case .redis(let action):
            perform(action)
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
            if case .refill = job {
                // Filling the pool is for later: it runs at the lowest priority, never taking a core
                // from the service thread or from someone's hint.
                poolFiller.async {
                    setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                    let result = SolverWork.run(job, budget: budget)
                    inbox.withLock { $0.append(.solved(result)) }
                    waker.wake()
                }
                return
            }
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

    private func perform(_ action: RedisAction) {
        guard let redis else { return }
        switch action {
        case .publish(let channel, let payload):
            redis.command([Array("PUBLISH".utf8), Array(channel.utf8), payload])
        case .publishGame(let game, let publication):
            let payload = ClusterMessage.publication(publication).bytes
            if publication.isDiff {
                redis.command([Array("EVAL".utf8), Array(Self.publishDiffScript.utf8), Array("2".utf8),
                               Array(ClusterKeys.gameStream(game).utf8), Array(ClusterKeys.gameChannel(game).utf8),
                               Array("256".utf8), payload, Array("3600000".utf8)])
            } else {
                redis.command([Array("PUBLISH".utf8), Array(ClusterKeys.gameChannel(game).utf8), payload])
            }
        case .subscribe(let channel):
            redis.subscribe(channel)
        case .unsubscribe(let channel):
            redis.unsubscribe(channel)
        case .lookupCode(let code):
            redis.command("HGET", ClusterKeys.codes, code) { [weak self] reply in
                guard let self else { return }
                self.perform(self.hub.nodeCodeFound(code, node: reply?.text, linkFailed: reply == nil, now: self.now))
            }
        case .readStream(let game):
            redis.command("XRANGE", ClusterKeys.gameStream(game), "-", "+") { [weak self] reply in
                guard let self else { return }
                var publications: [ClusterMessage.Publication]?
                if case .array(let entries)? = reply {
                    publications = entries.compactMap { entry in
                        guard case .array(let parts) = entry, parts.count == 2, case .array(let fields) = parts[1],
                              fields.count == 2, case .string(let bytes) = fields[1],
                              case .publication(let publication)? = ClusterMessage.parse(bytes) else { return nil }
                        return publication
                    }
                }
                self.perform(self.hub.streamRead(game: game, publications: publications))
            }
        }
    }

    /// A diff kept in the game's capped stream and published, in one atomic step: a node
    /// that missed the publication finds it in the stream.
    private static let publishDiffScript = """
        redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'm', ARGV[2])
        redis.call('PEXPIRE', KEYS[1], ARGV[3])
        return redis.call('PUBLISH', KEYS[2], ARGV[2])
        """

    /// Renews this node's liveness key only while it still holds this process's incarnation.
    private static let renewScript = """
        local holder = redis.call('GET', KEYS[1])
        if holder == false or holder == ARGV[1] then
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
          return 1
        end
        return 0
        """

    /// Once a second: renew the lease, share this node's lobby, and read the cluster's codes,
    /// live nodes and lobbies.
    private func clusterRound(now: Double) {
        guard let redis, redis.isUp, let identity, now - lastClusterRound >= 1 else { return }
        lastClusterRound = now
        let lease = String(Int(identity.leaseSeconds * 1000))
        let aliveKey = ClusterKeys.alive(identity.node)
        if claimedAlive {
            redis.command("EVAL", Self.renewScript, "1", aliveKey, incarnation, lease) { [weak self] reply in
                guard let self, reply == .integer(0) else { return }
                self.perform(self.hub.fence(now: self.now))
            }
        } else {
            // A new process takes the name over: an older one still running finds its lease gone and stops.
            claimedAlive = true
            redis.command("SET", aliveKey, incarnation, "PX", lease)
            redis.command("HSET", ClusterKeys.codes, identity.code, identity.node)
        }
        let lobby = LobbyEntry.array(hub.ownLobbyEntries)
        redis.command("SET", ClusterKeys.lobby(identity.node), lobby, "PX", String(Int(max(3, identity.leaseSeconds) * 1000)))
        redis.command("HGETALL", ClusterKeys.codes) { [weak self] reply in
            guard let self, case .array(let flat)? = reply else { return }
            var codes: [String: String] = [:]
            for pair in stride(from: 0, to: flat.count - 1, by: 2) {
                if let code = flat[pair].text, let node = flat[pair + 1].text { codes[code] = node }
            }
            let nodes = Array(Set(codes.values)).sorted()
            guard !nodes.isEmpty else { return }
            redis.command(["MGET"] .map { Array($0.utf8) } + nodes.map { Array(ClusterKeys.alive($0).utf8) }) { aliveReply in
                // No answer is not "every node is dead": the link dropped; the next round asks again.
                guard aliveReply != nil else { return }
                redis.command(["MGET"].map { Array($0.utf8) } + nodes.map { Array(ClusterKeys.lobby($0).utf8) }) { lobbyReply in
                    guard lobbyReply != nil else { return }
                    var alive: [String: String] = [:]
                    var lobbies: [String: [LobbyEntry]] = [:]
                    if case .array(let values)? = aliveReply {
                        for (node, value) in zip(nodes, values) { if let text = value.text { alive[node] = text } }
                    }
                    if case .array(let values)? = lobbyReply {
                        for (node, value) in zip(nodes, values) {
                            if case .string(let bytes) = value, let entries = try? JSONText.parse(bytes).arrayValue {
                                lobbies[node] = entries.compactMap(LobbyEntry.init(json:))
                            }
                        }
                    }
                    self.perform(self.hub.clusterView(codes: codes, alive: alive, lobbies: lobbies, now: self.now))
                }
            }
        }
    }

    static func parseRedisURL(_ url: String) throws -> (host: String, port: Int, database: Int) {
        guard url.hasPrefix("redis://") else { throw RedisLinkError.refused("--redis takes redis://HOST:PORT[/DB], not \(url)") }
        let rest = url.dropFirst("redis://".count)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let hostPort = parts[0].split(separator: ":")
        guard let host = hostPort.first, !host.isEmpty else { throw RedisLinkError.refused("--redis needs a host: \(url)") }
        let port = hostPort.count > 1 ? Int(hostPort[1]) : 6379
        let database = parts.count > 1 && !parts[1].isEmpty ? Int(parts[1]) : 0
        guard let port, let database, (1...65535).contains(port), database >= 0 else {
            throw RedisLinkError.refused("--redis takes redis://HOST:PORT[/DB], not \(url)")
        }
        return (String(host), port, database)
    }

    /// The two characters that start this node's game ids: kept in its data directory, and
    /// claimed in Redis the first time (another node's code is never taken).
    static func claimNodeCode(node: String, store: SQLiteGameStore, redis: (host: String, port: Int, database: Int))
        throws -> String {
        if let code = try store.meta("node_code") {
            _ = try? RedisLink.blocking(host: redis.host, port: redis.port, database: redis.database,
                                        [["HSET", ClusterKeys.codes, code, node]])
            return code
        }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        for _ in 0..<200 {
            let code = String((0..<2).map { _ in alphabet.randomElement()! })
            let replies = try RedisLink.blocking(host: redis.host, port: redis.port, database: redis.database,
                                                 [["HSETNX", ClusterKeys.codes, code, node]])
            if replies.first == .integer(1) {
                try store.setMeta("node_code", code)
                return code
            }
        }
        throw RedisLinkError.refused("no free node code left in \(ClusterKeys.codes)")
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
            for (draw, gauge) in metrics.winnablePool { gauge.set(Double(hub.pool[draw]?.count ?? 0)) }
            metrics.winnablePoolTarget.set(Double(hub.config.winnablePoolTarget))
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4", body: metrics.render())
        default:
            // Answered now if the hub can; later (through `respond`) if it must read storage first.
            var immediate: HTTPResponse?
            for action in hub.http(id, path: path, query: query, now: now) {
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
            case .clusterView(let codes, let alive, let lobbies):
                perform(hub.clusterView(codes: codes, alive: alive, lobbies: lobbies, now: now))
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
            redis?.tick(now: now)
            clusterRound(now: now)
            reportClusterCounters()
            perform(hub.tick(now: now))
            let due = keepalive.advance(to: now)
            for connection in due.ping { lws.ping(connection) }
            for connection in due.dead { lws.kill(connection) }
        }
    }
}

// MARK: Limits (issue 20): the socket shell's hooks
extension BoardcastServer {
    func receivedControl(_ connection: Connection) -> Bool { hub.admitControlFrame(connection, now: now) }

    func refused(_ limit: LimitKind) { metrics.countRefusal(limit) }
}

extension BoardcastServer: RedisEvents {
    func redisLinkUp() {
        logger.notice("cluster link up", metadata: ["redis": "\(redisAddress.map { "\($0.host):\($0.port)" } ?? "")"])
        metrics.redisUp.set(1.0)
        claimedAlive = false
        lastClusterRound = -Double.infinity
        clusterRound(now: now)
        perform(hub.clusterLink(up: true, now: now))
    }

    func redisLinkDown(_ why: String) {
        logger.warning("cluster link down; this node keeps serving its own games", metadata: ["why": "\(why)"])
        metrics.redisUp.set(0.0)
        perform(hub.clusterLink(up: false, now: now))
    }

    func redisMessage(channel: String, payload: [UInt8]) {
        if channel.hasPrefix(ClusterKeys.gamePrefix) {
            perform(hub.gameMessage(game: String(channel.dropFirst(ClusterKeys.gamePrefix.count)), payload: payload, now: now))
        } else {
            perform(hub.nodeMessage(payload, now: now))
        }
    }

    func redisSubscribed(channel: String) {
        perform(hub.subscribed(channel: channel))
    }

    /// The hub counts; Prometheus counters only go up: add what changed since the last report.
    func reportClusterCounters() {
        let now = hub.counters
        metrics.forwarded.increment(by: Int64(now.forwarded - reportedCounters.forwarded))
        metrics.published.increment(by: Int64(now.published - reportedCounters.published))
        metrics.received.increment(by: Int64(now.received - reportedCounters.received))
        metrics.gapsFilled.increment(by: Int64(now.gapsFilled - reportedCounters.gapsFilled))
        metrics.resyncs.increment(by: Int64(now.resyncs - reportedCounters.resyncs))
        reportedCounters = now
    }
}
