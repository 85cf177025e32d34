import Core

/// What the hub asks of the other nodes of a cluster, in its own terms: the few points where a
/// node of a cluster decides differently from a server alone. The hub calls it and never
/// learns how other nodes are reached; `Cluster/ClusterMachine` implements it, so the
/// dependency points from the cluster to the hub, never back.
protocol NodeLink: AnyObject {
    /// The characters every game id created here starts with (nil: ids name no node).
    var gameIDPrefix: String? { get }
    /// Which owners a claim made here may take a game from now.
    var takeoverPolicy: TakeoverPolicy { get }
    /// The seq a local member of another node's game has seen (nil: in no such game).
    func seenSeq(_ id: ConnectionID) -> Int?

    /// Whether a local connection's request is served here, or has gone elsewhere (carried to
    /// its game's owner, refused, or waiting to learn the owner).
    func route(_ id: ConnectionID, _ request: ClientRequest, now: Instant, into effects: inout Effects) -> RequestRoute
    /// A local connection's request was served here (it may now be in a game of this node).
    func settle(_ id: ConnectionID, into effects: inout Effects)
    /// `/api/games/GAME` for a game another node owns: true if the link took it.
    func routeHTTP(_ request: HTTPRequestID, path: String, query: String?, now: Instant, into effects: inout Effects) -> Bool
    func closed(_ id: ConnectionID, into effects: inout Effects)
    /// Once per tick: the link's own rounds.
    func tick(now: Instant, lobby: @autoclosure () -> [LobbyEntry], into effects: inout Effects) -> [NodeRequest]
    /// The hub's actions of one event, with what it owes other nodes' connections (sends to
    /// remote ids, `remote` outputs, answers to remote HTTP requests) turned into the link's own orders.
    func outgoing(_ actions: [HubAction]) -> [HubAction]

    // Games changing hands in a store shared by nodes (`Handover` calls these).

    /// This node claimed a game: the members here that went through its old owner, with their joins.
    func acquired(_ game: String, _ ownership: GameOwnership, into effects: inout Effects) -> [NodeRequest]
    /// The store says another node owns a game.
    func learned(_ game: String, owner: GameOwnership, now: Instant, into effects: inout Effects)
    /// A claim could not be made (the store could not be reached).
    func claimFailed(_ game: String)
    /// This node lost a game it served; its local members, with their joins and the seq each has seen.
    func lost(_ game: String, to owner: GameOwnership, members: [(ConnectionID, JSON, Int)], now: Instant,
              into effects: inout Effects) -> [NodeRequest]
}

enum RequestRoute: Equatable {
    case here
    /// Carried to the owner, answered with an error, or waiting to learn the owner.
    case elsewhere
}

/// What the node link asks the hub to do, in the hub's terms (`Hub.carryOut`).
enum NodeRequest {
    /// A request of another node's connection (this node owns its game).
    case frame(ConnectionID, [UInt8])
    case marker(ConnectionID, UInt64)
    /// Another node's connection is gone.
    case closed(ConnectionID)
    /// Another node's `/api/games/GAME`.
    case http(HTTPRequestID, path: String, query: String?)
    /// A local connection's forwarded request was answered: its held requests go on.
    case resume(ConnectionID)
    case refuse(ConnectionID, ProtocolError, requestID: JSON?)
    /// A local connection joined a game elsewhere: it leaves its game here.
    case leaveLocalGame(ConnectionID)
    case lobbies([String: [LobbyEntry]])
    case refuseCommands(ProtocolError?)
    /// Claim a game whose owner is gone (a store shared by nodes), for its members here.
    case takeOver(String)
    /// Admit a connection to a game of this node without a word to its client: it was a
    /// member through the game's old owner and has seen the state as of the join's `since`.
    case admitQuietly(ConnectionID, JSON)
    /// Ask the store which of this node's live games it still owns.
    case verifyOwnership
}

/// An order of the node link for the shell (on a cluster node, something to do on Redis),
/// kept in its place among the hub's actions, since the order of what crosses nodes matters.
/// The hub carries it and never reads it: what it says belongs to the link.
struct LinkOrder: Sendable, Equatable {
    private let value: any Sendable
    private let isEqual: @Sendable (any Sendable) -> Bool

    init<Order: Sendable & Equatable>(_ order: Order) {
        value = order
        isEqual = { ($0 as? Order) == order }
    }

    /// The order, if it is of this type.
    func order<Order>(as type: Order.Type) -> Order? { value as? Order }

    static func == (lhs: LinkOrder, rhs: LinkOrder) -> Bool { lhs.isEqual(rhs.value) }
}
