import Core

/// What a node's attempt to own a game came to.
enum Acquisition: Sendable {
    /// This node owns it now, at this epoch, and here it is as storage holds it.
    case loaded(LoadedGame, GameOwnership)
    /// Another node owns it and may not be taken from.
    case ownedBy(GameOwnership)
    case notFound
    case failed(String)
}

extension GameLoader {
    /// Claims a game in a shared store (if nobody holds it, this node held it before, or its
    /// owner may be taken from), then loads it: every diff its last owner acknowledged is
    /// stored, and from the claim on that owner can write nothing more (its epoch is gone).
    /// Runs off the service thread, like every store call.
    static func acquire(_ game: String, from store: any SharedGameStore, by claimant: Claimant,
                        games: GameCatalog, windowSize: Int, asOf: Double) -> Acquisition {
        do {
            guard var current = try store.ownership(of: game) else { return .notFound }
            // Two tries: a claim lost to a node that gave the game up at once (a rest) may win the next.
            for _ in 0..<2 {
                if let owner = current.node, owner != claimant.node, !claimant.takeover.allows(takingFrom: owner) {
                    return .ownedBy(current)
                }
                switch try store.claim(game: game, node: claimant.node, expectedEpoch: current.epoch) {
                case .claimed(let mine):
                    switch load(game, from: store, games: games, windowSize: windowSize, asOf: asOf) {
                    case .loaded(let loaded): return .loaded(loaded, mine)
                    case .notFound: return .notFound
                    case .failed(let why):
                        // Another node may have claimed the game while this one read it (a slow
                        // load: the replay went past the row read first). Then the game is
                        // that node's, and this node's members go on through it.
                        if let now = try? store.ownership(of: game), now != mine { return .ownedBy(now) }
                        return .failed(why)
                    }
                case .lost(let now):
                    current = now
                case .notFound:
                    return .notFound
                }
            }
            return .ownedBy(current)
        } catch {
            return .failed("\(error)")
        }
    }
}
