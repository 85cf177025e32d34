import Core

/// A WebSocket connection, numbered by the server for its whole life.
public typealias ConnectionID = UInt64

/// One WebSocket connection, as both halves of the server see it: the hub keeps its
/// protocol state in `session`, the socket shell its I/O state in `io`. A game's
/// members are these objects, so delivering a frame to a member costs no lookup.
///
/// Confined to the service thread, like everything that touches it.
public final class Connection {
    public let id: ConnectionID
    /// Set for a connection of another cluster node, whose requests this node owns the game of:
    /// what is sent to it goes through Redis to that node.
    let remote: RemoteAddress?
    /// The hub's part: the game it is in, its role, its rate limit, what it waits for.
    var session: Session
    /// The shell's part: what is left to send, the message being received, pings.
    public var io = ConnectionIO()

    public init(id: ConnectionID, now: Double) {
        self.id = id
        remote = nil
        session = Session(now: now)
    }

    init(id: ConnectionID, remote: RemoteAddress, now: Double) {
        self.id = id
        self.remote = remote
        session = Session(now: now)
    }
}

/// A connection of another node: the node's name and its number there. A class, so a
/// local connection pays one pointer for it, not the whole address.
final class RemoteAddress: Sendable {
    let node: String
    let connection: ConnectionID

    init(node: String, connection: ConnectionID) {
        self.node = node
        self.connection = connection
    }

    var key: String { "\(node)/\(connection)" }
}

/// A local connection whose game is owned by another node: where its requests go. A class
/// for the same reason: most connections never have one.
final class Attachment {
    let owner: String
    let game: String
    /// The join or watch that put it there, to send again (with `since`) when the owner
    /// or the link comes back, or when a gap cannot be filled.
    let join: JSON

    init(owner: String, game: String, join: JSON) {
        self.owner = owner
        self.game = game
        self.join = join
    }
}

/// A connection's protocol state, owned by the hub.
struct Session {
    var room: GameRoom?
    var role: Role?
    /// What it may see of its game: a seated racer's own view, otherwise the spectators'.
    var view: RaceViewer = .spectator
    var bucket: TokenBucket
    var followsLobby = false
    /// Its index in its room's audience for `view` once it receives broadcasts; -1 before.
    var recipientSlot = -1
    /// Set while the connection waits for something slow (a game loading, history read from
    /// storage, a solver); frames that arrive meanwhile are held and answered in order after.
    var wait: Wait?
    var held: [HeldRequest] = []
    /// In a cluster: its game's owner, when that is another node.
    var attachment: Attachment?
    /// The seq of the last diff passed to it from a remote game: a catch-up never repeats one.
    var remoteSeq = 0
    var heldHead = 0
    var isOpen = true

    init(now: Double) {
        bucket = TokenBucket(now: now)
    }

    var hasHeld: Bool { heldHead < held.count }

    mutating func hold(_ request: HeldRequest) { held.append(request) }

    mutating func takeHeld() -> HeldRequest? {
        guard heldHead < held.count else { return nil }
        let request = held[heldHead]
        heldHead += 1
        if heldHead == held.count {
            held.removeAll()
            heldHead = 0
        }
        return request
    }
}

/// What a connection is waiting for.
enum Wait: Equatable {
    /// A resting game being loaded from storage (`join`/`watch` of it).
    case gameLoad(String)
    /// Diffs older than the game's window, read from storage in pages.
    case history(token: UInt64)
    /// The stored seq of an old command id (at-most-once after the window).
    case commandLookup(token: UInt64)
    /// A solver verdict (a winnable deal, or a hint).
    case solver(token: UInt64)
    /// Its game is being rebuilt from storage after a failed commit.
    case rewind(String)
    /// A request forwarded to the node that owns its game (a cluster).
    case remote(UInt64)
    /// The node behind a game id's code, asked of Redis.
    case nodeCode(String)
}

/// A frame that arrived while its connection waited, kept parsed (parsing needs no state).
struct HeldRequest {
    var parsed: ClientMessageParser.Parsed
    var arrival: ContinuousClock.Instant?
}

/// The protocol's rate limit: a bucket of `Hub.rateLimit` frames refilled at that many a
/// second. Sixteen bytes a connection: the tokens fit a `Float`.
struct TokenBucket {
    private var tokens: Float
    private var last: Double

    init(now: Double) {
        tokens = Float(Hub.rateLimit)
        last = now
    }

    mutating func take(now: Double) -> Bool {
        let capacity = Float(Hub.rateLimit)
        tokens = min(capacity, tokens + Float(max(0, now - last) * Hub.rateLimit))
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
