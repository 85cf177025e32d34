import Core

/// Who may watch a game (PROTOCOL section 19): the `watch` option of `create`.
enum WatchPolicy: String, Sendable, Equatable {
    case anyone
    /// Only those given the game's watch key; in no lobby or list.
    case link
    /// Nobody but its players; in no lobby or list.
    case players

    static func read(_ options: JSON) throws(ProtocolError) -> WatchPolicy {
        switch options["watch"] {
        case nil, .null?: return .anyone
        case .string(let name)?:
            guard let policy = WatchPolicy(rawValue: name) else { throw .bad("watch must be anyone, link or players") }
            return policy
        default: throw .bad("watch must be anyone, link or players")
        }
    }

    /// The policy of stored options (checked when the game was created).
    init(stored options: JSON) { self = (try? Self.read(options)) ?? .anyone }

    /// Listed in the lobby and `/api/games`.
    var isListed: Bool { self == .anyone }
}

/// A game's watch key as stored in its options (a secret: never shown to spectators).
enum WatchKey {
    static let option = "watchKey"

    static func of(_ options: JSON) -> String? { options[option]?.stringValue }

    /// A new key: 128 random bits, base64url (22 characters).
    static func make(using random: inout some RandomNumberGenerator) -> String { Secrets.token(using: &random) }

    /// The `key` of a query string (`key=...`), if it could be a key: base64url characters only,
    /// so it may travel in a cluster envelope as it is.
    static func fromQuery(_ query: String?) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") where pair.hasPrefix("key=") {
            let key = pair.dropFirst(4)
            guard !key.isEmpty, key.utf8.count <= 64, key.utf8.allSatisfy(isKeyCharacter) else { return nil }
            return String(key)
        }
        return nil
    }

    private static func isKeyCharacter(_ byte: UInt8) -> Bool {
        GameIDs.isIDCharacter(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    /// Whether `key` opens the game to a spectator: constant time, as for tokens.
    static func matches(_ key: String?, options: JSON) -> Bool {
        guard let key, let expected = of(options) else { return false }
        let a = Array(key.utf8), b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The signed-in users who played a game (PROTOCOL section 19): each player id (a seat in a game
/// with seats) and the user it belongs to, stored with the game so a user takes it back from any
/// device, any node, after a restart. Ids and names only: never a token.
struct GameUsers: Equatable, Sendable {
    struct Holder: Equatable, Sendable {
        var user: String
        var name: String
    }

    private(set) var byPlayer: [String: Holder] = [:]
    /// Where they are kept in the game's stored options.
    static let option = "users"

    init() {}

    /// From the stored form `{"p1":{"user":"u1","name":"Ada"}}`; anything malformed is skipped.
    init(stored: JSON?) {
        guard case .object(let pairs)? = stored else { return }
        for (player, value) in pairs {
            guard let user = value["user"]?.stringValue, let name = value["name"]?.stringValue else { continue }
            byPlayer[player] = Holder(user: user, name: name)
        }
    }

    var isEmpty: Bool { byPlayer.isEmpty }

    /// One past the highest `pN` a user holds: new players of a game without seats never get a user's id.
    var nextPlayerNumber: Int {
        byPlayer.keys.compactMap { $0.hasPrefix("p") ? Int($0.dropFirst()) : nil }.max().map { $0 + 1 } ?? 1
    }

    /// The player id a user has in this game, if any (the first, should there be several).
    func player(of user: String) -> String? {
        byPlayer.filter { $0.value.user == user }.keys.sorted().first
    }

    func holder(of player: String) -> Holder? { byPlayer[player] }

    /// Notes that `user` plays as `player` (its name may have changed); true if anything changed.
    mutating func record(_ user: SignedUser, as player: String) -> Bool {
        let holder = Holder(user: user.id, name: user.name)
        guard byPlayer[player] != holder else { return false }
        byPlayer[player] = holder
        return true
    }

    /// `names` as members see it: `{"p1":"Ada"}`, in player order.
    var names: JSON {
        .object(byPlayer.keys.sorted().map { ($0, JSON.string(byPlayer[$0]!.name)) })
    }

    /// The stored form; nil when no signed-in user played.
    var stored: JSON? {
        guard !byPlayer.isEmpty else { return nil }
        return .object(byPlayer.keys.sorted().map { player in
            let holder = byPlayer[player]!
            return (player, JSON.object([("user", .string(holder.user)), ("name", .string(holder.name))]))
        })
    }
}

/// `--require-auth` (section 19): a connection that is not signed in may not create, join or chat.
struct SignInRequirement {
    var required = false

    func refusal(_ session: Session?, now: Instant) -> ProtocolError? {
        guard required, session?.signedIn(at: now) == nil else { return nil }
        return ProtocolError(.forbidden, "sign in first: this server requires auth (send auth with your token)")
    }
}
