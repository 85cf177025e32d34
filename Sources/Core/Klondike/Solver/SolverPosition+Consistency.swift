extension SolverPosition {
    /// Recomputes every derived field from the piles and talon and says what disagrees, or
    /// nil: for tests of `apply` and `undo`, too slow for the search itself.
    var consistencyProblem: String? {
        var tops = [Int8](repeating: -1, count: 52)
        var left = talonCount
        var down = 0
        for p in 0..<Self.pileCount {
            let n = count[p]
            guard n >= 0, hidden[p] >= 0, hidden[p] <= max(0, n - 1) else { return "pile \(p) counts" }
            left += n
            down += hidden[p]
            var cardsHere: UInt64 = 0
            for i in 0..<n { cardsHere |= 1 << UInt64(card(p, i)) }
            if cardsHere != pileMask[p] { return "pile \(p) mask" }
            for i in 0..<n where i > hidden[p] {
                let below = card(p, i - 1)
                let c = card(p, i)
                guard SolverCard.rank(below) == SolverCard.rank(c) + 1,
                    SolverCard.isRed(suit: SolverCard.suit(below)) != SolverCard.isRed(suit: SolverCard.suit(c))
                else { return "pile \(p) is no run at \(i)" }
            }
            if n > 0 {
                tops[Int(card(p, n - 1))] = Int8(p)
                // A non-King can come to the bottom of a pile only by having been there.
                if hidden[p] == 0 && !SolverCard.isKing(card(p, 0)) && bottomFlags & (1 << UInt64(p)) == 0 {
                    return "pile \(p) bottom flag"
                }
            }
        }
        var mask: UInt64 = 0
        for i in 0..<talonCount { mask |= 1 << UInt64(talonBit[Int(talon[i])]) }
        if mask != talonMask { return "talon mask" }
        if left != cardsLeft { return "cards left" }
        if down != hiddenTotal { return "face-down total" }
        if !(0..<52).allSatisfy({ topPile[$0] == tops[$0] }) { return "top piles" }
        if wasteCount < 0 || wasteCount > talonCount { return "waste count" }
        return nil
    }
}
