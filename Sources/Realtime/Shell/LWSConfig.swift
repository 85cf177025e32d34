import CLibWebSockets

/// What the socket layer reports. Every call comes on the service thread.
protocol LWSEvents: AnyObject {
    /// `user`: who its `Authorization: Bearer` token signed it in as, already verified.
    func opened(_ connection: Connection, query: [String: String], user: SignedUser?)
    func received(_ connection: Connection, text: [UInt8])
    func receivedBinary(_ connection: Connection)
    func closed(_ connection: Connection)
    /// An HTTP request on a dynamic path; nil means the answer comes later through `respond`.
    func httpRequest(_ id: HTTPRequestID, path: String, query: String?) -> HTTPResponse?
    /// Another thread posted work and called `LWSWaker.wake`.
    func wokenUp()
    /// The time given to `wake(after:)` has come.
    func wakeDue()
    /// A ping or pong from the client (PROTOCOL section 14): whether it is within the rate limit it
    /// shares with messages. Nothing is to be sent either way (lws answers pings itself).
    func receivedControl(_ connection: Connection) -> Bool
    /// One of the operator's limits refused a client (for `/metrics`).
    func refused(_ limit: LimitKind)
}

public struct LWSConfig: Sendable {
    public var host: String
    public var port: Int
    public var webRoot: String
    /// Folders served beside `webRoot`, each at its mount point (a game's page module: `/games/KIND`).
    public var folders: [(mountPoint: String, folder: String)] = []
    public var reusePort = false
    public var limits = ConnectionIO.Limits()
    /// Connections accepted per loop iteration: a crowd is taken in bites, other games move between them.
    public var acceptsPerIteration = 64
    /// Writes of a crowd's broadcast per loop iteration (about 2.5 ms of `send()`), with events between bites.
    public var bulkWritesPerIteration = 512
    /// A broadcast to more recipients than this is written in bites.
    public var bulkThreshold = 256
    /// lws reads at most this much per connection per wake-up, and allocates it per connection.
    public var rxBufferSize = 512
    /// Per-address connections, trusted proxies and allowed origins, checked at each upgrade.
    public var clientLimits = ClientLimits()
    /// Checks a `Authorization: Bearer` token at the upgrade (PROTOCOL section 19); nil: the header is ignored.
    public var auth: TokenVerifier?

    public init(host: String, port: Int, webRoot: String) {
        self.host = host
        self.port = port
        self.webRoot = webRoot
    }
}

public enum LWSError: Error, CustomStringConvertible {
    case cannotStart(String)
    public var description: String {
        switch self {
        case .cannotStart(let why): return why
        }
    }
}
