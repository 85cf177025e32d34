import Core
import Foundation

/// Every message the server sends (PROTOCOL sections 3 to 8, 12 and 13), with one
/// encoder. Each message is encoded once, whatever the number of receivers; the
/// bytes of each case are pinned by a golden test.
enum ServerMessage: Sendable {
    /// `key`: the watch key of a game watched by link or by its players only (section 19).
    case created(game: String, token: String, key: String? = nil)
    /// `delay`: the game's spectator delay in seconds, when it has one (an extension: docs/PROTOCOL.md).
    /// `now`: the server's Unix time (section 17: every `joined` carries it); `clock` and `bots`
    /// as the game's options give them (sections 17 and 18).
    case joined(game: String, kind: GameKind, role: Role, seq: Int, delay: Double? = nil, clock: JSON? = nil,
                bots: JSON? = nil, now: Double? = nil, access: JoinedAccess = JoinedAccess())
    case snapshot(game: String, kind: GameKind, seq: Int, state: JSON)
    /// The ops array arrives already encoded by Core, so it is never rebuilt as a tree.
    case diff(game: String, seq: Int, encodedOps: String, cause: JSON)
    case event(game: String, seq: Int, event: GameEvent)
    case ack(id: JSON, seq: Int?)
    case error(ProtocolError, id: JSON?)
    case left(game: String)
    /// `names`: the signed-in players' names by player id, where users sign in (section 19).
    case presence(game: String, players: Int, spectators: Int, names: JSON? = nil)
    /// `from`, `to`, then the game's own fields (none for most games).
    case hint(Hint)
    case lobby([LobbyEntry])
    /// A connection signed in (section 19): the user's id and name, and when the token expires.
    case authed(user: String, name: String, expires: Double)
    /// A chat line (PROTOCOL section 15); `at` in Unix seconds, sent as RFC 3339; `number` its
    /// place in the game's chat (`n`, an extension: a client drops a line it already has).
    /// `name`: a signed-in player's name (section 19).
    case chat(game: String, room: ChatRoom, by: String, text: String, at: Double, number: Int, name: String? = nil)

    var encoded: String {
        switch self {
        case .created(let game, let token, let key):
            var pairs: [(key: String, value: JSON)] = [("type", "created"), ("game", .string(game)), ("token", .string(token))]
            if let key { pairs.append(("key", .string(key))) }
            return JSON.object(pairs).encoded
        case .joined(let game, let kind, let role, let seq, let delay, let clock, let bots, let now, let access):
            var pairs: [(key: String, value: JSON)] = [
                ("type", "joined"), ("game", .string(game)), ("kind", .string(kind.rawValue)),
                ("role", .string(role.name)), ("seq", .int(seq)),
            ]
            if case .player(let you) = role { pairs.append(("you", .string(you))) }
            if let delay { pairs.append(("delay", JSON.seconds(delay))) }
            if let clock { pairs.append(("clock", clock)) }
            if let bots { pairs.append(("bots", bots)) }
            if let now { pairs.append(("now", .string(RFC3339.formatMilliseconds(Int((now * 1000).rounded()))))) }
            if let names = access.names { pairs.append(("names", names)) }
            if let watch = access.watch { pairs.append(("watch", .string(watch))) }
            if let key = access.key { pairs.append(("key", .string(key))) }
            return JSON.object(pairs).encoded
        case .snapshot(let game, let kind, let seq, let state):
            return JSON.object([
                "type": "snapshot", "game": .string(game), "kind": .string(kind.rawValue), "seq": .int(seq),
                "state": state,
            ]).encoded
        case .diff(let game, let seq, let encodedOps, let cause):
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
        case .event(let game, let seq, let event):
            return JSON.object(
                [("type", "event"), ("game", .string(game)), ("seq", .int(seq)), ("event", .string(event.name))]
                    + event.fields
            ).encoded
        case .ack(let id, let seq):
            var pairs: [(key: String, value: JSON)] = [("type", "ack"), ("id", id)]
            if let seq { pairs.append(("seq", .int(seq))) }
            return JSON.object(pairs).encoded
        case .error(let error, let id):
            var pairs: [(key: String, value: JSON)] = [
                ("type", "error"), ("code", .string(error.code.rawValue)), ("message", .string(error.message)),
            ]
            if let id { pairs.append(("id", id)) }
            return JSON.object(pairs).encoded
        case .left(let game):
            return JSON.object(["type": "left", "game": .string(game)]).encoded
        case .presence(let game, let players, let spectators, let names):
            var pairs: [(key: String, value: JSON)] = [
                ("type", "presence"), ("game", .string(game)), ("players", .int(players)), ("spectators", .int(spectators)),
            ]
            if let names { pairs.append(("names", names)) }
            return JSON.object(pairs).encoded
        case .hint(let hint):
            let pairs: [(key: String, value: JSON)] = [
                ("type", "hint"), ("from", hint.from.map(JSON.string) ?? .null), ("to", hint.to.map(JSON.string) ?? .null),
            ]
            return JSON.object(pairs + hint.fields).encoded
        case .lobby(let games):
            return JSON.object(["type": "lobby", "games": .array(games.map(\.json))]).encoded
        case .authed(let user, let name, let expires):
            return JSON.object([
                ("type", "authed"), ("user", .string(user)), ("name", .string(name)), ("expires", .string(RFC3339.format(expires))),
            ]).encoded
        case .chat(let game, let room, let by, let text, let at, let number, let name):
            var pairs: [(key: String, value: JSON)] = [
                ("type", "chat"), ("game", .string(game)), ("room", .string(room.rawValue)), ("by", .string(by)),
            ]
            if let name { pairs.append(("name", .string(name))) }
            pairs += [("text", .string(text)), ("at", .string(RFC3339.format(at))), ("n", .int(number))]
            return JSON.object(pairs).encoded
        }
    }

    /// The message as one frame, ready to share among receivers.
    var frame: OutFrame { OutFrame(encoded, kind: frameKind) }

    private var frameKind: FrameKind {
        switch self {
        case .joined(let game, let kind, let role, _, _, _, _, _, _): return .joined(game: game, kind: kind, role: role)
        case .diff(_, let seq, _, _): return .diff(seq: seq)
        case .ack, .error: return .answer
        case .left(let game): return .left(game: game)
        default: return .plain
        }
    }
}

/// What `joined` says of who is who and who may watch (section 19).
struct JoinedAccess: Sendable, Equatable {
    /// The signed-in players' names by player id (only where users sign in).
    var names: JSON?
    /// The game's watch policy when it is not `anyone`.
    var watch: String?
    /// The watch key, for a player of a game watched by link or by players only.
    var key: String?
}

extension JSON {
    /// Seconds as a person wrote them: an integer when whole.
    static func seconds(_ value: Double) -> JSON { value == value.rounded() ? .int(Int(value)) : .double(value) }
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

    var isPlayer: Bool {
        if case .player = self { return true }
        return false
    }
}

/// One game as the lobby shows it.
public struct LobbyEntry: Sendable, Equatable {
    public var game: String
    public var kind: GameKind
    public var status: String
    public var seq: Int
    public var players: Int
    public var spectators: Int
    public var created: Double
    public var updated: Double
    /// The number of seats of a game with seats (nil for others).
    public var seats: Int?
    /// The spectator delay in seconds (nil for none).
    public var delay: Double?
    /// The clock option and the bots' seats and levels, when the game has them (sections 17 and 18).
    var clock: JSON?
    var bots: JSON?
    /// Signed-in players' names (section 19), where users sign in.
    var names: JSON?
    /// Who may watch, when not anyone (only `/api/games/GAME` with its key shows such a game).
    var watch: String?

    var json: JSON {
        var pairs: [(key: String, value: JSON)] = [
            ("game", .string(game)), ("kind", .string(kind.rawValue)), ("status", .string(status)), ("seq", .int(seq)),
            ("players", .int(players)), ("spectators", .int(spectators)),
            ("created", .string(RFC3339.format(created))), ("updated", .string(RFC3339.format(updated))),
        ]
        if let seats { pairs.append(("seats", .int(seats))) }
        if let delay { pairs.append(("delay", JSON.seconds(delay))) }
        if let clock { pairs.append(("clock", clock)) }
        if let bots { pairs.append(("bots", bots)) }
        if let names { pairs.append(("names", names)) }
        if let watch { pairs.append(("watch", .string(watch))) }
        return .object(pairs)
    }

    /// The lobby's order: most spectators first, then the most recent activity.
    static func lobbyOrder(_ a: LobbyEntry, _ b: LobbyEntry) -> Bool {
        (a.spectators, a.updated, a.game) > (b.spectators, b.updated, b.game)
    }

    static func array(_ entries: [LobbyEntry]) -> String { JSON.array(entries.map(\.json)).encoded }
}

extension LobbyEntry {
    /// An entry read back from its JSON (another cluster node's lobby).
    init?(json: JSON) {
        guard let game = json["game"]?.stringValue, let kind = json["kind"]?.stringValue.map(GameKind.init(rawValue:)),
              let status = json["status"]?.stringValue, let seq = json["seq"]?.intValue,
              let players = json["players"]?.intValue, let spectators = json["spectators"]?.intValue,
              let created = json["created"]?.stringValue.flatMap(RFC3339.parse),
              let updated = json["updated"]?.stringValue.flatMap(RFC3339.parse) else { return nil }
        self.init(game: game, kind: kind, status: status, seq: seq, players: players, spectators: spectators,
                  created: created, updated: updated, seats: json["seats"]?.intValue, delay: json["delay"]?.doubleValue,
                  clock: json["clock"], bots: json["bots"], names: json["names"], watch: json["watch"]?.stringValue)
    }

}

/// RFC 3339 UTC times (`2026-11-21T06:30:00Z`), computed with the C library so no
/// formatter object is shared between threads.
enum RFC3339 {
    /// Reads what `format` writes (whole seconds, UTC).
    static func parse(_ text: String) -> Double? {
        let digits = text.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int32($0) }
        guard digits.count == 6, text.hasSuffix("Z") else { return nil }
        var parts = tm()
        parts.tm_year = digits[0] - 1900
        parts.tm_mon = digits[1] - 1
        parts.tm_mday = digits[2]
        parts.tm_hour = digits[3]
        parts.tm_min = digits[4]
        parts.tm_sec = digits[5]
        return Double(timegm(&parts))
    }

    static func format(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// With milliseconds (`2026-11-25T21:40:07.250Z`): clocks and `joined`'s `now` (section 17).
    static func formatMilliseconds(_ milliseconds: Int) -> String {
        let (seconds, rest) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = format(Double(rest < 0 ? seconds - 1 : seconds))
        let ms = rest < 0 ? rest + 1000 : rest
        return whole.dropLast() + "." + String(repeating: "0", count: ms < 10 ? 2 : ms < 100 ? 1 : 0) + "\(ms)Z"
    }
}
