/// Which moves the search tries from a position, and which it makes without trying the
/// others. Each pruning below is one that cannot lose a win; the comment says why.
extension SolverPosition {
    /// Are the other foundations far enough up that this card, once it may go home, is
    /// always best sent there? True when the other colour's foundations hold every rank up
    /// to two below it and the twin suit's up to three below. Then nothing that could still
    /// go on it in the tableau is needed there: the cards one rank down of the other colour
    /// can go home themselves, and so can those two down of its colour that would lie on
    /// them. Worrying back is allowed here, so the plainer rule (other colour up to one
    /// below) is not enough; this is the rule Solvitaire (Blake & Gent) use for Klondike
    /// with worrying back.
    @inline(__always) func othersAllowHome(_ card: UInt8) -> Bool {
        let rank = SolverCard.rank(card)
        let suit = SolverCard.suit(card)
        let (other1, other2) = SolverCard.otherColour(suit: suit)
        return home(other1) >= rank - 1 && home(other2) >= rank - 1 && home(SolverCard.twin(suit: suit)) >= rank - 2
    }

    /// Sends home, again until none is left, every card that may go home and is safe to
    /// send (see `othersAllowHome`) and every tableau card that may go home from the top of a pile where
    /// it lies on a face-up card, recording each move on the path.
    ///
    /// The second kind is no choice either: one move sends such a card home and one brings
    /// it back onto the card it lay on, which nothing else can cover meanwhile, so the two
    /// positions win or lose together, and the one with the card home is kept. Bringing it
    /// back is the move down from a foundation, made together with a move onto it (see
    /// `generateFollowUps`). A card just put on the tableau for such a move is exempt.
    ///
    /// Talon cards count when taking one out leaves every other card as reachable as
    /// before: any card in draw 1; in draw 3 only the talon's last card, and only when the
    /// waste's size does not reach cards an empty waste would not. (A talon card that may
    /// go home but is not safe stays a choice even in draw 1: home, it would cover the card
    /// under it on the foundation, which a winning line may still need to bring down.) Only
    /// the next card of each suit can go home, so four look-ups find them all.
    mutating func playSafeMoves(path: inout FlatStack<UInt64>) {
        // Safe moves are not choices: what the last choice left pending stays pending.
        let kept = pending
        let exempt = kept == 0 || kept & Self.pendingKind == Self.pendingEmptied ? -1 : Int(kept & 63)
        var suit = 0
        var idle = 0  // suits looked at in a row that sent nothing home
        while idle < 4 {
            let rank = home(suit)
            var moved = false
            if rank < 13 {
                let c = UInt8(rank << 2 | suit)
                let p = Int(topPile[Int(c)])
                let safe = othersAllowHome(c)
                if p >= 0 && (safe || (count[p] - 1 > hidden[p] && Int(c) != exempt)) {
                    path.append(apply(SolverMove(.tableauToFoundation, from: p, card: c)))
                    moved = true
                } else if safe {
                    if let i = talonIndex(of: c),
                        draw == 1 || (i == talonCount - 1 && (wasteCount % draw == 0 || wasteCount == talonCount))
                    {
                        path.append(apply(SolverMove(.talonToFoundation, index: i, card: c)))
                        moved = true
                    }
                }
            }
            if moved {
                idle = 0
            } else {
                idle += 1
                suit = (suit + 1) & 3
            }
        }
        pending = kept
    }

    /// The cards of the same suit and a lower rank, as a mask.
    @inline(__always) static func lowerInSuit(_ card: UInt8) -> UInt64 {
        (0x1_1111_1111_1111 << UInt64(SolverCard.suit(card))) & ((1 << UInt64(SolverCard.rank(card) &* 4)) &- 1)
    }

    /// The two cards this card may lie on in the tableau, as a mask (none for a King).
    @inline(__always) static func parents(_ card: UInt8) -> UInt64 {
        let rank = SolverCard.rank(card)
        guard rank < SolverCard.king else { return 0 }
        let (s1, s2) = SolverCard.otherColour(suit: SolverCard.suit(card))
        let up = UInt64(rank &+ 1) << 2
        return 1 << (up | UInt64(s1)) | 1 << (up | UInt64(s2))
    }

    /// The moves worth trying from here, appended most promising first. (A card that may go
    /// home from a face-up card is already home, see `playSafeMoves`.)
    ///
    /// Tableau runs move whole (from their lowest face-up card), except to uncover a card
    /// that then goes home at once: any other part-run move only swaps which of two
    /// same-colour cards of one rank is covered, which changes nothing but the foundations
    /// those two could go to. A King never moves from the bottom of a pile to an empty pile,
    /// and of several empty piles only the first is offered. A whole run leaves a pile empty
    /// only when a King could take the space next: until then that move keeps.
    @inline(__always) func generateMoves(into moves: inout FlatStack<UInt32>) {
        if pending != 0 {
            generateFollowUps(into: &moves)
            return
        }
        var firstEmpty = -1
        for p in 0..<Self.pileCount where count[p] == 0 {
            firstEmpty = p
            break
        }

        // Tableau cards home that turn a card up or empty a pile.
        for p in 0..<Self.pileCount {
            let n = count[p]
            if n > 0 && hidden[p] >= n - 1 && fitsHome(topCard(p)) {
                moves.append(SolverMove(.tableauToFoundation, from: p, card: topCard(p)).raw)
            }
        }

        // Whole runs that turn a card up, piles with most face-down cards first.
        var order: UInt64 = 0  // pile numbers as 4-bit digits, most face-down cards first
        var ordered = 0
        for p in 0..<Self.pileCount where hidden[p] > 0 && count[p] > hidden[p] {
            var k = ordered
            while k > 0 {
                let q = Int(order >> UInt64(4 * (k - 1)) & 15)
                if hidden[q] >= hidden[p] { break }
                order = order & ~(15 << UInt64(4 * k)) | UInt64(q) << UInt64(4 * k)
                k -= 1
            }
            order = order & ~(15 << UInt64(4 * k)) | UInt64(p) << UInt64(4 * k)
            ordered += 1
        }
        for k in 0..<ordered {
            let p = Int(order >> UInt64(k * 4) & 15)
            let h = hidden[p]
            let base = card(p, h)
            let target = place(for: base, firstEmpty: firstEmpty)
            if target >= 0 { moves.append(SolverMove(.tableauToTableau, from: p, to: target, index: h, card: base).raw) }
        }

        // Part of a run moves onto the twin of the card under it, which then goes home. Only
        // the next card of a suit can go home: find where each lies.
        for suit in 0..<4 {
            let rank = home(suit)
            guard rank < 13 else { continue }
            let under = UInt8(rank << 2 | suit)
            let target = Int(topPile[Int(under ^ 3)])  // its twin: same rank, other suit of the colour
            guard target >= 0 else { continue }
            let bit: UInt64 = 1 << UInt64(under)
            for p in 0..<Self.pileCount where p != target && pileMask[p] & bit != 0 {
                var j = count[p] - 2
                while j >= hidden[p] && card(p, j) != under { j -= 1 }
                if j >= hidden[p] {
                    moves.append(SolverMove(.tableauToTableau, from: p, to: target, index: j + 1, card: card(p, j + 1), thenHome: true).raw)
                }
            }
        }

        // Stock and waste: every card taps can bring to the top.
        appendTalonMoves(firstEmpty: firstEmpty, into: &moves)

        // Whole runs that empty a pile, when a King could take its place.
        if firstEmpty < 0 && kingCouldMoveToSpace() {
            for p in 0..<Self.pileCount where count[p] > 0 && hidden[p] == 0 && !SolverCard.isKing(card(p, 0)) {
                let target = place(for: card(p, 0))
                if target >= 0 { moves.append(SolverMove(.tableauToTableau, from: p, to: target, index: 0, card: card(p, 0)).raw) }
            }
        }

        // A card back down from its foundation (not one that would go straight back up),
        // where something can use it next.
        for suit in 0..<4 {
            let k = home(suit)
            guard k > 0 else { continue }
            let c = UInt8((k - 1) << 2 | suit)
            guard !othersAllowHome(c) else { continue }
            let target = place(for: c, firstEmpty: firstEmpty)
            if target >= 0 && hasUse(of: c, on: target, fromHome: true, scratch: &moves) {
                moves.append(SolverMove(.foundationToTableau, from: suit, to: target, card: c).raw)
            }
        }
    }

    /// The moves that may follow a card coming onto the tableau from the talon or a
    /// foundation. Such a card serves only as a place for a card one rank lower (or, down
    /// from a foundation, to let the card under it come down too), so the move that uses it
    /// may as well come next: any other move could be made before it, and a line that never
    /// uses the card is no worse without it. In draw 3 taking a card from the talon also
    /// changes which others taps reach, a purpose of its own, so any talon move may follow.
    ///
    /// A pile emptied by moving its run away serves only to take a King, so the King comes
    /// next, by the same reasoning; in draw 3 talon moves may come first, as they may have
    /// to bring the King up (and a card placed from the talon must itself be used next:
    /// without them the two rules could each wait for the other).
    private func generateFollowUps(into moves: inout FlatStack<UInt32>) {
        if pending & Self.pendingKind == Self.pendingEmptied {
            let space = Int(pending & 63)
            appendKings(into: space, into: &moves)
            if draw > 1 { appendTalonMoves(firstEmpty: space, into: &moves) }
            return
        }
        let c = UInt8(truncatingIfNeeded: pending & 63)
        let target = Int(topPile[Int(c)])
        let fromHome = pending & Self.pendingFromHome != 0
        if target >= 0 { appendUses(of: c, on: target, fromHome: fromHome, into: &moves) }
        if !fromHome && draw > 1 {
            var firstEmpty = -1
            for p in 0..<Self.pileCount where count[p] == 0 {
                firstEmpty = p
                break
            }
            appendTalonMoves(firstEmpty: firstEmpty, into: &moves)
        }
    }

    /// Would card `c`, put on pile `target` from the talon or (`fromHome`) its foundation,
    /// have a move that uses it next? Asked before making such a move, so as not to make
    /// one that leads nowhere.
    private func hasUse(of c: UInt8, on target: Int, fromHome: Bool, scratch moves: inout FlatStack<UInt32>) -> Bool {
        let mark = moves.count
        appendUses(of: c, on: target, fromHome: fromHome, into: &moves)
        defer { moves.shrink(to: mark) }
        return moves.count > mark
    }

    /// The moves that use card `c` on pile `target`: a card one rank lower onto it, from
    /// wherever it can come; for a card down from its foundation, also the card under it
    /// in the foundation coming down.
    private func appendUses(of c: UInt8, on target: Int, fromHome: Bool, into moves: inout FlatStack<UInt32>) {
        let suit = SolverCard.suit(c)
        let rank = SolverCard.rank(c)
        guard rank > 0 else { return }
        let (s1, s2) = SolverCard.otherColour(suit: suit)
        let below = UInt8(rank - 1) << 2
        appendMoves(of: below | UInt8(s1), onto: target, over: c, into: &moves)
        appendMoves(of: below | UInt8(s2), onto: target, over: c, into: &moves)
        // The card under it on the foundation is `under` once `c` is down (`home(suit)`
        // may still count `c`).
        if fromHome && home(suit) >= rank {
            let under = UInt8((rank - 1) << 2 | suit)
            if !othersAllowHome(under) {
                let place = self.place(for: under)
                if place >= 0 { moves.append(SolverMove(.foundationToTableau, from: suit, to: place, card: under).raw) }
            }
        }
    }

    /// Every way card `x` can come onto `c`, the top of pile `target`: from the talon (one
    /// taps reach), at the head of a run, from above `c`'s twin when that twin then goes
    /// home, or down from its foundation.
    private func appendMoves(of x: UInt8, onto target: Int, over c: UInt8, into moves: inout FlatStack<UInt32>) {
        if home(SolverCard.suit(x)) == SolverCard.rank(x) + 1 {
            if !othersAllowHome(x) { moves.append(SolverMove(.foundationToTableau, from: SolverCard.suit(x), to: target, card: x).raw) }
            return
        }
        if let i = talonIndex(of: x) {
            if reachableTalon() >> UInt64(i) & 1 != 0 {
                moves.append(SolverMove(.talonToTableau, to: target, index: i, card: x).raw)
            }
            return
        }
        let bit: UInt64 = 1 << UInt64(x)
        for q in 0..<Self.pileCount where q != target && pileMask[q] & bit != 0 {
            var j = count[q] - 1
            while j >= hidden[q] && card(q, j) != x { j -= 1 }
            guard j >= hidden[q] else { return }  // face down
            if j > hidden[q] {
                // On c's twin: worth it only when the twin then goes home.
                if fitsHome(card(q, j - 1)) {
                    moves.append(SolverMove(.tableauToTableau, from: q, to: target, index: j, card: x, thenHome: true).raw)
                }
            } else if j > 0 || kingCouldMoveToSpace() {
                moves.append(SolverMove(.tableauToTableau, from: q, to: target, index: j, card: x).raw)
            }
            return
        }
    }

    /// Every card taps can bring to the top: home if it fits, onto every pile it fits.
    @inline(__always) private func appendTalonMoves(firstEmpty: Int, into moves: inout FlatStack<UInt32>) {
        var reachable = reachableTalon()
        while reachable != 0 {
            let i = reachable.trailingZeroBitCount
            reachable &= reachable &- 1
            let c = talon[i]
            if fitsHome(c) { moves.append(SolverMove(.talonToFoundation, index: i, card: c).raw) }
            let target = place(for: c, firstEmpty: firstEmpty)
            // The card must be of use at once (see `generateFollowUps`), except in draw 3
            // where taking it out may be the point; but not one that may go home: sending
            // it there takes it out just the same.
            let forTheTalon = draw > 1 && !fitsHome(c)
            if target >= 0 && (forTheTalon || hasUse(of: c, on: target, fromHome: false, scratch: &moves)) {
                moves.append(SolverMove(.talonToTableau, to: target, index: i, card: c).raw)
            }
        }
    }

    /// A pile whose top card `card` fits on, or -1: the first of its two parents that is a
    /// pile's top (the other would give a position with the same key, see
    /// `SolverPosition.key`); for a King the first empty pile.
    @inline(__always) func place(for card: UInt8, firstEmpty: Int = -2) -> Int {
        if SolverCard.isKing(card) {
            if firstEmpty != -2 { return firstEmpty }
            for p in 0..<Self.pileCount where count[p] == 0 { return p }
            return -1
        }
        let (s1, s2) = SolverCard.otherColour(suit: SolverCard.suit(card))
        let up = UInt8(SolverCard.rank(card) + 1) << 2
        let t1 = Int(topPile[Int(up | UInt8(s1))])
        return t1 >= 0 ? t1 : Int(topPile[Int(up | UInt8(s2))])
    }

    /// Every way a King can come into empty pile `space`: from the talon, down from a
    /// foundation, or heading a run above face-down cards.
    private func appendKings(into space: Int, into moves: inout FlatStack<UInt32>) {
        for p in 0..<Self.pileCount where hidden[p] > 0 && count[p] > hidden[p] && SolverCard.isKing(card(p, hidden[p])) {
            moves.append(SolverMove(.tableauToTableau, from: p, to: space, index: hidden[p], card: card(p, hidden[p])).raw)
        }
        // In draw 3 the talon's Kings come with all its other moves (see `generateFollowUps`).
        var reachable = draw == 1 ? reachableTalon() : 0
        while reachable != 0 {
            let i = reachable.trailingZeroBitCount
            reachable &= reachable &- 1
            if SolverCard.isKing(talon[i]) {
                moves.append(SolverMove(.talonToTableau, to: space, index: i, card: talon[i]).raw)
            }
        }
        for suit in 0..<4 where home(suit) == 13 {
            let king = UInt8(SolverCard.king << 2 | suit)
            if !othersAllowHome(king) { moves.append(SolverMove(.foundationToTableau, from: suit, to: space, card: king).raw) }
        }
    }

    /// Could some King move into an empty pile right now: one taps bring up, one on a
    /// foundation, or one heading a run above face-down cards.
    private func kingCouldMoveToSpace() -> Bool {
        for p in 0..<Self.pileCount where hidden[p] > 0 && count[p] > hidden[p] && SolverCard.isKing(card(p, hidden[p])) {
            return true
        }
        for suit in 0..<4 where home(suit) == 13 { return true }
        var reachable = reachableTalon()
        while reachable != 0 {
            let i = reachable.trailingZeroBitCount
            reachable &= reachable &- 1
            if SolverCard.isKing(talon[i]) { return true }
        }
        return false
    }
}
