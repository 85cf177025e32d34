import Core

/// The protocol's error codes (PROTOCOL section 8), in the order checks run.
public enum ErrorCode: String, Sendable, CaseIterable {
    case badRequest = "bad-request"
    case unknownType = "unknown-type"
    case notFound = "not-found"
    case notJoined = "not-joined"
    case forbidden = "forbidden"
    case illegalMove = "illegal-move"
    /// The game cannot be served now (its storage failed, or its owner node is out of reach); try again.
    case unavailable = "unavailable"
    /// Over one of the operator's limits (games created) or chat's own limit; the message says when to try again.
    case limited = "limited"
    case rateLimited = "rate-limited"
}

/// A refusal on its way to the client as an `error` message.
public struct ProtocolError: Error, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    static func bad(_ message: String) -> ProtocolError { ProtocolError(.badRequest, message) }
    static func unavailable(_ message: String) -> ProtocolError { ProtocolError(.unavailable, message) }

    init(_ error: GameError) {
        let code: ErrorCode
        switch error.code {
        case .badRequest: code = .badRequest
        case .illegalMove: code = .illegalMove
        case .unknownType: code = .unknownType
        case .forbidden: code = .forbidden
        }
        self.init(code, error.message)
    }
}

/// A game's kind name (`create`'s `kind`): whatever games the catalog offers.
public struct GameKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ name: String) { rawValue = name }
    public var description: String { rawValue }
}

/// A client message after the envelope checks: its id and what it asks.
public struct ClientRequest: Sendable, Equatable {
    /// The `id` as the client sent it (a string or an integer), echoed in the reply.
    public var id: JSON?
    public var command: ClientCommand
    /// The whole message in its JSON form (a shorthand line too): what a cluster node
    /// forwards to a game's owner.
    public var message: JSON = .null

    public init(id: JSON?, command: ClientCommand, message: JSON = .null) {
        self.id = id
        self.command = command
        self.message = message
    }
}

public enum ClientCommand: Sendable, Equatable {
    case create(kind: GameKind, options: JSON)
    /// `seat`: in a game with seats, the seat to take back (`p2`); otherwise the first free one.
    /// `token` nil: a signed-in user taking back their own place (PROTOCOL section 19).
    case join(game: String, token: String?, since: Int?, seat: String? = nil)
    /// `replay`: a snapshot of seq 0 first, then every diff (an extension: see docs/PROTOCOL.md).
    /// `key`: the watch key of a game watched by link (section 19).
    case watch(game: String, since: Int?, replay: Bool = false, key: String? = nil)
    /// Signs the connection in with a JSON Web Token (section 19).
    case auth(jwt: String)
    case leave
    case list(follow: Bool?)
    case show
    case hint
    /// A game command whose fields are read once the game's kind is known (`unknown-type` if no game has it).
    case gesture(type: String, message: JSON)
    /// Chat (PROTOCOL section 15): `room` nil is the sender's own room.
    case say(text: String, room: ChatRoom?)
    /// A player stops a spectator (`s3`) from writing in the game's chat.
    case mute(who: String)
}

/// The two chat rooms of a game.
public enum ChatRoom: String, Sendable, Equatable, CaseIterable {
    case players, spectators
}

/// Turns a text frame into a request, or the error that answers it.
public enum ClientMessageParser {
    static let maxIDLength = 64

    /// The outcome of reading one frame: a request, or an error (with the id when one could be read).
    public enum Parsed: Sendable, Equatable {
        case request(ClientRequest)
        case failure(ProtocolError, id: JSON?)
    }

    public static func parse(_ bytes: [UInt8], games: GameCatalog) -> Parsed {
        let message: JSON
        if let json = try? JSONText.parseAllowingHugeNumbers(bytes) {
            message = json
        } else if looksLikeJSON(bytes) {
            return .failure(.bad("malformed JSON"), id: nil)
        } else {
            let line = String(decoding: bytes, as: UTF8.self)
            switch Shorthand.message(from: line, games: games) {
            case .success(let json): message = json
            case .failure(let error): return .failure(error, id: nil)
            }
        }
        return parse(message: message, games: games)
    }

    /// A frame is a message when its first non-space character opens JSON (or it parses as JSON);
    /// an empty or all-space frame is a bad request too, not a command line.
    static func looksLikeJSON(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { !isSpace($0) }) else { return true }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    public static func parse(message: JSON, games: GameCatalog) -> Parsed {
        guard case .object = message else { return .failure(.bad("a message must be a JSON object"), id: nil) }
        var id: JSON?
        if let raw = message["id"] {
            switch raw {
            case .string(let s) where s.count <= maxIDLength: id = raw
            case .int: id = raw
            case .double where raw.intValue != nil: id = .int(raw.intValue!)
            default:
                return .failure(.bad("id must be a string of at most \(maxIDLength) characters or an integer"), id: nil)
            }
        }
        guard let typeValue = message["type"] else { return .failure(.bad("missing type"), id: id) }
        guard let type = typeValue.stringValue else { return .failure(.bad("type must be a string"), id: id) }
        do {
            let command = try command(type: type, message: message, games: games)
            return .request(ClientRequest(id: id, command: command, message: message))
        } catch {
            return .failure(error, id: id)
        }
    }

    private static func command(type: String, message: JSON, games: GameCatalog) throws(ProtocolError) -> ClientCommand {
        switch type {
        case "create":
            guard let kindName = message["kind"]?.stringValue else { throw .bad("create needs a kind") }
            guard games.game(named: kindName) != nil else {
                throw .bad("unknown kind \(kindName): \(games.kinds.joined(separator: ", "))")
            }
            let kind = GameKind(kindName)
            let options = message["options"] ?? .object([])
            guard case .object = options else { throw .bad("options must be an object") }
            return .create(kind: kind, options: options)
        case "join":
            let game = try gameID(message)
            var token: String?
            switch message["token"] {
            case nil, .null?: break
            case .string(let given)?: token = given
            default: throw .bad("token must be a string")
            }
            var seat: String?
            switch message["seat"] {
            case nil, .null?: break
            case .string(let name)?: seat = name
            default: throw .bad("seat must be a seat name such as p2")
            }
            return .join(game: game, token: token, since: try since(message), seat: seat)
        case "watch":
            let replay: Bool
            switch message["replay"] {
            case nil, .null?: replay = false
            case .bool(let value)?: replay = value
            default: throw .bad("replay must be true or false")
            }
            var key: String?
            switch message["key"] {
            case nil, .null?: break
            case .string(let given)?: key = given
            default: throw .bad("key must be a string")
            }
            return .watch(game: try gameID(message), since: try since(message), replay: replay, key: key)
        case "auth":
            guard case .string(let jwt)? = message["jwt"], !jwt.isEmpty else { throw .bad("auth needs a jwt") }
            return .auth(jwt: jwt)
        case "leave": return .leave
        case "list":
            switch message["follow"] {
            case nil, .null?: return .list(follow: nil)
            case .bool(let follow)?: return .list(follow: follow)
            default: throw .bad("follow must be true or false")
            }
        case "show": return .show
        case "hint": return .hint
        case "say":
            guard case .string(let text)? = message["text"] else { throw .bad("say needs a text") }
            var room: ChatRoom?
            switch message["to"] {
            case nil, .null?: break
            case .string(let name)?:
                guard let named = ChatRoom(rawValue: name) else { throw .bad("to must be players or spectators") }
                room = named
            default: throw .bad("to must be players or spectators")
            }
            return .say(text: text, room: room)
        case "mute":
            guard case .string(let who)? = message["who"], !who.isEmpty else { throw .bad("mute needs who: a spectator such as s3") }
            return .mute(who: who)
        case _ where (Gesture(rawValue: type) != nil && !games.games.isEmpty) || games.hasCommand(type):
            // A generic gesture or a game's own command: read by the game once its kind is known (`GameCatalog.parse`).
            return .gesture(type: type, message: message)
        default:
            throw ProtocolError(.unknownType, "unknown type \(type)")
        }
    }

    private static func gameID(_ message: JSON) throws(ProtocolError) -> String {
        guard let game = message["game"]?.stringValue, !game.isEmpty else { throw .bad("game must be a game id") }
        return game
    }

    private static func since(_ message: JSON) throws(ProtocolError) -> Int? {
        switch message["since"] {
        case nil, .null?: return nil
        case let value?:
            guard let n = value.intValue, n >= 0 else { throw .bad("since must be a non-negative integer") }
            return n
        }
    }
}

extension GameCatalog {
    /// For reading messages that are never game commands (a join the server sends again itself).
    static let noGameCommands = GameCatalog([])
}
