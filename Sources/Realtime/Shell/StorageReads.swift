import Core

/// The hub's storage reads, carried out on the reader threads (`OffServiceWork`): each
/// answer comes back to the service thread as a `HubEvent.read`.
struct StorageReads {
    let store: any GameStore
    /// The store again when several nodes share it: claims, releases, owners.
    let sharedStore: (any SharedGameStore)?
    let windowSize: Int
    let games: GameCatalog
    let metrics: ServerMetrics
    let work: OffServiceWork

    /// The most chat lines a replay shows: a game's first 10,000.
    static let replayChatLimit = 10_000

    func carryOut(_ request: StorageRead, asOf: Double) {
        let store = self.store
        switch request {
        case .load(let game):
            metrics.gamesLoaded.increment()
            let window = windowSize
            let games = self.games
            work.read {
                .event(.read(.loaded(game: game, GameLoader.load(game, from: store, games: games, windowSize: window, asOf: asOf))))
            }
        case .history(let history):
            work.read {
                .event(.read(.history(token: history.token, frames: (try? store.diffs(
                    game: history.game, after: history.after, limit: history.limit)) ?? [])))
            }
        case .command(let token, let game, let clientID):
            work.read { .event(.read(.command(token: token, seq: (try? store.command(game: game, clientID: clientID))?.seq))) }
        case .listing(let token, let query):
            work.read {
                .event(.read(.listing(token: token, games: try? store.recentGames(
                    kind: query.kind?.rawValue, statuses: query.words, limit: query.limit))))
            }
        case .chat(let token, let game, let through):
            work.read { .event(.read(.chat(token: token, lines: (try? store.chat(game: game, after: -1, through: through,
                                                                             limit: Self.replayChatLimit)) ?? []))) }
        case .acquire(let game, let node, let takeover):
            guard let shared = sharedStore else { return }
            metrics.gamesLoaded.increment()
            let window = windowSize
            let games = self.games
            work.read {
                let claimant = Claimant(node: node, takeover: takeover)
                return .event(.read(.acquired(game: game, GameLoader.acquire(game, from: shared, by: claimant, games: games,
                                                                              windowSize: window, asOf: asOf))))
            }
        case .release(let game, let node, let epoch):
            guard let shared = sharedStore else { return }
            work.run { _ = try? shared.release(game: game, node: node, epoch: epoch) }
        case .ownerships(let token, let games):
            guard let shared = sharedStore else { return }
            work.read {
                // A failure leaves the rest unasked (each would wait out the same timeout): the hub
                // asks about them again.
                var owners: [String: GameOwnership] = [:]
                for (index, game) in games.enumerated() {
                    do {
                        if let owner = try shared.ownership(of: game) { owners[game] = owner }
                    } catch {
                        return .event(.read(.ownerships(token: token, owners, unchecked: Array(games[index...]))))
                    }
                }
                return .event(.read(.ownerships(token: token, owners)))
            }
        }
    }
}
