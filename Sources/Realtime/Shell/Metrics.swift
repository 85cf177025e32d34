import Core
import Prometheus

/// The server's Prometheus metrics. Counters are atomics inside swift-prometheus,
/// so any thread may update them; `/metrics` renders the registry.
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    let connections: Gauge
    let connectionsOpened: Counter
    let games: Gauge
    /// Games in storage (resting and live) and the bytes storage takes, read every few seconds.
    let storedGames: Gauge
    let storedBytes: Gauge
    let gamesDeleted: Counter
    let messagesIn: Counter
    let messagesOut: Counter
    let bytesOut: Counter
    let moveLatency: DurationHistogram
    let gamesLoaded: Counter
    let storageFailures: Counter
    let redisUp: Gauge
    let forwarded: Counter
    let published: Counter
    let received: Counter
    let gapsFilled: Counter
    let resyncs: Counter
    /// Proven seeds ready, per pool of the catalog's prover, and how many the server keeps ready
    /// (named as the prover says: `ProvenPoolMetric`); none without a prover.
    let provenPool: [Int: Gauge]
    let provenPoolTarget: Gauge?
    private let errorCounters: [String: Counter]
    private let refusalCounters: [LimitKind: Counter]
    private let signIns: Counter
    private let signInsRefused: Counter

    private static func name(_ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "boardcast", metricName: metric, unitName: unit, helpText: help)
    }

    public init(prover: (any SeedProver)? = nil) {
        connections = registry.makeGauge(descriptor: Self.name("connections", "Open WebSocket connections"))
        connectionsOpened = registry.makeCounter(
            descriptor: Self.name("connections_opened", unit: "total", "WebSocket connections accepted"))
        games = registry.makeGauge(descriptor: Self.name("games", "Live games in memory (resting ones are in storage only)"))
        storedGames = registry.makeGauge(descriptor: Self.name("stored_games", "Games in storage, live and resting"))
        storedBytes = registry.makeGauge(descriptor: Self.name("stored_bytes", "Bytes the game store takes (file, or tables)"))
        gamesDeleted = registry.makeCounter(
            descriptor: Self.name("games_deleted", unit: "total", "Games deleted for --retain-days (untouched that long)"))
        gamesLoaded = registry.makeCounter(
            descriptor: Self.name("games_loaded", unit: "total", "Resting games loaded back from storage"))
        redisUp = registry.makeGauge(descriptor: Self.name("redis_link_up", "1 while this cluster node's Redis link is up"))
        forwarded = registry.makeCounter(
            descriptor: Self.name("cluster_forwarded", unit: "total", "Requests forwarded to the node that owns their game"))
        published = registry.makeCounter(
            descriptor: Self.name("cluster_published", unit: "total", "Broadcasts published once for other nodes"))
        received = registry.makeCounter(
            descriptor: Self.name("cluster_received", unit: "total", "Broadcasts received from owners of other nodes' games"))
        gapsFilled = registry.makeCounter(
            descriptor: Self.name("cluster_gaps_filled", unit: "total", "Missed diffs filled from a game's stream"))
        resyncs = registry.makeCounter(
            descriptor: Self.name("cluster_resyncs", unit: "total", "Members that joined their game again to catch up"))
        let registry = self.registry
        let metric = prover?.metric
        provenPool = Dictionary(uniqueKeysWithValues: (prover?.pools ?? []).map { pool in
            (pool, registry.makeGauge(descriptor: Self.name((metric?.name ?? "") + "_seeds", metric?.seedsHelp ?? ""),
                                      labels: [(metric?.label ?? "pool", "\(pool)")]))
        })
        provenPoolTarget = metric.map {
            registry.makeGauge(descriptor: Self.name($0.name + "_target", $0.targetHelp))
        }
        storageFailures = registry.makeCounter(
            descriptor: Self.name("storage_failures", unit: "total", "Storage writes that failed (their commands were refused)"))
        messagesIn = registry.makeCounter(descriptor: Self.name("messages_in", unit: "total", "Frames received from clients"))
        messagesOut = registry.makeCounter(descriptor: Self.name("messages_out", unit: "total", "Frames queued to clients"))
        bytesOut = registry.makeCounter(descriptor: Self.name("bytes_out", unit: "total", "Payload bytes queued to clients"))
        moveLatency = registry.makeDurationHistogram(
            descriptor: Self.name("move_latency", unit: "seconds",
                                  "From a move's arrival to its diff being queued to every member (storage commit included)"),
            buckets: [.microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                      .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                      .milliseconds(100), .milliseconds(250), .seconds(1)])
        var counters: [String: Counter] = [:]
        for code in ErrorCode.allCases {
            counters[code.rawValue] = registry.makeCounter(
                descriptor: Self.name("errors", unit: "total", "Errors answered, by code"), labels: [("code", code.rawValue)])
        }
        errorCounters = counters
        let signInHelp = "Tokens checked (auth messages and Bearer headers, PROTOCOL section 19), by result"
        signIns = registry.makeCounter(descriptor: Self.name("sign_ins", unit: "total", signInHelp), labels: [("result", "ok")])
        signInsRefused = registry.makeCounter(descriptor: Self.name("sign_ins", unit: "total", signInHelp),
                                              labels: [("result", "refused")])
        refusalCounters = Dictionary(uniqueKeysWithValues: LimitKind.allCases.map { limit in
            (limit, registry.makeCounter(
                descriptor: Self.name("limit_refusals", unit: "total",
                                      "Clients refused by an operator's limit (PROTOCOL section 14), by limit"),
                labels: [("limit", limit.rawValue)]))
        })
    }

    func countError(_ code: ErrorCode) { errorCounters[code.rawValue]?.increment() }

    func countRefusal(_ limit: LimitKind) { refusalCounters[limit]?.increment() }

    func countSignIn(ok: Bool) { (ok ? signIns : signInsRefused).increment() }

    public func render() -> String { registry.emitToString() }
}
