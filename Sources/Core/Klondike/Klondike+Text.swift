extension Klondike {
    /// The table drawn in plain text for terminals (the `show` command): every line the same
    /// width, face-down cards as `##`, empty piles as `--`, the tableau fanned downwards.
    ///
    ///     Klondike  draw 1  moves 3  score 10  playing
    ///     stock ## (21)   waste 8S (2)
    ///     foundations  AS  --  --  --
    ///       t0  t1  t2  t3  t4  t5  t6
    ///       KS  ##  ##  ##  ##  ##  ##
    ///           4D  ##  ##  ##  ##  ##
    public func textBoard() -> [String] {
        textBoard(showingOnlyFoundations: false)
    }

    /// With `showingOnlyFoundations`, the waste and every tableau card are drawn face down
    /// too: a race draws a rival's table so for a seated player (see `RaceView`).
    func textBoard(showingOnlyFoundations masked: Bool) -> [String] {
        var lines = ["Klondike  draw \(draw)  moves \(moves)  score \(score)  \(status)"]
        let stock = table.piles[KlondikeTable.stock]
        let waste = table.piles[KlondikeTable.waste]
        let shown = waste.suffix(draw).map { masked ? "##" : $0.name }.joined(separator: " ")
        lines.append(
            "stock \(stock.isEmpty ? "--" : "##") (\(stock.count))   waste \(waste.isEmpty ? "--" : shown) (\(waste.count))")
        let homes = KlondikeTable.foundations.map { table.piles[$0].last?.name ?? "--" }
        lines.append("foundations  " + homes.joined(separator: "  "))
        lines.append((0..<7).map { "  t\($0)" }.joined())
        let columns = KlondikeTable.tableau.map { slot in
            table.piles[slot].indices.map { masked || $0 < table.hidden(slot) ? "##" : table.piles[slot][$0].name }
        }
        let height = max(1, columns.map(\.count).max() ?? 0)
        for row in 0..<height {
            lines.append(columns.map { row < $0.count ? "  " + $0[row] : row == 0 ? "  --" : "    " }.joined())
        }
        let width = lines.map(\.count).max() ?? 0
        return lines.map { $0 + String(repeating: " ", count: width - $0.count) }
    }
}
