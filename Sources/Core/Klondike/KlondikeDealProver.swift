/// Proves Klondike deals winnable for `winnable: true` (PROTOCOL section 12), in pools by draw.
public struct KlondikeDealProver: SeedProver {
    public init() {}

    public var pools: [Int] { [1, 3] }

    public var metric: ProvenPoolMetric {
        ProvenPoolMetric(name: "winnable_pool", label: "draw", seedsHelp: "Proven winnable seeds ready to deal, by draw",
                         targetHelp: "Proven seeds the server keeps ready per draw (filled in the background)")
    }

    /// A winnable deal with `draw`: the given one (`seed` or `deck` in options), or any.
    static func request(draw: Int, given: JSON?) -> SeedRequest {
        SeedRequest(pool: draw, given: given, unproven: given != nil ? "the solver could not prove this deal winnable"
                                                                     : "no winnable deal was found in time; try again")
    }

    public func prove(_ request: SeedRequest, candidates: [UInt64], budget: Int) -> SeedProof {
        if let given = request.given {
            guard let deal = try? KlondikeOptionFields(given).deal else { return .notProven }
            let solution = try? KlondikeSolver.solve(deal: deal, draw: request.pool, budget: budget)
            return solution?.verdict == .winnable ? .givenProven : .notProven
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
