extension Race {
    /// Every table drawn in plain text for terminals (the `show` command), as `viewer` may
    /// see them: a seated player sees rival tables as `RaceView` masks them, with only their
    /// foundations face up. A header line for the race, then per seat a header and its table.
    ///
    ///     Race  2 seats  playing  finished p2
    ///     p1 (you)
    ///     Klondike  draw 1  moves 3  score 10  playing
    ///     ...
    ///     p2  place 1
    ///     Klondike  draw 1  moves 76  score 625  won
    ///     ...
    public func textBoard(for viewer: Viewer) -> [String] {
        var header = "Race  \(seats.count) seats  \(status)"
        if !finished.isEmpty { header += "  finished " + finished.joined(separator: " ") }
        var lines = [header]
        for (seat, table) in zip(seats, tables) {
            let own = viewer == .seat(seat)
            var title = seat + (own ? " (you)" : "")
            if let place = finished.firstIndex(of: seat) { title += "  place \(place + 1)" }
            lines.append(title)
            let masked: Bool
            switch viewer {
            case .spectator: masked = false
            case .seat: masked = !own
            }
            lines += table.textBoard(showingOnlyFoundations: masked)
        }
        return lines
    }
}
