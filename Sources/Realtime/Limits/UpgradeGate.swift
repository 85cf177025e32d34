/// The limits an operator sets for clients (PROTOCOL section 14), as the server's flags give them.
/// Every limit is per node: in a cluster each node counts only its own clients.
public struct ClientLimits: Sendable, Equatable {
    /// Open WebSocket connections per client address (`--max-connections-per-address`).
    public var maxConnectionsPerAddress = 200
    /// New games a minute per client address, over all of its connections (`--create-rate`).
    public var createsPerMinute = 30
    /// Peers whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    public var trustedProxies = TrustedProxies()
    /// Pages that may open a WebSocket (`--allowed-origin`); empty: every page.
    public var origins = OriginPolicy()

    public init() {}
}

/// Which limit refused a client: the label of `boardcast_limit_refusals_total`.
public enum LimitKind: String, CaseIterable, Sendable {
    /// An upgrade over `--max-connections-per-address` (HTTP 429).
    case connectionsPerAddress = "connections-per-address"
    /// An upgrade from a page not in `--allowed-origin` (HTTP 403).
    case origin
    /// A `create` over `--create-rate` (`limited`).
    case createRate = "create-rate"
    /// A connection closed (1008) for flooding control frames past the rate limit.
    case controlFrames = "control-frames"
    /// A chat line over chat's own limit (`limited`, PROTOCOL section 15).
    case chatRate = "chat-rate"
}

/// Open WebSocket connections per client address. An address has an entry only while it
/// has an open connection, so the table holds at most one entry per open connection (and
/// open connections are bounded by the process's file limit), whatever the number of
/// addresses that ever connected.
struct ConnectionsPerAddress {
    let limit: Int
    private var open: [ClientAddress: Int32] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether one more connection from this address is within the limit.
    func mayOpen(_ address: ClientAddress) -> Bool {
        Int(open[address.limitKey] ?? 0) < limit
    }

    mutating func opened(_ address: ClientAddress) {
        open[address.limitKey, default: 0] += 1
    }

    mutating func closed(_ address: ClientAddress) {
        let key = address.limitKey
        guard let count = open[key] else { return }
        open[key] = count > 1 ? count - 1 : nil
    }

    func count(_ address: ClientAddress) -> Int { Int(open[address.limitKey] ?? 0) }

    var trackedAddresses: Int { open.count }
}

/// What the server decides about a WebSocket upgrade, before it answers 101: who the client
/// is, whether its page may connect, and whether its address has room for one more
/// connection. Plain Swift: the shell reads the headers and carries the decision out.
struct UpgradeGate {
    enum Decision: Equatable {
        /// Go ahead; the connection belongs to this client address, signed in as `user` when its
        /// `Authorization: Bearer` token was good (PROTOCOL section 19).
        case admit(ClientAddress, user: SignedUser?)
        /// Answer this instead of 101 and close; `limit` is the operator's limit that refused
        /// it (none for a wrong path or a server shutting down).
        case refuse(HTTPResponse, limit: LimitKind?)
    }

    let limits: ClientLimits
    /// Checks a Bearer token; nil: the header is ignored (nobody signs in).
    let auth: TokenVerifier?
    private(set) var connections: ConnectionsPerAddress

    init(limits: ClientLimits, auth: TokenVerifier? = nil) {
        self.limits = limits
        self.auth = auth
        connections = ConnectionsPerAddress(limit: limits.maxConnectionsPerAddress)
    }

    /// `now`: Unix seconds, for the token's `exp` and `nbf`.
    func decide(_ request: UpgradeRequest, now: Double = 0, stopping: Bool) -> Decision {
        if stopping { return .refuse(.text(503, "server shutting down\n"), limit: nil) }
        guard request.path == "/ws" else {
            return .refuse(.text(404, "no WebSocket here: the game protocol is at /ws\n"), limit: nil)
        }
        guard limits.origins.allows(origin: request.origin) else {
            return .refuse(.text(403, "this page's origin may not open a WebSocket to this server\n"), limit: .origin)
        }
        let client = limits.trustedProxies.client(peer: request.peer, forwardedFor: request.forwardedFor)
        guard connections.mayOpen(client) else {
            let who = client.isIPv4 ? "\(client)" : "\(client) (counted with its /64)"
            return .refuse(.text(429, "too many connections from \(who): at most \(connections.limit) at a time\n"),
                           limit: .connectionsPerAddress)
        }
        var user: SignedUser?
        if let auth, let authorization = request.authorization {
            // A program signs in at the upgrade; a bad token is told now, not after 101.
            guard authorization.lowercased().hasPrefix("bearer ") else {
                return .refuse(.text(401, "Authorization must be Bearer followed by a JSON Web Token\n"), limit: nil)
            }
            // Trimmed by hand: Foundation's `trimmingCharacters` cost more than an HS256 check (BENCHMARKS.md).
            var bytes = Array(authorization.utf8.dropFirst(7))
            while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
            let token = String(decoding: bytes.drop { $0 == 0x20 || $0 == 0x09 }, as: UTF8.self)
            switch auth.verify(token, now: now) {
            case .success(let signedIn): user = signedIn
            case .failure(let refusal): return .refuse(.text(401, "\(refusal)\n"), limit: nil)
            }
        }
        return .admit(client, user: user)
    }

    /// The upgrade of an admitted client completed: its connection counts until `closed`.
    mutating func opened(_ client: ClientAddress) { connections.opened(client) }

    mutating func closed(_ client: ClientAddress) { connections.closed(client) }
}

extension HTTPResponse {
    /// The response as bytes on the wire, ending the connection: an HTTP/1.1 status line with
    /// its reason phrase, the body's type and length, `connection: close`, then the body. For
    /// answers the server writes outside lws's HTTP machinery (refused upgrades, refused request heads).
    var closingBytes: [UInt8] {
        let head = "HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\ncontent-type: \(contentType)\r\n"
            + "content-length: \(body.count)\r\nconnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    static func reason(_ status: UInt32) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 503: return "Service Unavailable"
        default: return "Error"
        }
    }
}
