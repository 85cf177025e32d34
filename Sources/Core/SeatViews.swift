/// A game that shows each seat a view of its own (a race hides rivals' cards): `state(for:
/// .seat(s))` is that seat's view, and `apply` returns `GameOutcome(views:)`, the spectators'
/// diff first. Hidden information every viewer shares (Klondike's face-down `??`) is no seat view.
public protocol SeatViews: SeatedGame {
    /// The spectators' diff as `viewer` sees it, derived from the full diff alone: storage keeps
    /// only the spectators' diffs, and a seat's `since` and replay are derived with this.
    static func diff(_ full: Diff, for viewer: Viewer) -> Diff
}
