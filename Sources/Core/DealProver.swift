/// The searches behind `DealRequest`s, run off the service thread.
public protocol DealProver: Sendable {
    /// The pools a server keeps topped up.
    var pools: [Int] { get }
    /// Whether the given deal can be won (`given` non-nil), or the first of `candidates` that
    /// can (nil: none proven within the budget).
    func prove(_ request: DealRequest, candidates: [UInt64], budget: Int) -> DealProof
}

public enum DealProof: Sendable, Equatable {
    case givenDealProven
    case seed(UInt64)
    case notProven
}
