import Core

/// What the hub owes other nodes' connections, as plain facts about its rooms: the node link
/// decides how they cross to other nodes (`Cluster/` turns them into publications and envelopes).
enum RemoteOutput: Sendable, Equatable {
    /// A diff of a game with members on other nodes, every view's frame together, once for all
    /// of them. `delayed`: the delayed spectators' copy as it comes due (a seq of its own).
    case diff(game: String, seq: Int, [RemoteFrame], delayed: Bool)
    /// Any other broadcast of such a game (an event, presence, a chat line), as of its seq.
    case frame(game: String, seq: Int, RemoteFrame, delayed: Bool)
    /// Another node's connection receives the game's broadcasts from `seq` on, in this audience.
    case subscribed(ConnectionID, game: String, audience: AudienceKey, seq: Int)
    /// Everything a forwarded request caused has gone out to that connection.
    case marker(ConnectionID, UInt64)
}

/// One frame of a broadcast, and the audiences on other nodes it is for.
struct RemoteFrame: Sendable, Equatable {
    var audiences: Audiences
    var frame: OutFrame

    enum Audiences: Sendable, Equatable {
        /// Every live audience (events, presence).
        case everyLive
        /// These audiences, in this order.
        case only([AudienceKey])
    }
}
