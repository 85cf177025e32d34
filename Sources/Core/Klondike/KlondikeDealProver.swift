/// Proves Klondike deals winnable for `winnable: true` (PROTOCOL section 12), in pools by draw.
public struct KlondikeDealProver: DealProver {
    public init() {}

    public var pools: [Int] { [1, 3] }

    public func prove(_ request: DealRequest, candidates: [UInt64], budget: Int) -> DealProof {
        if let given = request.given {
            guard let deal = try? KlondikeOptionFields(given).deal else { return .notProven }
            let solution = try? KlondikeSolver.solve(deal: deal, draw: request.pool, budget: budget)
            return solution?.verdict == .winnable ? .givenDealProven : .notProven
        }
        // About four deals in five are winnable and most are decided in milliseconds: a
        // small budget per candidate finds one well inside the protocol's two seconds.
        for seed in candidates {
            let solution = try? KlondikeSolver.solve(deal: .seed(seed), draw: request.pool, budget: budget / 8)
            if solution?.verdict == .winnable { return .seed(seed) }
        }
        return .notProven
    }
}
