import Core
import Foundation

public struct ServerOptions: Sendable {
    public var host: String
    public var port: Int
    /// A directory for the SQLite store, or `:memory:` to keep nothing past the process.
    public var data: String
    /// `postgresql://USER[:PASSWORD]@HOST:PORT/DB`: keep games in this database, shared by every
    /// node started with it (PROTOCOL 11.1), instead of `data`.
    public var store: String?
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
    /// Games untouched (no command, join or watch) this many days are deleted; nil keeps every game.
    public var retainDays: Double?
    /// The keys that sign users in (PROTOCOL section 19); nil: nobody signs in.
    public var auth: TokenVerifier?
    /// `--require-auth`: `create`, `join` and `say` need a signed-in connection.
    public var requireAuth = false
    /// `--auth-site`: the operator's site origins, the only windows the page takes a token
    /// from by `postMessage` (empty: its opener, whatever its origin).
    public var authSites: [String] = []

    /// The games this server offers.
    public var games: GameCatalog
    /// The page's modules for games beyond the standard page's own (a game developer's package).
    public var pages: [PageModule] = []

    public init(host: String, port: Int, data: String, web: String, pingInterval: Int, games: GameCatalog) {
        self.games = games
        self.host = host
        self.port = port
        self.data = data
        self.web = web
        self.pingInterval = pingInterval
    }
}

/// The service thread's clock: one reading per event, monotonic for every interval, with the
/// wall time of the same moment for what people read and what is stored.
struct ServiceClock {
    private let origin = ContinuousClock.now

    var now: Instant {
        let elapsed = ContinuousClock.now - origin
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Instant(monotonic: seconds, unixTime: Date().timeIntervalSince1970)
    }
}
