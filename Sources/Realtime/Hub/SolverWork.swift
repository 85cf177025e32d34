import Core

/// Work for the solver pool: always off the service thread, since a hard deal may take
/// up to the budget (about a second). The hub hands out jobs as actions and hears back
/// through `Hub.solved`.
enum SolveJob: Sendable, Equatable {
    /// The hint for a position, with the verdict on it.
    case hint(token: UInt64, table: Klondike)
    /// A deal for `create`/`reset` with `winnable`: prove the given one, or find the first
    /// winnable deal among candidate seeds.
    case deal(token: UInt64, draw: Int, given: KlondikeDeal?, candidates: [UInt64])
    /// Proven seeds for the pool that keeps `winnable` instant.
    case refill(draw: Int, candidates: [UInt64])
}

/// One position's hint: the move, and whether the position can still be won (nil: undecided).
struct HintAnswer: Sendable, Equatable {
    var hint: KlondikeHint?
    var winnable: Bool?

    var message: ServerMessage {
        .hint(from: hint?.from, to: hint?.to, winnable: winnable.map(JSON.bool) ?? .null)
    }
}

enum SolveResult: Sendable {
    /// Answers for the asked position first, then for every position along the winning line,
    /// so that following hints alone follows that line to the win and never loops.
    case hint(token: UInt64, answers: [(KlondikePositionKey, HintAnswer)])
    /// The proven seed (or, for a given deal, `.seed(0)` standing for it), or nil: not provable.
    case deal(token: UInt64, proven: Bool, seed: UInt64?)
    case refill(draw: Int, seeds: [UInt64])
}

enum SolverWork {
    static func run(_ job: SolveJob, budget: Int) -> SolveResult {
        switch job {
        case .hint(let token, let table):
            return .hint(token: token, answers: hints(from: table, budget: budget))
        case .deal(let token, let draw, let given, let candidates):
            if let given {
                let solution = try? KlondikeSolver.solve(deal: given, draw: draw, budget: budget)
                return .deal(token: token, proven: solution?.verdict == .winnable, seed: nil)
            }
            // About four deals in five are winnable and most are decided in milliseconds: a
            // small budget per candidate finds one well inside the protocol's two seconds.
            for seed in candidates {
                let solution = try? KlondikeSolver.solve(deal: .seed(seed), draw: draw, budget: budget / 8)
                if solution?.verdict == .winnable { return .deal(token: token, proven: true, seed: seed) }
            }
            return .deal(token: token, proven: false, seed: nil)
        case .refill(let draw, let candidates):
            let seeds = candidates.filter {
                (try? KlondikeSolver.solve(deal: .seed($0), draw: draw, budget: budget / 8))?.verdict == .winnable
            }
            return .refill(draw: draw, seeds: seeds)
        }
    }

    /// The solver's verdict on a position, as hints: on a win, one hint per position of
    /// the line; otherwise the rules' own hint with the verdict.
    static func hints(from table: Klondike, budget: Int) -> [(KlondikePositionKey, HintAnswer)] {
        let solution = KlondikeSolver.solve(table, budget: budget)
        guard solution.verdict == .winnable, !table.isWon else {
            let winnable: Bool? = table.isWon ? true : solution.verdict == .unwinnable ? false : nil
            return [(table.positionKey, HintAnswer(hint: table.hint(), winnable: winnable))]
        }
        var answers: [(KlondikePositionKey, HintAnswer)] = []
        var position = table
        for move in solution.moves {
            answers.append((position.positionKey, HintAnswer(hint: move, winnable: true)))
            guard let command = move.command,
                  case .success = position.apply(command, context: MoveContext(player: "solver", time: 0)) else {
                return answers
            }
        }
        answers.append((position.positionKey, HintAnswer(hint: nil, winnable: true)))  // the won table
        return answers
    }
}
