/// The games a server offers, and the search that proves deals for those that need one.
public struct GameCatalog: Sendable {
    public let games: [any Game.Type]
    public let prover: (any DealProver)?
    /// Positions a search may expand by default (hints, proven deals): about a second of one core.
    public let searchBudget: Int

    public init(_ games: [any Game.Type], prover: (any DealProver)? = nil, searchBudget: Int = 1_500_000) {
        self.games = games
        self.prover = prover
        self.searchBudget = searchBudget
    }

    public func game(named kind: String) -> (any Game.Type)? { games.first { $0.kind == kind } }

    public var kinds: [String] { games.map { $0.kind } }

    /// Whether some game reads messages of this type.
    public func hasCommand(_ type: String) -> Bool { games.contains { $0.commandTypes.contains(type) } }
}
