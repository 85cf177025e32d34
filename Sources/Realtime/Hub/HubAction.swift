import Core
import Logging

/// What the hub decided, for the driver to carry out against lws, SQLite, worker
/// threads and metrics. Values only: tests assert them without any of those.
enum HubAction {
    case send(OutFrame, to: Connection)
    /// One frame, encoded once, to every connection in the list. `arrival`: when the move
    /// that caused it arrived, for the move-latency metric.
    case broadcast(OutFrame, to: ContiguousArray<Connection>, arrival: ContinuousClock.Instant?)
    /// Sends what is queued, then a close frame with this code.
    case close(Connection, code: UInt16, reason: String)
    /// Write this batch; its ticket comes back through `committed(upTo:)` or `storageFailed`.
    case store(StoreBatch, ticket: UInt64)
    /// Writes that failed have been dealt with: accept tickets after this one again.
    case resumeStorage(after: UInt64)
    /// Rebuild a stored game off the service thread; the answer is `loaded(_:_:)`.
    case load(game: String)
    /// Read stored diff frames of a game off the service thread; the answer is `historyRead`.
    case readHistory(HistoryRequest)
    /// Find the seq of an old command id; the answer is `commandFound`.
    case lookupCommand(token: UInt64, game: String, clientID: String)
    /// List stored games (`/api/games` with a limit above the live lobby); the answer is `storedGamesListed`.
    case listStoredGames(token: UInt64, query: LobbyQuery)
    case respond(HTTPRequestID, HTTPResponse)
    /// Solve on the solver pool; the answer is `solved`.
    case solve(SolveJob)
    /// Talk to the other nodes of a cluster through Redis.
    case redis(RedisAction)
    case countError(ErrorCode)
    case log(LogLine)
}

struct HistoryRequest: Sendable, Equatable {
    var token: UInt64
    var game: String
    var after: Int
    var limit: Int
}

/// One line for the server's log; the driver writes it.
struct LogLine {
    var level: Logger.Level
    var message: String
    var metadata: [(String, String)]

    init(_ level: Logger.Level, _ message: String, _ metadata: [(String, String)] = []) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}

/// An HTTP request the hub answers (`/api/...`), numbered by the shell.
public typealias HTTPRequestID = UInt64

/// An HTTP answer.
public struct HTTPResponse: Sendable, Equatable {
    public var status: UInt32
    public var contentType: String
    public var body: [UInt8]

    public init(status: UInt32, contentType: String, body: String) {
        self.status = status
        self.contentType = contentType
        self.body = Array(body.utf8)
    }

    static func text(_ status: UInt32, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain", body: body)
    }

    static func json(_ body: String) -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "application/json", body: body)
    }
}

/// What a cluster node asks of Redis.
enum RedisAction: Equatable {
    case publish(channel: String, payload: [UInt8])
    /// A game's broadcast: published once, and a diff kept in the game's capped stream too
    /// (one atomic step), so a node that missed it can fill the gap.
    case publishGame(game: String, publication: ClusterMessage.Publication)
    case subscribe(String)
    case unsubscribe(String)
    /// The game's stream, for a gap; the answer is `streamRead`.
    case readStream(game: String)
    /// The node a game id code belongs to; the answer is `nodeCodeFound`.
    case lookupCode(String)
}
