import Core

/// What a cluster node knows of the others: which are alive (and in which incarnation, so a
/// restart is noticed), since when a node is missing, and which node owns a game. Ownership
/// is looked up here and nowhere else: while games are bound to the node that made them, an
/// id's first two characters name its owner's code.
struct NodeDirectory {
    let identity: ClusterIdentity
    /// Game id codes to node names.
    private(set) var codes: [String: String] = [:]
    /// Live nodes and their incarnations, as last read from Redis.
    private(set) var alive: [String: String] = [:]
    /// Every node's incarnation as last seen alive.
    private(set) var known: [String: String] = [:]
    /// Nodes whose key went missing and whose sessions here have been ended.
    private var dead: Set<String> = []
    /// When this node's own link to Redis last came up: keys missing right after that are a
    /// restarted Redis filling up again, not dead nodes.
    private var linkUpSince = Instant.distantPast

    init(identity: ClusterIdentity) { self.identity = identity }

    /// How long a node's key may stay missing, after our own link came up, before its death is
    /// assumed: Redis restarted empty gets every live node's key back within a round or two.
    static let settling = 3.0

    /// Who owns a game, as far as this node can tell now.
    enum Owner: Equatable {
        case here
        case node(String)
        /// A code no node is known to hold yet (a node that just joined): ask Redis.
        case unknownCode(String)
        /// Not a game id any node makes.
        case nobody
    }

    func owner(of game: String) -> Owner {
        guard game.utf8.count == GameIDs.length, GameIDs.isPlausible(game) else { return .nobody }
        let code = String(game.prefix(2))
        if code == identity.code { return .here }
        if let node = codes[code] { return node == identity.node ? .here : .node(node) }
        return .unknownCode(code)
    }

    mutating func learn(code: String, node: String) { codes[code] = node }

    func isAlive(_ node: String) -> Bool { alive[node] != nil }

    /// Seen alive once and not alive now.
    func isGone(_ node: String) -> Bool { alive[node] == nil && known[node] != nil }

    func wasNeverSeen(_ node: String) -> Bool { known[node] == nil }

    mutating func linkCameUp(now: Instant) { linkUpSince = now }

    /// What changed with a new reading of the cluster.
    struct Changes {
        /// Nodes back with a new incarnation: they lost their sessions.
        var restarted: Set<String> = []
        /// Nodes gone for good as far as this node can tell: their connections' sessions end here.
        var dead: Set<String> = []
    }

    mutating func read(codes: [String: String], alive: [String: String], now: Instant) -> Changes {
        var changes = Changes()
        self.codes = codes
        self.alive = alive
        for (node, incarnation) in alive {
            if let seen = known[node], seen != incarnation { changes.restarted.insert(node) }
            known[node] = incarnation
            dead.remove(node)
        }
        // A key missing while our own link has been steady is a node whose lease ran out.
        guard now.since(linkUpSince) >= Self.settling else { return changes }
        for node in known.keys where alive[node] == nil && !dead.contains(node) {
            dead.insert(node)
            changes.dead.insert(node)
        }
        return changes
    }
}
