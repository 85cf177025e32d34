import Core

/// The lobby: its entries (this node's live games and, in a cluster, the other live nodes'),
/// the message encoded once per change, and the connections that follow it (a new `lobby`
/// at most once a second while it changes).
final class LobbyFeed {
    private let rooms: RoomTable
    private var followers: Set<ConnectionID> = []
    private var dirty = false
    private var cache: OutFrame?
    private var lastSent = Instant.distantPast
    /// Other live nodes' own lobby entries, by node (a cluster).
    private var remote: [String: [LobbyEntry]] = [:]

    init(rooms: RoomTable) { self.rooms = rooms }

    /// Something the lobby shows changed: followers hear of it on the next tick.
    func changed() {
        dirty = true
        cache = nil
    }

    func follow(_ id: ConnectionID, _ follow: Bool?) {
        if follow == true { followers.insert(id) }
        if follow == false { followers.remove(id) }
    }

    func forget(_ id: ConnectionID) { followers.remove(id) }

    func setRemote(_ lobbies: [String: [LobbyEntry]]) {
        remote = lobbies
        changed()
    }

    var remoteEntries: [LobbyEntry] { Array(remote.values.joined()) }

    /// The lobby message, encoded once per change however often clients ask for it.
    func frame() -> OutFrame {
        if let cache { return cache }
        let frame = ServerMessage.lobby(entries()).frame
        cache = frame
        return frame
    }

    /// The live games of this node and, in a cluster, of every other live node.
    func entries() -> [LobbyEntry] {
        guard !remote.isEmpty else { return Lobby.top(rooms.lobbyEntries, limit: Lobby.liveLimit) }
        return Lobby.top(Array(rooms.lobbyEntries) + remoteEntries, limit: Lobby.liveLimit)
    }

    /// This node's own entries, for the other nodes.
    var ownEntries: [LobbyEntry] { Lobby.top(rooms.lobbyEntries, limit: Lobby.liveLimit) }

    func tick(now: Instant, into effects: inout Effects) {
        guard dirty, !followers.isEmpty, now.since(lastSent) >= 1 else { return }
        dirty = false
        lastSent = now
        effects.append(.broadcast(frame(), to: Audience(followers.sorted()), arrival: nil))
    }
}

/// `/api/games` and `/api/games/GAME` (PROTOCOL sections 1 and 10).
struct HTTPAPI {
    let rooms: RoomTable
    let lobby: LobbyFeed
    let pending: PendingTable<PendingRequest>
    let games: GameCatalog
    let pages: [PageModule]

    func request(_ request: HTTPRequestID, path: String, query: String?, into effects: inout Effects) {
        if path == "/api/games" || path == "/api/games/" {
            switch LobbyQuery.parse(query, games: games) {
            case .failure(let refusal):
                effects.append(.respond(request, .text(400, refusal.why + "\n")))
            case .success(let lobbyQuery) where lobbyQuery.reachesRestingGames:
                let token = pending.issue(.listing(request, lobbyQuery))
                effects.append(.read(.listing(token: token, query: lobbyQuery)))
            case .success(let lobbyQuery):
                let entries = Lobby.top((Array(rooms.lobbyEntries) + lobby.remoteEntries).filter(lobbyQuery.matches),
                                        limit: lobbyQuery.limit)
                effects.append(.respond(request, .json(LobbyEntry.array(entries))))
            }
        } else if path.hasPrefix("/api/games/") {
            let game = String(path.dropFirst("/api/games/".count))
            let key = WatchKey.fromQuery(query)
            if let room = rooms[game] {
                effects.append(.respond(request, room.apiAnswer(key: key)))
            } else if GameIDs.isPlausible(game) {
                rooms.awaitLoad(game, for: .http(request, key: key), into: &effects)
            } else {
                effects.append(.respond(request, .text(404, "no game \(game)\n")))
            }
        } else if path == "/api/pages" {
            effects.append(.respond(request, .json(JSON.array(pages.map(\.json)).encoded)))
        } else {
            effects.append(.respond(request, .text(404, "not found\n")))
        }
    }

    /// Stored games for a listing past the live lobby (nil: storage could not be read).
    func listed(_ request: HTTPRequestID, _ query: LobbyQuery, games: [StoredGame]?, into effects: inout Effects) {
        guard let games else {
            effects.append(.respond(request, .text(503, "storage cannot be read now\n")))
            return
        }
        let live = Array(rooms.lobbyEntries)
        effects.append(.respond(request, .json(LobbyEntry.array(Lobby.merged(live: live, stored: games, query: query)))))
    }
}
