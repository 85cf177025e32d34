/// The games this server offers: the one list, which the executable hands to the realtime layer.
extension GameCatalog {
    public static let standard = GameCatalog([Klondike.self, Plane.self, Race.self, FourInARow.self],
                                             prover: KlondikeDealProver(), searchBudget: KlondikeSolver.defaultBudget)
}
