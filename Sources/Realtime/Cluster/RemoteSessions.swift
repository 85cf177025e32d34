/// As owner: the sessions of other nodes' connections, by their node and number there, and
/// other nodes' `/api/games/GAME` requests, numbered in a range of their own.
struct RemoteSessions {
    struct Address: Hashable {
        var node: String
        var connection: UInt64
    }

    private let sessions: SessionTable
    private var byAddress: [Address: ConnectionID] = [:]
    private var addresses: [ConnectionID: Address] = [:]
    /// How many views of the cluster the owner had taken when each session began.
    private var born: [ConnectionID: Int] = [:]
    private var httpAskers: [HTTPRequestID: (node: String, token: UInt64)] = [:]
    private var lastHTTP: HTTPRequestID = 0

    init(sessions: SessionTable) { self.sessions = sessions }

    static func isRemoteHTTP(_ request: HTTPRequestID) -> Bool { request >> 63 == 1 }

    mutating func session(node: String, connection: UInt64, now: Instant, view: Int) -> ConnectionID {
        let address = Address(node: node, connection: connection)
        if let id = byAddress[address], sessions.isOpen(id) { return id }
        let id = sessions.openRemote(now: now)
        byAddress[address] = id
        addresses[id] = address
        born[id] = view
        return id
    }

    func existing(node: String, connection: UInt64) -> ConnectionID? { byAddress[Address(node: node, connection: connection)] }

    func address(of id: ConnectionID) -> Address? { addresses[id] }

    mutating func forget(_ id: ConnectionID) {
        born[id] = nil
        guard let address = addresses.removeValue(forKey: id) else { return }
        byAddress[address] = nil
    }

    func sessions(of nodes: Set<String>) -> [ConnectionID] {
        guard !nodes.isEmpty else { return [] }
        return addresses.filter { nodes.contains($0.value.node) }.map(\.key).sorted()
    }

    /// Sessions of these nodes that began before view `view`: a node seen back as a new
    /// incarnation may already have sent requests of its new connections (its key was written
    /// after the last view read it), so only sessions older than that view are its old ones.
    func sessions(of nodes: Set<String>, bornBefore view: Int) -> [ConnectionID] {
        sessions(of: nodes).filter { (born[$0] ?? 0) < view }
    }

    mutating func httpRequest(node: String, token: UInt64) -> HTTPRequestID {
        lastHTTP += 1
        let id = 1 << 63 | lastHTTP
        httpAskers[id] = (node, token)
        return id
    }

    mutating func takeHTTPRequest(_ id: HTTPRequestID) -> (node: String, token: UInt64)? { httpAskers.removeValue(forKey: id) }
}
