import Core

/// Which current owners a node may take a game from when it claims it (PROTOCOL 11.1): what
/// a claim carries (`GameLoader.acquire`) in the hub's terms; the node link decides it.
enum TakeoverPolicy: Sendable, Equatable {
    /// From nobody but itself: Redis is down, so no game changes owner.
    case none
    /// From any owner but these (the nodes that are, or may be, alive).
    case except(alive: Set<String>)
    /// From anyone: a node with no cluster around it (a shared store without Redis).
    case any

    func allows(takingFrom owner: String) -> Bool {
        switch self {
        case .none: return false
        case .except(let alive): return !alive.contains(owner)
        case .any: return true
        }
    }
}
