import Core

/// Searches for the hub: always off the service thread, since one may take up to its budget
/// (about a second). The hub hands out jobs as actions and hears back through `Hub.solved`.
enum SolveJob: Sendable, Equatable {
    /// The hints for a viewer's position (the game's own search), for the cache.
    case hint(token: UInt64, game: AnyGame, viewer: Viewer)
    /// A seed for `create` or a command that must be proven: the given one, or the first of the candidates.
    case proof(token: UInt64, request: SeedRequest, candidates: [UInt64])
    /// Proven seeds for a pool that keeps such requests instant.
    case refill(pool: Int, candidates: [UInt64])
    /// A bot's move (section 18): the game's own policy at `level`, random choices from `seed`.
    case bot(token: UInt64, game: AnyGame, seat: String, level: Int, seed: UInt64)
}

enum SolveResult: Sendable {
    /// Answers for the asked position first, then for positions along the line it leads to.
    case hint(token: UInt64, answers: [(PositionKey, Hint)])
    case proof(token: UInt64, proof: SeedProof)
    case refill(pool: Int, seeds: [UInt64])
    case bot(token: UInt64, move: ParsedGesture?)
}

enum SolverWork {
    static func run(_ job: SolveJob, budget: Int, prover: (any SeedProver)?) -> SolveResult {
        switch job {
        case .hint(let token, let game, let viewer):
            return .hint(token: token, answers: game.hints(for: viewer, budget: budget))
        case .proof(let token, let request, let candidates):
            return .proof(token: token, proof: prover?.prove(request, candidates: candidates, budget: budget) ?? .notProven)
        case .refill(let pool, let candidates):
            let seeds = candidates.filter { candidate in
                prover?.prove(SeedRequest(pool: pool, given: nil, unproven: ""), candidates: [candidate], budget: budget)
                    == .seed(candidate)
            }
            return .refill(pool: pool, seeds: seeds)
        case .bot(let token, let game, let seat, let level, let seed):
            return .bot(token: token, move: game.botMove(seat: seat, level: level, seed: seed, budget: budget))
        }
    }
}
