/// The result of an accepted race command: one diff per view, grouped so that views shown
/// the same diff share it (a server encodes each group's diff once), and the events, which
/// are the same for everyone.
public typealias RaceOutcome = GameOutcome

extension GameOutcome {

    /// The diff `viewer` is sent; nil for a seat the race does not have.
    public func diff(for viewer: Viewer) -> Diff? {
        fullViewers.contains(viewer) ? fullDiff : otherViews.first { $0.viewers.contains(viewer) }?.diff
    }

    /// Groups the views of `race` by the diff they are shown. `touched` lists the seats whose
    /// tables the diff changes: a seat that is the only one touched, or when none is, sees the
    /// full diff; the seats left untouched all see the same masked diff; only when several
    /// tables change (a reset) does each of those seats get a diff of its own.
    init(race: Race, full: Diff, touched: [Int], events: [GameEvent]) {
        var fullViewers: [Viewer] = [.spectator]
        var untouched: [Viewer] = []
        var own: [ViewDiff] = []
        for (index, seat) in race.seats.enumerated() {
            if touched.isEmpty || touched == [index] {
                fullViewers.append(.seat(seat))
            } else if !touched.contains(index) {
                untouched.append(.seat(seat))
            } else {
                own.append(ViewDiff(viewers: [.seat(seat)], diff: RaceView.diff(full, for: .seat(seat))))
            }
        }
        var views: [ViewDiff] = []
        if let first = untouched.first {
            let masked = RaceView.diff(full, for: first)
            // A move that shows no rival a hidden card (e.g. a card to a foundation that
            // turns none up) masks to the full diff itself: one encoding serves all.
            if masked == full {
                fullViewers += untouched
            } else {
                views.append(ViewDiff(viewers: untouched, diff: masked))
            }
        }
        self.init(fullDiff: full, fullViewers: fullViewers, otherViews: views + own, events: events)
    }
}
