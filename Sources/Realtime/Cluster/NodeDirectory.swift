import Core

/// What a cluster node knows of the others: which are alive (and in which incarnation, so a
/// restart is noticed), which are gone, and which node owns a game. Ownership is looked up
/// here and nowhere else. While games are bound to the node that made them, an id's first two
/// characters name its owner's code; with a store shared by the nodes (PROTOCOL 11.1), the
/// store records owners, and this keeps what it last learned of them.
struct NodeDirectory {
    let identity: ClusterIdentity
    /// Owners come from the shared store, not from ids.
    let sharesStore: Bool
    /// A shared store's owners as last learned (answers to claims, refused writes), by game.
    private var owners: [String: GameOwnership] = [:]
    private var linkUp = false
    /// Game id codes to node names: every code learned since start. A code names one node for
    /// good, so one Redis forgot (restarted empty, before its node wrote it again) is still known.
    private(set) var codes: [String: String] = [:]
    /// Live nodes and their incarnations, as last read from Redis.
    private(set) var alive: [String: String] = [:]
    /// Every node's incarnation as last seen alive.
    private(set) var known: [String: String] = [:]
    /// Nodes whose key went missing and whose sessions here have been ended.
    private var dead: Set<String> = []
    /// When a known node's key was first found missing.
    private var missingSince: [String: Instant] = [:]
    /// When this node's own link to Redis last came up: keys missing right after that are a
    /// restarted Redis filling up again, not dead nodes.
    private var linkUpSince = Instant.distantPast

    init(identity: ClusterIdentity, sharesStore: Bool) {
        self.identity = identity
        self.sharesStore = sharesStore
    }

    /// The most owners remembered: past it the cache starts again (the store knows them all).
    static let ownerCache = 50_000

    /// How long a node's key may stay missing, after our own link came up, before its death is
    /// assumed: Redis restarted empty gets every live node's key back within a round or two.
    static let settling = 3.0
    /// How long a key must stay missing before its node is taken for dead: a renewal that is
    /// late by a moment (a busy machine) is not a death.
    static let grace = 1.5

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
        if sharesStore {
            // Not known, or known to be this node or a node gone: served here, which claims the
            // game from the store first (and learns its owner if the claim may not be made).
            guard GameIDs.isPlausible(game), let owner = owners[game]?.node, owner != identity.node else { return .here }
            return .node(owner)
        }
        guard game.utf8.count == GameIDs.length, GameIDs.isPlausible(game) else { return .nobody }
        let code = String(game.prefix(2))
        if code == identity.code { return .here }
        if let node = codes[code] { return node == identity.node ? .here : .node(node) }
        return .unknownCode(code)
    }

    mutating func learn(code: String, node: String) { codes[code] = node }

    /// What the shared store said of a game's owner.
    mutating func learn(owner: GameOwnership, of game: String) {
        if owners.count >= Self.ownerCache { owners.removeAll(keepingCapacity: true) }
        owners[game] = owner
    }

    mutating func forgetOwner(of game: String) { owners[game] = nil }

    func knownOwner(of game: String) -> GameOwnership? { owners[game] }

    /// Which owners a claim may take a game from: none while Redis is down (no game changes
    /// owner then) or until the link has been steady long enough to tell a dead node from a
    /// Redis filling up again; then any node whose liveness key is missing.
    var takeoverPolicy: TakeoverPolicy {
        guard linkUp, isSettled else { return .none }
        // A node whose key went missing a moment ago may only be late renewing it.
        return .except(alive: Set(alive.keys).union(known.keys.filter { !dead.contains($0) && alive[$0] == nil }))
    }

    /// The link has been up for `settling` as of the last reading: every live node listens again.
    private(set) var isSettled = false

    func isAlive(_ node: String) -> Bool { alive[node] != nil }

    /// Seen alive once and not alive now.
    func isGone(_ node: String) -> Bool { alive[node] == nil && known[node] != nil }

    func wasNeverSeen(_ node: String) -> Bool { known[node] == nil }

    mutating func linkCameUp(now: Instant) {
        linkUpSince = now
        linkUp = true
        isSettled = false
    }

    mutating func linkWentDown() { linkUp = false }

    /// Whether Redis not knowing a code means no node has it: only once the link has been up
    /// for `settling` and a lease more (a live node's link comes back and writes its code within
    /// that). Before, the code's node may not have written it again into a Redis that restarted
    /// empty, and its games are unavailable, not absent.
    func codeAbsenceIsKnown(now: Instant) -> Bool {
        linkUp && isSettled && now.since(linkUpSince) >= Self.settling + identity.leaseSeconds
    }

    /// What changed with a new reading of the cluster.
    struct Changes {
        /// Nodes back with a new incarnation: they lost their sessions.
        var restarted: Set<String> = []
        /// Nodes gone for good as far as this node can tell: their connections' sessions end here.
        var dead: Set<String> = []
        /// Nodes taken for dead that are alive again (the same incarnation: cut off, or paused).
        var revived: Set<String> = []
    }

    mutating func read(codes: [String: String], alive: [String: String], now: Instant) -> Changes {
        var changes = Changes()
        self.codes.merge(codes) { _, read in read }
        self.alive = alive
        for node in known.keys where alive[node] == nil && missingSince[node] == nil { missingSince[node] = now }
        for (node, incarnation) in alive {
            missingSince[node] = nil
            if let seen = known[node], seen != incarnation {
                changes.restarted.insert(node)
                // A restarted node owns nothing it owned before: its games are in the store.
                if sharesStore { for (game, owner) in owners where owner.node == node { owners[game] = nil } }
            }
            known[node] = incarnation
            if dead.remove(node) != nil && !changes.restarted.contains(node) { changes.revived.insert(node) }
        }
        // A key missing while our own link has been steady is a node whose lease ran out.
        guard now.since(linkUpSince) >= Self.settling else { return changes }
        isSettled = true
        for node in known.keys where alive[node] == nil && !dead.contains(node) {
            guard let since = missingSince[node], now.since(since) >= Self.grace else { continue }
            dead.insert(node)
            changes.dead.insert(node)
        }
        return changes
    }
}
