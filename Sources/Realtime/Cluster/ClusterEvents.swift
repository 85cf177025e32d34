import Core

/// What Redis and the other nodes tell a cluster node, as the cluster driver hands it over.
enum ClusterEvent: Sendable {
    case link(up: Bool)
    /// The periodic look at Redis: node codes, live nodes (with their incarnations), other nodes' lobbies.
    case view(codes: [String: String], alive: [String: String], lobbies: [String: [LobbyEntry]])
    /// A message on this node's own channel (an envelope's bytes).
    case nodeMessage([UInt8])
    /// A message on a game's channel (a publication's bytes).
    case gameMessage(game: String, [UInt8])
    /// Redis confirmed the subscription to a game's channel.
    case subscribed(game: String)
    /// A game's stream, read for a gap (nil: it could not be read).
    case streamRead(game: String, [Publication]?)
    /// The node that holds a game id code (nil: none, or the link failed).
    case codeFound(code: String, node: String?, linkFailed: Bool)
    /// Another process took this node's name: it must not apply commands any more.
    case fenced
    /// This node's lease had run out before it renewed it (it was paused or cut off): another
    /// node may have taken its games over.
    case leaseLapsed
}

/// What a cluster node asks of Redis; the cluster driver in the shell carries it out.
enum ClusterAction: Sendable, Equatable {
    case send(node: String, ClusterEnvelope)
    /// One broadcast on a game's channel; a diff is kept in the game's capped stream too, in one atomic step.
    case publish(game: String, Publication)
    case subscribe(game: String)
    case unsubscribe(game: String)
    case readStream(game: String)
    case lookupCode(String)
    /// Once a second: renew this node's lease, share its lobby, and read the cluster's view.
    case round(lobby: [LobbyEntry])
}

extension HubAction {
    /// An order to Redis, in its place among the hub's actions (the hub carries it unread).
    static func cluster(_ action: ClusterAction) -> HubAction { .link(LinkOrder(action)) }

    /// The order to Redis this action carries, if it is one.
    var clusterAction: ClusterAction? {
        guard case .link(let order) = self else { return nil }
        return order.order(as: ClusterAction.self)
    }
}
