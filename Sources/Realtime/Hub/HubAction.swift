import Core
import Logging

/// What the realtime layer decided, for the shell to carry out against lws, storage, worker
/// threads, the node link and metrics. Plain values keyed by connection ids: tests compare lists of them.
enum HubAction: Sendable, Equatable {
    case send(OutFrame, to: ConnectionID)
    /// One frame, encoded once, to every connection of an audience (the room's own array,
    /// shared, not copied). `arrival`: when the move that caused it arrived, for the latency metric.
    case broadcast(OutFrame, to: Audience, arrival: Instant?)
    /// Sends what is queued, then a close frame with this code.
    case close(ConnectionID, code: UInt16, reason: String)
    /// Write this batch; its ticket comes back as `committed` or `storageFailed`.
    case store(StoreBatch, ticket: UInt64)
    /// Writes that failed have been handled: accept tickets after this one again.
    case resumeStorage(after: UInt64)
    /// Read storage off the service thread; the answer comes back as `HubEvent.read`.
    case read(StorageRead)
    case respond(HTTPRequestID, HTTPResponse)
    /// Solve on the solver pool; the answer comes back as `HubEvent.solved`.
    case solve(SolveJob)
    /// Hand the hub `HubEvent.due` at this instant (a delayed spectators' output comes due);
    /// one timer: each wake replaces the one before.
    case wake(at: Instant)
    /// The node link's own order (a cluster node's, to Redis), in its place among the rest.
    case link(LinkOrder)
    /// What a game owes other nodes' connections, for the node link to turn into its own
    /// orders (`NodeLink.outgoing`); it never reaches the shell.
    case remote(RemoteOutput)
    case countError(ErrorCode)
    /// A per-address limit refused something (`/metrics`).
    case countRefusal(LimitKind)
    /// A token checked (an `auth`, or a Bearer header at the upgrade): signed in or refused.
    case countSignIn(ok: Bool)
    case log(LogLine)
}

/// The connections that receive a game's broadcasts in one view.
typealias Audience = ContiguousArray<ConnectionID>

enum StorageRead: Sendable, Equatable {
    /// Rebuild a stored game; the answer is `.loaded`.
    case load(game: String)
    /// Stored diff frames of a game after a seq, one page.
    case history(HistoryRequest)
    /// The seq of an old command id.
    case command(token: UInt64, game: String, clientID: String)
    /// Stored games, for `/api/games` with a limit above the live lobby.
    case listing(token: UInt64, query: LobbyQuery)
    /// A game's chat up to a seq (a replay shows it with the diffs).
    case chat(token: UInt64, game: String, through: Int)
    /// A store shared by nodes: claim a game for this node (as the policy allows) and load it;
    /// the answer is `.acquired`.
    case acquire(game: String, node: String, takeover: TakeoverPolicy)
    /// A store shared by nodes: a resting game belongs to nobody (no answer).
    case release(game: String, node: String, epoch: Int64)
    /// A store shared by nodes: who owns these games now; the answer is `.ownerships`.
    case ownerships(token: UInt64, games: [String])
}

struct HistoryRequest: Sendable, Equatable {
    var token: UInt64
    var game: String
    var after: Int
    var limit: Int
}

/// One line for the server's log; the driver writes it.
struct LogLine: Sendable, Equatable {
    var level: Logger.Level
    var message: String
    var metadata: [Field]

    struct Field: Sendable, Equatable {
        var key: String
        var value: String
    }

    init(_ level: Logger.Level, _ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata.map { Field(key: $0.key, value: $0.value) }
    }
}

/// An HTTP request the hub answers (`/api/...`), numbered by the shell.
typealias HTTPRequestID = UInt64


/// Collects the actions of one event as the parts decide them. Only `Hub.handle` takes them.
struct Effects {
    private(set) var actions: [HubAction] = []

    mutating func append(_ action: HubAction) { actions.append(action) }

    mutating func send(_ frame: OutFrame, to id: ConnectionID) { actions.append(.send(frame, to: id)) }

    mutating func log(_ level: Logger.Level, _ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        actions.append(.log(LogLine(level, message, metadata)))
    }

    mutating func take() -> [HubAction] {
        defer { actions = [] }
        return actions
    }
}
