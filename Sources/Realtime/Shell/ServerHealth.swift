import Core

/// What `/healthz` says: the first reason this node should not be sent clients, or ok.
struct ServerHealth {
    var stopping = false
    /// Set for good when the background integrity check finds damage.
    var damage: String?
    /// Set while storage writes fail, until one succeeds.
    var writesFailing: String?
    /// Set while the store probe cannot reach a store over the network.
    var storeUnreachable: String?

    var response: HTTPResponse {
        if stopping { return .text(503, "stopping\n") }
        if let damage { return .text(503, "\(damage)\n") }
        if let writesFailing { return .text(503, "storage failing: \(writesFailing)\n") }
        if let storeUnreachable { return .text(503, "store unreachable: \(storeUnreachable)\n") }
        return .text(200, "ok\n")
    }
}

/// `/api/auth`: what the page needs to sign in (PROTOCOL section 19, docs/AUTH.md): whether this
/// server signs anyone in, and the sites it takes a token from by postMessage.
struct SignInSettings {
    var signsIn: Bool
    var sites: [String]

    var response: HTTPResponse {
        .json(JSON.object([("signsIn", .bool(signsIn)), ("sites", .array(sites.map(JSON.string)))]).encoded)
    }
}
