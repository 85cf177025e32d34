import Core

/// Who this node is in a cluster (PROTOCOL section 11).
struct ClusterIdentity: Sendable, Equatable {
    /// The node's name (`--node`): its channel is `bc:n:NAME`.
    var node: String
    /// Two characters that start every game id this node makes, while ids name their owner
    /// (a cluster whose nodes keep their own storage).
    var code: String
    /// How long another node waits for this one's liveness key before it answers `unavailable`.
    var leaseSeconds: Double

    init(node: String, code: String, leaseSeconds: Double = 15) {
        self.node = node
        self.code = code
        self.leaseSeconds = leaseSeconds
    }
}

/// What nodes send each other on their own channels, typed: a node never reads another's
/// frames to learn what they are. On the wire: a letter, fields separated by `|`, and last,
/// when there is one, a frame's bytes as they are (they may hold any byte).
enum ClusterEnvelope: Sendable, Equatable {
    /// To an owner: a client's message (JSON text) for connection `connection` of node `from`,
    /// request number `request` (answered by `done` once everything before it is). `expires`
    /// (Unix milliseconds) is when the sender gives it up: an owner that gets to it later drops it.
    case forward(from: String, connection: UInt64, request: UInt64, expires: Int64, message: [UInt8])
    /// To an owner: that connection is gone (closed, or it moved to a game elsewhere).
    case detach(from: String, connection: UInt64)
    /// To an owner: `/api/games/GAME`, answered with `apiAnswer`.
    case apiRequest(from: String, token: UInt64, game: String)
    /// From an owner: a frame for one of the node's connections, and what it is.
    case reply(connection: UInt64, kind: ReplyKind, frame: [UInt8])
    /// From an owner: everything request `request` of that connection caused has been sent.
    case done(connection: UInt64, request: UInt64)
    /// From an owner: the connection receives `game`'s broadcasts from `seq` on, as a member of
    /// this audience (`AudienceKey.tag`: `+` players, `*` spectators, `~` delayed spectators, a seat).
    case subscribed(connection: UInt64, game: String, audience: String, seq: Int)
    case apiAnswer(token: UInt64, status: UInt32, body: [UInt8])
    /// From an owner that took node `from` for dead (its lease ran out) and sees it alive again:
    /// the sessions of its connections there were closed, so its members there join again.
    case forgotten(from: String)

    /// What a reply's frame is, as the owner's encoder typed it.
    enum ReplyKind: Sendable, Equatable {
        case plain
        /// The owner took the connection into `game`; `player` is its player id (its seat in a game with seats), nil for a spectator.
        case joined(game: String, kind: String, player: String?)
        case diff(seq: Int)
        /// An `ack` or `error`: the last message of a reply.
        case answer
        case left(game: String)
    }

    var bytes: [UInt8] {
        switch self {
        case .forward(let from, let connection, let request, let expires, let message):
            return Array("F|\(from)|\(connection)|\(request)|\(expires)|".utf8) + message
        case .detach(let from, let connection):
            return Array("C|\(from)|\(connection)".utf8)
        case .apiRequest(let from, let token, let game):
            return Array("H|\(from)|\(token)|\(game)".utf8)
        case .reply(let connection, let kind, let frame):
            return Array("R|\(connection)|\(kind.field)|".utf8) + frame
        case .done(let connection, let request):
            return Array("D|\(connection)|\(request)".utf8)
        case .subscribed(let connection, let game, let audience, let seq):
            return Array("S|\(connection)|\(game)|\(audience)|\(seq)".utf8)
        case .apiAnswer(let token, let status, let body):
            return Array("A|\(token)|\(status)|".utf8) + body
        case .forgotten(let from):
            return Array("G|\(from)".utf8)
        }
    }

    /// Reads an envelope; nil for anything malformed (a node never trusts another's bytes).
    static func parse(_ bytes: [UInt8]) -> ClusterEnvelope? {
        guard let letter = bytes.first, let fields = Fields(bytes) else { return nil }
        switch letter {
        case UInt8(ascii: "F"):
            guard let (f, rest) = fields.split(4), let connection = UInt64(f[1]), let request = UInt64(f[2]),
                  let expires = Int64(f[3]) else { return nil }
            return .forward(from: f[0], connection: connection, request: request, expires: expires, message: rest)
        case UInt8(ascii: "C"):
            guard let (f, _) = fields.split(2, last: true), let connection = UInt64(f[1]) else { return nil }
            return .detach(from: f[0], connection: connection)
        case UInt8(ascii: "H"):
            guard let (f, _) = fields.split(3, last: true), let token = UInt64(f[1]) else { return nil }
            return .apiRequest(from: f[0], token: token, game: f[2])
        case UInt8(ascii: "R"):
            guard let (f, rest) = fields.split(2), let connection = UInt64(f[0]), let kind = ReplyKind(field: f[1]) else {
                return nil
            }
            return .reply(connection: connection, kind: kind, frame: rest)
        case UInt8(ascii: "D"):
            guard let (f, _) = fields.split(2, last: true), let connection = UInt64(f[0]), let request = UInt64(f[1]) else {
                return nil
            }
            return .done(connection: connection, request: request)
        case UInt8(ascii: "S"):
            guard let (f, _) = fields.split(4, last: true), let connection = UInt64(f[0]), let seq = Int(f[3]) else {
                return nil
            }
            return .subscribed(connection: connection, game: f[1], audience: f[2], seq: seq)
        case UInt8(ascii: "A"):
            guard let (f, rest) = fields.split(2), let token = UInt64(f[0]), let status = UInt32(f[1]) else { return nil }
            return .apiAnswer(token: token, status: status, body: rest)
        case UInt8(ascii: "G"):
            guard let (f, _) = fields.split(1, last: true), !f[0].isEmpty else { return nil }
            return .forgotten(from: f[0])
        default:
            return nil
        }
    }
}

extension ClusterEnvelope.ReplyKind {
    /// One field, without `|`: `p`, `j:GAME:KIND:PLAYER` (`-` for a spectator), `d:SEQ`, `a`, `l:GAME`.
    var field: String {
        switch self {
        case .plain: return "p"
        case .joined(let game, let kind, let player): return "j:\(game):\(kind):\(player ?? "-")"
        case .diff(let seq): return "d:\(seq)"
        case .answer: return "a"
        case .left(let game): return "l:\(game)"
        }
    }

    init?(field: String) {
        let parts = field.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("p", 1): self = .plain
        case ("a", 1): self = .answer
        case ("d", 2):
            guard let seq = Int(parts[1]) else { return nil }
            self = .diff(seq: seq)
        case ("l", 2): self = .left(game: parts[1])
        case ("j", 4): self = .joined(game: parts[1], kind: parts[2], player: parts[3] == "-" ? nil : parts[3])
        default: return nil
        }
    }

    /// The kind of a frame the owner's encoder typed.
    init(_ kind: FrameKind) {
        switch kind {
        case .plain: self = .plain
        case .joined(let game, let gameKind, let role):
            if case .player(let player) = role { self = .joined(game: game, kind: gameKind.rawValue, player: player) }
            else { self = .joined(game: game, kind: gameKind.rawValue, player: nil) }
        case .diff(let seq): self = .diff(seq: seq)
        case .answer: self = .answer
        case .left(let game): self = .left(game: game)
        }
    }
}

/// One broadcast of a game, on the game's channel (and a live diff also in its capped
/// stream): for a diff, every view's frame in one message, so a node passes each member the
/// frame of its audience and sees one seq once. A game with a spectator delay publishes its
/// spectators' copies as a second, delayed stream with a seq of its own.
struct Publication: Sendable, Equatable {
    var isDiff: Bool
    var seq: Int
    var parts: [Part]
    /// The delayed spectators' stream (`~`), as it comes due on the owner.
    var delayed = false

    struct Part: Sendable, Equatable {
        /// Audience tags (`AudienceKey.tag`), or `all` (events, presence: every live audience).
        var views: [String]
        var frame: [UInt8]
    }

    /// `d|SEQ|N|` (`a` for any other broadcast; `D`, `A` on the delayed stream), then per part
    /// `VIEWS|LENGTH|FRAME`.
    var bytes: [UInt8] {
        let letter = delayed ? (isDiff ? "D" : "A") : (isDiff ? "d" : "a")
        var bytes = Array("\(letter)|\(seq)|\(parts.count)|".utf8)
        for part in parts { bytes += Array("\(part.views.joined(separator: ","))|\(part.frame.count)|".utf8) + part.frame }
        return bytes
    }

    static func parse(_ bytes: [UInt8]) -> Publication? {
        guard let kind = bytes.first, Array("daDA".utf8).contains(kind),
              let (f, rest) = Fields(bytes)?.split(2), let seq = Int(f[0]), let count = Int(f[1]), (1...16).contains(count)
        else { return nil }
        var parts: [Part] = []
        var at = rest.startIndex
        for _ in 0..<count {
            guard let bar = rest[at...].firstIndex(of: UInt8(ascii: "|")),
                  let bar2 = rest[(bar + 1)...].firstIndex(of: UInt8(ascii: "|")),
                  let length = Int(String(decoding: rest[(bar + 1)..<bar2], as: UTF8.self)),
                  length >= 0, bar2 + 1 + length <= rest.endIndex else { return nil }
            let views = String(decoding: rest[at..<bar], as: UTF8.self).split(separator: ",").map(String.init)
            parts.append(Part(views: views, frame: Array(rest[(bar2 + 1)..<(bar2 + 1 + length)])))
            at = bar2 + 1 + length
        }
        return Publication(isDiff: kind == UInt8(ascii: "d") || kind == UInt8(ascii: "D"), seq: seq, parts: parts,
                           delayed: kind == UInt8(ascii: "D") || kind == UInt8(ascii: "A"))
    }
}

/// The `|`-separated fields after a message's letter.
private struct Fields {
    let bytes: [UInt8]

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 2, bytes[1] == UInt8(ascii: "|") else { return nil }
        self.bytes = bytes
    }

    /// The first `count` fields, and the bytes after them. With `last`, the final field runs
    /// to the end (there is no trailing payload).
    func split(_ count: Int, last: Bool = false) -> ([String], [UInt8])? {
        var parts: [String] = []
        var start = 2
        while parts.count < count {
            if last && parts.count == count - 1 {
                let tail = bytes[start...]
                guard !tail.contains(UInt8(ascii: "|")) else { return nil }
                parts.append(String(decoding: tail, as: UTF8.self))
                return (parts, [])
            }
            guard let bar = bytes[start...].firstIndex(of: UInt8(ascii: "|")) else { return nil }
            parts.append(String(decoding: bytes[start..<bar], as: UTF8.self))
            start = bar + 1
        }
        return (parts, Array(bytes[start...]))
    }
}

extension FrameKind {
    /// A reply's kind as the owner sent it, for the frame passed on to the client.
    init(_ kind: ClusterEnvelope.ReplyKind) {
        switch kind {
        case .diff(let seq): self = .diff(seq: seq)
        case .answer: self = .answer
        case .left(let game): self = .left(game: game)
        case .plain, .joined: self = .plain
        }
    }
}
