/// A quick proof that a position is lost, without searching it.
///
/// Every card has to go home, and each thing that can happen to a card needs other things
/// to have happened first. A face-down card is reached only after every card above it has
/// left; a card goes home only after each lower card of its suit went home, which never
/// happens while one of them lies under it; a card leaves its place for the tableau only
/// onto one of its two parents, and never onto one lying under it. Starting from what
/// needs nothing, and adding whatever has all it needs, gives every card that could
/// possibly go home, in any order of play (a card that can go home in real play has, by
/// the time it does, every earlier step done). The rest never can, and then the position
/// is lost. Kings are let out as if an empty pile were always there, and cards in the
/// talon or on a foundation count as reachable: both only err towards "could".
extension SolverPosition {
    var someCardCanNeverGoHome: Bool {
        var present: UInt64 = 0
        var home: UInt64 = 0
        for suit in 0..<4 {
            for rank in 0..<self.home(suit) { home |= 1 << UInt64(rank << 2 | suit) }
        }
        present |= home
        var talonCards: UInt64 = 0
        for i in 0..<talonCount { talonCards |= 1 << UInt64(talon[i]) }
        present |= talonCards
        // Face-up cards are reached now; a face-up card lying on a parent also leaves with it.
        var reached: UInt64 = home | talonCards
        var left: UInt64 = home | talonCards
        for p in 0..<Self.pileCount {
            for i in 0..<count[p] {
                present |= 1 << UInt64(card(p, i))
                if i >= hidden[p] { reached |= 1 << UInt64(card(p, i)) }
                if i > hidden[p] { left |= 1 << UInt64(card(p, i)) }
            }
        }
        var homeable = home
        var changed = true
        while changed {
            changed = false
            // Cards in the talon go home once their suit allows.
            var talonRest = talonCards & ~homeable
            while talonRest != 0 {
                let c = UInt8(talonRest.trailingZeroBitCount)
                talonRest &= talonRest &- 1
                if Self.lowerInSuit(c) & ~homeable == 0 {
                    homeable |= 1 << UInt64(c)
                    changed = true
                }
            }
            for p in 0..<Self.pileCount {
                var below: UInt64 = 0
                for i in 0..<count[p] {
                    let c = card(p, i)
                    let bit: UInt64 = 1 << UInt64(c)
                    if reached & bit == 0 && i + 1 < count[p] && left >> UInt64(card(p, i + 1)) & 1 != 0 {
                        reached |= bit
                        changed = true
                    }
                    if reached & bit != 0 {
                        let lower = Self.lowerInSuit(c)
                        let lowerHome = lower & ~homeable == 0
                        if left & bit == 0 {
                            let parents = Self.parents(c) & ~below & reached
                            if (lowerHome && lower & below == 0) || parents != 0 || SolverCard.isKing(c) {
                                left |= bit
                                changed = true
                            }
                        }
                        // Home from here, or from wherever it went.
                        if lowerHome && (lower & below == 0 || left & bit != 0) && homeable & bit == 0 {
                            homeable |= bit
                            changed = true
                        }
                    }
                    below |= bit
                }
            }
        }
        return homeable != present
    }
}
