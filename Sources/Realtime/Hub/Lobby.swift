import Core

/// The filters of `/api/games` (PROTOCOL section 10).
public struct LobbyQuery: Sendable, Equatable {
    public var kind: GameKind?
    /// A status word some game shows (`won`), or a phase every game has (`waiting`, `playing`, `over`).
    public var status: String? {
        didSet { words = status.map { [$0] } }
    }
    /// The status words `status` stands for: itself, or for a phase, every word the catalog's games
    /// show in that phase (nil: any).
    private(set) var words: [String]?
    public var limit = Lobby.liveLimit

    public init(kind: GameKind? = nil, status: String? = nil, limit: Int = Lobby.liveLimit) {
        self.kind = kind
        self.status = status
        self.limit = limit
        words = status.map { [$0] }
    }

    /// The words `status=` takes: every phase, and every status word of the catalog's games.
    static func statuses(of games: GameCatalog) -> Set<String> {
        games.statusWords.union(GameStatus.Phase.allCases.map(\.rawValue))
    }

    /// Reads `kind=KIND&status=STATUS&limit=N`; anything else, or a bad value, is refused
    /// with a sentence for the HTTP 400 body.
    struct Refusal: Error, Equatable {
        var why: String
    }

    static func parse(_ query: String?, games: GameCatalog) -> Result<LobbyQuery, Refusal> {
        var result = LobbyQuery()
        guard let query, !query.isEmpty else { return .success(result) }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch name {
            case "kind":
                guard games.game(named: value) != nil else {
                    return .failure(Refusal(why: "kind must be one of \(games.kinds.joined(separator: ", "))"))
                }
                result.kind = GameKind(value)
            case "status":
                let statuses = statuses(of: games)
                guard statuses.contains(value) else {
                    return .failure(Refusal(why: "status must be one of \(statuses.sorted().joined(separator: ", "))"))
                }
                result.status = value
                if let phase = GameStatus.Phase(rawValue: value) { result.words = games.statusWords(in: phase) }
            case "limit":
                guard let limit = Int(value), (1...Lobby.maxLimit).contains(limit) else {
                    return .failure(Refusal(why: "limit must be an integer from 1 to \(Lobby.maxLimit)"))
                }
                result.limit = limit
            default:
                return .failure(Refusal(why: "unknown filter \(name): use kind, status or limit"))
            }
        }
        return .success(result)
    }

    /// Whether the entry passes: its kind, and its status word (or the phase it stands for).
    func matches(_ entry: LobbyEntry) -> Bool {
        (kind == nil || entry.kind == kind) && (words == nil || words?.contains(entry.status) == true)
    }

    /// A limit above the live lobby's may reach into resting games.
    var reachesRestingGames: Bool { limit > Lobby.liveLimit }
}

public enum Lobby {
    /// The most games a `lobby` message or a plain `/api/games` lists: frames stay small.
    public static let liveLimit = 100
    public static let maxLimit = 1000

    /// The lobby's first `limit` live games: most spectators first, then the most recent
    /// activity. A partial selection, so its cost grows with the live games, not their square.
    static func top(_ entries: some Sequence<LobbyEntry>, limit: Int) -> [LobbyEntry] {
        var best: [LobbyEntry] = []
        best.reserveCapacity(limit + 1)
        for entry in entries {
            if best.count == limit, let last = best.last, !LobbyEntry.lobbyOrder(entry, last) { continue }
            let index = best.partitioningIndex { !LobbyEntry.lobbyOrder($0, entry) }
            best.insert(entry, at: index)
            if best.count > limit { best.removeLast() }
        }
        return best
    }

    /// Live games and stored ones merged (a live game's counts win), newest activity first.
    static func merged(live: [LobbyEntry], stored: [StoredGame], query: LobbyQuery) -> [LobbyEntry] {
        var byID: [String: LobbyEntry] = [:]
        // A game watched by link or by its players only is in no list (section 19).
        for game in stored where WatchPolicy(stored: game.options).isListed {
            byID[game.id] = LobbyEntry(game: game.id, kind: GameKind(game.kind), status: game.status, seq: game.seq, players: 0,
                                       spectators: 0, created: game.created, updated: game.updated)
        }
        for entry in live { byID[entry.game] = entry }
        return byID.values.filter(query.matches)
            .sorted { ($0.updated, $0.game) > ($1.updated, $1.game) }
            .prefix(query.limit).map { $0 }
    }
}

extension Array {
    /// The first index whose element satisfies `belongsInSecondPart`, for an array partitioned by it.
    func partitioningIndex(where belongsInSecondPart: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if belongsInSecondPart(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
