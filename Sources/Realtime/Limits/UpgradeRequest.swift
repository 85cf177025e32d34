/// What the shell reads off a WebSocket upgrade for `UpgradeGate` to decide on.
struct UpgradeRequest {
    /// The request's path without its query (`/ws`).
    var path: String?
    /// The TCP peer's address.
    var peer: ClientAddress
    /// The `X-Forwarded-For` header, read only when `peer` is a trusted proxy.
    var forwardedFor: String? = nil
    /// The `Origin` header, if any.
    var origin: String? = nil
    /// The `Authorization` header, read only when users sign in.
    var authorization: String? = nil
}
