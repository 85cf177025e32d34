import Core
import Foundation

/// Encoders for the server's messages. Each builds its text once; the caller
/// wraps it in one `OutFrame` however many connections receive it.
enum ServerMessage {
    static func joined(game: String, kind: GameKind, role: Role, seq: Int) -> String {
        var pairs: [(key: String, value: JSON)] = [
            ("type", "joined"), ("game", .string(game)), ("kind", .string(kind.rawValue)),
            ("role", .string(role.name)), ("seq", .int(seq)),
        ]
        if case .player(let you) = role { pairs.append(("you", .string(you))) }
        return JSON.object(pairs).encoded
    }

    static func snapshot(game: String, kind: GameKind, seq: Int, state: JSON) -> String {
        JSON.object([
            "type": "snapshot", "game": .string(game), "kind": .string(kind.rawValue), "seq": .int(seq), "state": state,
        ]).encoded
    }

    /// The diff message, with the ops array already encoded by Core.
    static func diff(game: String, seq: Int, encodedOps: String, cause: JSON) -> String {
        var out = #"{"type":"diff","game":"#
        JSON.writeString(game, into: &out)
        out += #","seq":"#
        out += String(seq)
        out += #","ops":"#
        out += encodedOps
        out += #","cause":"#
        cause.write(into: &out)
        out += "}"
        return out
    }

    static func event(game: String, seq: Int, event: GameEvent) -> String {
        JSON.object([("type", "event"), ("game", .string(game)), ("seq", .int(seq)), ("event", .string(event.name))]
            + event.fields).encoded
    }

    static func ack(id: JSON, seq: Int?) -> String {
        var pairs: [(key: String, value: JSON)] = [("type", "ack"), ("id", id)]
        if let seq { pairs.append(("seq", .int(seq))) }
        return JSON.object(pairs).encoded
    }

    static func error(_ error: ProtocolError, id: JSON?) -> String {
        var pairs: [(key: String, value: JSON)] = [
            ("type", "error"), ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
        ]
        if let id { pairs.append(("id", id)) }
        return JSON.object(pairs).encoded
    }

    static func created(game: String, token: String) -> String {
        JSON.object(["type": "created", "game": .string(game), "token": .string(token)]).encoded
    }

    static func left(game: String) -> String {
        JSON.object(["type": "left", "game": .string(game)]).encoded
    }

    static func presence(game: String, players: Int, spectators: Int) -> String {
        JSON.object([
            "type": "presence", "game": .string(game), "players": .int(players), "spectators": .int(spectators),
        ]).encoded
    }

    static func hint(from: String?, to: String?) -> String {
        JSON.object(["type": "hint", "from": from.map(JSON.string) ?? .null, "to": to.map(JSON.string) ?? .null]).encoded
    }

    static func lobby(_ games: [LobbyEntry]) -> String {
        JSON.object(["type": "lobby", "games": .array(games.map(\.json))]).encoded
    }

    static func lobbyArray(_ games: [LobbyEntry]) -> String {
        JSON.array(games.map(\.json)).encoded
    }
}

/// A connection's place in a game.
enum Role: Equatable, Sendable {
    case player(String)
    case spectator

    var name: String {
        switch self {
        case .player: return "player"
        case .spectator: return "spectator"
        }
    }
}

/// One game as the lobby shows it.
struct LobbyEntry: Sendable {
    var game: String
    var kind: GameKind
    var status: String
    var seq: Int
    var players: Int
    var spectators: Int
    var created: Double
    var updated: Double

    var json: JSON {
        .object([
            "game": .string(game), "kind": .string(kind.rawValue), "status": .string(status), "seq": .int(seq),
            "players": .int(players), "spectators": .int(spectators),
            "created": .string(RFC3339.format(created)), "updated": .string(RFC3339.format(updated)),
        ])
    }
}

/// RFC 3339 UTC times (`2026-11-21T06:30:00Z`), computed with the C library so no
/// formatter object is shared between threads.
enum RFC3339 {
    static func format(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
