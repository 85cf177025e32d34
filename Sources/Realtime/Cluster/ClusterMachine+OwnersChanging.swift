import Core

// Owners changing on a store shared by the nodes (PROTOCOL 11.1): what this node's claims found,
// and its members moving to a game's new owner.
extension ClusterMachine {
    /// This node claimed a game (a load, or a takeover): its members here that went through the
    /// game's old owner become members of the room here. Returns their joins, to admit quietly.
    func acquired(_ game: String, _ ownership: GameOwnership, into effects: inout Effects) -> [NodeRequest] {
        nodes.learn(owner: ownership, of: game)
        if takingOver.remove(game) != nil {
            takeovers += 1
            effects.log(.notice, "took a game over from its gone owner", ["game": game, "epoch": "\(ownership.epoch)"])
        }
        return feeds.takeMembers(of: game, into: &effects).map { .admitQuietly($0.0, $0.1) }
    }

    /// The store says another node owns a game: requests for it go there, and members here
    /// that went through another owner catch up through this one.
    func learned(_ game: String, owner: GameOwnership, now: Instant, into effects: inout Effects) {
        takingOver.remove(game)
        nodes.learn(owner: owner, of: game)
        guard let node = owner.node, node != identity.node else { return }
        for id in feeds.repoint(game, to: node) {
            _ = feeds.resync(id, busy: .leftAlone, now: now, lease: identity.leaseSeconds, into: &effects)
        }
    }

    /// A claim could not be made (the store could not be reached): the next look tries again.
    func claimFailed(_ game: String) { takingOver.remove(game) }

    /// This node lost a game it served (a write refused, a check after its lease ran out):
    /// its members become members through the game's new owner, caught up from what they saw.
    func lost(_ game: String, to owner: GameOwnership, members: [(ConnectionID, JSON, Int)], now: Instant,
              into effects: inout Effects) -> [NodeRequest] {
        effects.log(.warning, "another node owns a game this node served: its members here go on through it",
                    ["game": game, "owner": owner.description])
        nodes.learn(owner: owner, of: game)
        guard let node = owner.node, node != identity.node else {
            // Nobody holds it now: claim it again, and the members come back here.
            for (id, join, seen) in members { feeds.adopt(id, game: game, owner: "", join: join, seen: seen) }
            takingOver.insert(game)
            return [.takeOver(game)]
        }
        for (id, join, seen) in members {
            feeds.adopt(id, game: game, owner: node, join: join, seen: seen)
            _ = feeds.resync(id, busy: .leftAlone, now: now, lease: identity.leaseSeconds, into: &effects)
        }
        return []
    }
}
