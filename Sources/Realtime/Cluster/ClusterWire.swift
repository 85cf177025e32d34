import Core

/// Who this node is in a cluster (PROTOCOL section 11).
public struct ClusterIdentity: Sendable, Equatable {
    /// The node's name (`--node`): its channel is `bc:n:NAME`.
    public var node: String
    /// Two characters that start every game id this node makes: the owner of a game is
    /// read off its id, with no directory to look up and none to lose if Redis restarts.
    public var code: String
    /// How long another node waits for this one's liveness key before it answers `unavailable`.
    public var leaseSeconds: Double

    public init(node: String, code: String, leaseSeconds: Double = 15) {
        self.node = node
        self.code = code
        self.leaseSeconds = leaseSeconds
    }
}

/// Redis keys and channels, in one place.
enum ClusterKeys {
    static let codes = "bc:codes"
    static func nodeChannel(_ node: String) -> String { "bc:n:" + node }
    static func gameChannel(_ game: String) -> String { "bc:g:" + game }
    static func gameStream(_ game: String) -> String { "bc:s:" + game }
    static func alive(_ node: String) -> String { "bc:alive:" + node }
    static func lobby(_ node: String) -> String { "bc:lobby:" + node }
    static let gamePrefix = "bc:g:"
}

/// The messages nodes send each other through Redis: a letter, fields separated by `|`,
/// and last, when there is one, a frame's bytes as they are (they may hold any byte).
enum ClusterMessage: Equatable {
    /// To an owner: a client's message (JSON text) for connection `connection` of node `from`,
    /// request number `request` (answered by a `_done` marker once everything before is).
    case forward(from: String, connection: ConnectionID, request: UInt64, message: [UInt8])
    /// To an owner: that connection is gone (closed, or it moved to another game elsewhere).
    case detach(from: String, connection: ConnectionID)
    /// To an owner: `/api/games/GAME`, answered with `apiAnswer`.
    case apiRequest(from: String, token: UInt64, game: String)
    /// From an owner: a frame for one of the node's connections.
    case reply(connection: ConnectionID, frame: [UInt8])
    case apiAnswer(token: UInt64, status: UInt32, body: [UInt8])
    /// On a game's channel: a diff (`seq` is its seq) for the listed views (`*` is the
    /// spectators', and every member of a game with one view), or any other broadcast.
    case publication(Publication)

    /// One broadcast: for a diff, every view's frame in one message, so a node passes each
    /// member the frame of its view and sees one seq once.
    struct Publication: Equatable, Sendable {
        var isDiff: Bool
        var seq: Int
        var parts: [Part]

        struct Part: Equatable, Sendable {
            /// `*` for the spectators' view, seats (`p2`), or `all` (events, presence: every member).
            var views: [String]
            var frame: [UInt8]
        }

    }

    var bytes: [UInt8] {
        switch self {
        case .forward(let from, let connection, let request, let message):
            return Array("F|\(from)|\(connection)|\(request)|".utf8) + message
        case .detach(let from, let connection):
            return Array("C|\(from)|\(connection)".utf8)
        case .apiRequest(let from, let token, let game):
            return Array("H|\(from)|\(token)|\(game)".utf8)
        case .reply(let connection, let frame):
            return Array("R|\(connection)|".utf8) + frame
        case .apiAnswer(let token, let status, let body):
            return Array("A|\(token)|\(status)|".utf8) + body
        case .publication(let publication):
            var bytes = Array("\(publication.isDiff ? "d" : "a")|\(publication.seq)|\(publication.parts.count)|".utf8)
            for part in publication.parts {
                bytes += Array("\(part.views.joined(separator: ","))|\(part.frame.count)|".utf8) + part.frame
            }
            return bytes
        }
    }

    /// Reads a message; nil for anything malformed (a node never trusts another's bytes to be well formed).
    static func parse(_ bytes: [UInt8]) -> ClusterMessage? {
        guard let kind = bytes.first else { return nil }
        func fields(_ count: Int) -> ([String], [UInt8])? {
            var parts: [String] = []
            var start = 2
            guard bytes.count >= 2, bytes[1] == UInt8(ascii: "|") else { return nil }
            while parts.count < count {
                guard let bar = bytes[start...].firstIndex(of: UInt8(ascii: "|")) else {
                    guard parts.count == count - 1 else { return nil }
                    parts.append(String(decoding: bytes[start...], as: UTF8.self))
                    return (parts, [])
                }
                parts.append(String(decoding: bytes[start..<bar], as: UTF8.self))
                start = bar + 1
            }
            return (parts, Array(bytes[start...]))
        }
        switch kind {
        case UInt8(ascii: "F"):
            guard let (f, rest) = fields(3), let connection = ConnectionID(f[1]), let request = UInt64(f[2]) else { return nil }
            return .forward(from: f[0], connection: connection, request: request, message: rest)
        case UInt8(ascii: "C"):
            guard let (f, _) = fields(2), let connection = ConnectionID(f[1]) else { return nil }
            return .detach(from: f[0], connection: connection)
        case UInt8(ascii: "H"):
            guard let (f, _) = fields(3), let token = UInt64(f[1]) else { return nil }
            return .apiRequest(from: f[0], token: token, game: f[2])
        case UInt8(ascii: "R"):
            guard let (f, rest) = fields(1), let connection = ConnectionID(f[0]) else { return nil }
            return .reply(connection: connection, frame: rest)
        case UInt8(ascii: "A"):
            guard let (f, rest) = fields(2), let token = UInt64(f[0]), let status = UInt32(f[1]) else { return nil }
            return .apiAnswer(token: token, status: status, body: rest)
        case UInt8(ascii: "d"), UInt8(ascii: "a"):
            guard let (f, rest) = fields(2), let seq = Int(f[0]), let count = Int(f[1]), (1...16).contains(count) else {
                return nil
            }
            var parts: [Publication.Part] = []
            var at = rest.startIndex
            for _ in 0..<count {
                guard let bar = rest[at...].firstIndex(of: UInt8(ascii: "|")),
                      let bar2 = rest[(bar + 1)...].firstIndex(of: UInt8(ascii: "|")),
                      let length = Int(String(decoding: rest[(bar + 1)..<bar2], as: UTF8.self)),
                      length >= 0, bar2 + 1 + length <= rest.endIndex else { return nil }
                let views = String(decoding: rest[at..<bar], as: UTF8.self).split(separator: ",").map(String.init)
                parts.append(Publication.Part(views: views, frame: Array(rest[(bar2 + 1)..<(bar2 + 1 + length)])))
                at = bar2 + 1 + length
            }
            return .publication(Publication(isDiff: kind == UInt8(ascii: "d"), seq: seq, parts: parts))
        default:
            return nil
        }
    }
}

/// The control frames an owner sends a remote connection's node between its replies;
/// the node acts on them and never passes them to the client. Real server messages never
/// have a `type` starting with `_`.
enum ClusterControl {
    static let prefix = Array(#"{"type":"_"#.utf8)

    static func done(_ request: UInt64) -> OutFrame { OutFrame(#"{"type":"_done","n":\#(request)}"#) }

    static func subscribed(game: String, seq: Int) -> OutFrame {
        OutFrame(JSON.object(["type": "_subscribe", "game": .string(game), "seq": .int(seq)]).encoded)
    }

    static func isControl(_ frame: [UInt8]) -> Bool { frame.starts(with: prefix) }
}
