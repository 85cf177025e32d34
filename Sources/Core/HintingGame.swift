/// A game that answers `hint`. Without it, `hint` is `unknown-type` ("KIND has no hint").
public protocol HintingGame: Game {
    /// What a `hint` from `asker` needs: decided on the service thread, so cheap.
    func hintPlan(for asker: HintContext) -> HintPlan
    /// Hints for `viewer`'s position and for positions along the line it leads to, for the cache;
    /// the first is the asked position's. Run off the service thread, within `budget`.
    func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)]
}
