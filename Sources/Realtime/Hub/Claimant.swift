/// The node that claims a game in a shared store, and whose games it may take from their owner.
struct Claimant: Sendable {
    var node: String
    var takeover: TakeoverPolicy
}
