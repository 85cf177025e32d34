/// Requests waiting for an answer from off the service thread (storage reads, the solver,
/// another node), by the token the answer comes back with. One table for every kind, so
/// issuing, finding and forgetting a pending request is the same everywhere.
final class PendingTable<Request> {
    private var requests: [UInt64: Request] = [:]
    private var lastToken: UInt64 = 0

    /// Files a request and returns its token.
    func issue(_ request: Request) -> UInt64 {
        lastToken += 1
        requests[lastToken] = request
        return lastToken
    }

    /// A fresh token with nothing filed under it yet.
    func reserve() -> UInt64 {
        lastToken += 1
        return lastToken
    }

    func file(_ request: Request, under token: UInt64) { requests[token] = request }

    /// The request filed under `token`, removed.
    func take(_ token: UInt64) -> Request? { requests.removeValue(forKey: token) }

    subscript(token: UInt64) -> Request? {
        get { requests[token] }
        set { requests[token] = newValue }
    }

    /// Removes and returns every request that matches.
    func takeAll(where matches: (Request) -> Bool) -> [(token: UInt64, request: Request)] {
        let taken = requests.filter { matches($0.value) }
        for token in taken.keys { requests[token] = nil }
        return taken.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    var isEmpty: Bool { requests.isEmpty }
    var count: Int { requests.count }
}
