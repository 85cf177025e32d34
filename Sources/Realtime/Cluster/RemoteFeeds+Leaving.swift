// RemoteFeeds' members leaving: a remote game left, a connection closed, a feed nobody receives dropped.
import Core

extension RemoteFeeds {
    /// A connection leaves its remote game (it closed, or went to a game elsewhere): its
    /// owner hears of it.
    func detach(_ id: ConnectionID, into effects: inout Effects) {
        guard let membership = memberships[id] else { return }
        stopReceiving(id, into: &effects)
        memberships[id] = nil
        effects.append(.cluster(.send(node: membership.owner, .detach(from: node, connection: id.raw))))
        dropFeedIfIdle(membership.game, into: &effects)
    }

    /// A connection closed: its owners (its game's, and a join's on its way, which makes a session
    /// there) are owed word that it is gone (`sendOwedDetaches`, once the link is up).
    func closed(_ id: ConnectionID, into effects: inout Effects) {
        staleJoins.remove(id)
        rejoinAfterDone.remove(id)
        if let membership = memberships[id] {
            stopReceiving(id, into: &effects)
            memberships[id] = nil
            owed.owe(id, to: membership.owner)
            dropFeedIfIdle(membership.game, into: &effects)
        }
        guard let forward = forwards.removeValue(forKey: id) else { return }
        owed.owe(id, to: forward.owner)
        if let game = forward.game { dropFeedIfIdle(game, into: &effects) }
    }

    func stopReceiving(_ id: ConnectionID, into effects: inout Effects) {
        guard let membership = memberships[id], membership.slot >= 0, var feed = feeds[membership.game],
              var audience = feed.audiences[membership.audience], membership.slot < audience.count,
              audience[membership.slot] == id else { return }
        feed.audiences[membership.audience] = nil  // keep the array unique while it changes
        let last = audience.removeLast()
        if membership.slot < audience.count {
            audience[membership.slot] = last
            memberships[last]?.slot = membership.slot
        }
        if !audience.isEmpty { feed.audiences[membership.audience] = audience }
        feed.receivers -= 1
        feeds[membership.game] = feed
        memberships[id]?.slot = -1
    }

    /// A feed nobody receives or joins any more: the node stops listening to the game.
    func dropFeedIfIdle(_ game: String, into effects: inout Effects) {
        guard let feed = feeds[game], feed.receivers == 0, !memberships.values.contains(where: { $0.game == game }),
              !forwards.values.contains(where: { $0.game == game }) else { return }
        feeds[game] = nil
        effects.append(.cluster(.unsubscribe(game: game)))
    }
}
