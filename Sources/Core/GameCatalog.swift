/// The games a server offers, and the search that proves seeds for those that need one.
public struct GameCatalog: Sendable {
    public let games: [any Game.Type]
    /// The search behind `ProvenSeeds` games' requests; one a catalog, so games that ask for the
    /// same pool share its proven seeds.
    public let prover: (any SeedProver)?
    /// Positions a search may expand by default (hints, proven seeds): about a second of one core.
    public let searchBudget: Int

    public init(_ games: [any Game.Type], prover: (any SeedProver)? = nil, searchBudget: Int = 1_500_000) {
        self.games = games
        self.prover = prover
        self.searchBudget = searchBudget
    }

    public func game(named kind: String) -> (any Game.Type)? { games.first { $0.kind == kind } }

    public var kinds: [String] { games.map { $0.kind } }

    /// Whether some game reads messages of this type as a command of its own (beyond the generic gestures).
    public func hasCommand(_ type: String) -> Bool { games.contains { $0.commandTypes.contains(type) } }

    /// Every status word some game shows.
    public var statusWords: Set<String> { Set(games.flatMap { $0.statuses.map(\.word) }) }

    /// Every status word some game shows in `phase`, in the catalog's order.
    public func statusWords(in phase: GameStatus.Phase) -> [String] {
        var words: [String] = []
        for status in games.flatMap({ $0.statuses }) where status.phase == phase && !words.contains(status.word) {
            words.append(status.word)
        }
        return words
    }
}
