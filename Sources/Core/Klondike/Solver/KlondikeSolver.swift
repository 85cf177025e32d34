/// What the solver could prove about a position.
public enum KlondikeVerdict: String, Sendable, Equatable {
    /// A winning line was found (and checked by playing it through `Klondike.apply`).
    case winnable
    /// Proved lost: every position the moves can reach was searched and none is won, or
    /// some card can never go home whatever the order of play.
    case unwinnable
    /// The budget ran out first, or the position is one the solver does not represent.
    case unknown
}

public struct KlondikeSolution: Sendable, Equatable {
    public var verdict: KlondikeVerdict
    /// Positions expanded by the search (the unit of the budget).
    public var nodes: Int
    /// When winnable, every gesture of a win from the position, in order; empty otherwise.
    /// `/stock` -> `/waste` is a tap on the stock (a draw, or turning the waste over); any
    /// other hint is a drag (`KlondikeHint.command`).
    public var moves: [KlondikeHint]

    public init(verdict: KlondikeVerdict, nodes: Int, moves: [KlondikeHint] = []) {
        self.verdict = verdict
        self.nodes = nodes
        self.moves = moves
    }
}

/// Thoughtful Klondike solving under this project's rules: draw 1 or 3, unlimited passes
/// through the stock, cards may come back down from the foundations, any Ace starts any
/// empty foundation, an empty pile takes only a King or a run headed by one.
///
/// Pure and synchronous: no clock, no shared state, so it may run on any thread and many
/// solves may run at once. The budget bounds the work; when it runs out the verdict is
/// `unknown`, never a guess.
public enum KlondikeSolver {
    /// Positions a solve may expand by default: about one second of one core of the
    /// machine in BENCHMARKS.md ("Solver"): about 0.8 s in draw 1, 1.0-1.6 s in draw 3,
    /// with at most about 30 MB for the table of positions.
    public static let defaultBudget = 1_500_000

    /// Solves from the game's current position.
    public static func solve(_ game: Klondike, budget: Int = defaultBudget) -> KlondikeSolution {
        if game.isWon { return KlondikeSolution(verdict: .winnable, nodes: 0) }
        guard let start = SolverStart(game) else { return KlondikeSolution(verdict: .unknown, nodes: 0) }
        var search = SolverSearch(start)
        let verdict = search.run(budget: budget)
        guard verdict == .winnable else { return KlondikeSolution(verdict: verdict, nodes: search.nodes) }
        // The line is replayed through the rules; a line they refuse would be a solver bug,
        // and then the honest answer is that nothing was proved.
        guard let gestures = SolverGestures.expand(search.line, from: game) else {
            assertionFailure("the solver's winning line does not replay")
            return KlondikeSolution(verdict: .unknown, nodes: search.nodes)
        }
        return KlondikeSolution(verdict: .winnable, nodes: search.nodes, moves: gestures)
    }

    /// Solves a fresh deal. A bad draw or deck is the `bad-request` a game would give.
    public static func solve(deal: KlondikeDeal, draw: Int, budget: Int = defaultBudget) throws(GameError)
        -> KlondikeSolution
    {
        let game = try Klondike(options: KlondikeOptions(draw: draw, deal: deal, entropy: 0), time: 0)
        return solve(game, budget: budget)
    }
}
