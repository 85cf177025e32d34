/// The position the search walks: changed in place by `apply` and restored by `undo`, in
/// fixed buffers, so a step costs no allocation. Not copyable: it owns its buffers.
///
/// What stays fixed while the search runs is not stored again: face-down cards never move,
/// so pile p's face-down cards are always the first `hidden[p]` of its start, and stock and
/// waste only lose cards, so they are the start's talon less those played.
// Updates through the buffers are written `x[i] = x[i] op y`, never `x[i] op= y`: with
// `-sanitize=thread`, Swift 6.3.1 emits invalid IR for a compound assignment through an
// `UnsafeMutablePointer` subscript here ("Invalid bitcast"), and the build stops.
struct SolverPosition: ~Copyable {
    static let pileCapacity = 64
    static let pileCount = 7

    let draw: Int
    /// Tableau pile p is `cards[p * 64 ..< p * 64 + count[p]]`, bottom first.
    let cards: UnsafeMutablePointer<UInt8>
    let count: UnsafeMutablePointer<Int>
    /// Face-down cards at the bottom of each pile.
    let hidden: UnsafeMutablePointer<Int>
    /// The cards of each pile as a mask (bit c for card c), face up or down.
    let pileMask: UnsafeMutablePointer<UInt64>
    /// For each card, the pile whose top card it is, or -1: where a card may go is then two
    /// look-ups (its two possible parents) instead of a walk over the piles.
    let topPile: UnsafeMutablePointer<Int8>
    /// Stock and waste in drawing order (see `SolverStart.talon`); the first `wasteCount`
    /// are the waste.
    let talon: UnsafeMutablePointer<UInt8>
    var talonCount: Int
    var wasteCount: Int
    /// Cards home per suit, four bits a suit (suit s at bit 4s): also the key's lowest bits.
    var homes: UInt64
    /// Cards on the tableau, stock and waste: the game is won at 0.
    var cardsLeft: Int
    /// Face-down cards on the tableau.
    var hiddenTotal = 0

    // Parts of the key (see `key`), kept up to date move by move.

    /// Bit p: pile p has no face-down card and its bottom card is still the non-King that
    /// lay there at the start. With the face-down counts this names every pile's bottom
    /// face-up card: one just above face-down cards never moved, and any other is a King.
    var bottomFlags: UInt64 = 0
    /// Bit i: the card at position i of the start's talon is still in stock or waste.
    var talonMask: UInt64 = 0
    /// The card the last chosen move put on the tableau from the talon (`pendingFromTalon`)
    /// or a foundation (`pendingFromHome`), whose purpose is still to come (card in bits
    /// 0-5), or 0. Not part of the key: it restricts what may follow (see
    /// `generateMoves`), so the table of searched positions keeps it beside the key (see
    /// `VisitedSet.visit`).
    var pending: UInt64 = 0
    static let pendingFromTalon: UInt64 = 1 << 6
    static let pendingFromHome: UInt64 = 2 << 6
    /// Or the pile (bits 0-5) the last chosen move emptied, which a King must fill next.
    static let pendingEmptied: UInt64 = 3 << 6
    static let pendingKind: UInt64 = 3 << 6
    /// For each card, its position in the start's talon, or `notInTalon`.
    let talonBit: UnsafeMutablePointer<UInt8>
    /// The place value of each pile's digit in `pileCode`.
    let pileWeight: UnsafeMutablePointer<UInt64>
    let talonShift: UInt64
    let wasteShift: UInt64

    init(_ start: SolverStart) {
        draw = start.draw
        cards = .allocate(capacity: Self.pileCount * Self.pileCapacity)
        cards.initialize(repeating: 0, count: Self.pileCount * Self.pileCapacity)
        count = .allocate(capacity: Self.pileCount)
        count.initialize(repeating: 0, count: Self.pileCount)
        hidden = .allocate(capacity: Self.pileCount)
        hidden.initialize(repeating: 0, count: Self.pileCount)
        pileMask = .allocate(capacity: Self.pileCount)
        pileMask.initialize(repeating: 0, count: Self.pileCount)
        pileWeight = .allocate(capacity: Self.pileCount)
        pileWeight.initialize(repeating: 0, count: Self.pileCount)
        topPile = .allocate(capacity: 52)
        topPile.initialize(repeating: -1, count: 52)
        talonBit = .allocate(capacity: 52)
        talonBit.initialize(repeating: Self.notInTalon, count: 52)
        talon = .allocate(capacity: 52)
        talon.initialize(repeating: 0, count: 52)

        homes = 0
        for suit in 0..<4 { homes |= UInt64(start.homes[suit]) << (4 * suit) }
        var left = start.talon.count
        var weight: UInt64 = 1
        for p in 0..<Self.pileCount {
            let pile = start.piles[p]
            for (i, card) in pile.enumerated() {
                cards[p * Self.pileCapacity + i] = card
                pileMask[p] = pileMask[p] | (1 << UInt64(card))
            }
            count[p] = pile.count
            hidden[p] = start.hidden[p]
            hiddenTotal += start.hidden[p]
            if let bottom = pile.first, start.hidden[p] == 0, !SolverCard.isKing(bottom) { bottomFlags |= 1 << p }
            pileWeight[p] = weight
            weight *= UInt64(start.hidden[p] + 2)
            left += pile.count
        }
        cardsLeft = left
        for (i, card) in start.talon.enumerated() {
            talon[i] = card
            talonBit[Int(card)] = UInt8(i)
            talonMask |= 1 << i
        }
        talonCount = start.talon.count
        wasteCount = start.wasteCount
        talonShift = UInt64(16 + start.pileBits)
        wasteShift = talonShift + UInt64(start.talon.count)
        for p in 0..<Self.pileCount { setTop(p) }
    }

    deinit {
        cards.deallocate()
        count.deallocate()
        hidden.deallocate()
        pileMask.deallocate()
        pileWeight.deallocate()
        topPile.deallocate()
        talonBit.deallocate()
        talon.deallocate()
    }

    // MARK: - Reading

    @inline(__always) func card(_ pile: Int, _ index: Int) -> UInt8 { cards[pile &* Self.pileCapacity &+ index] }

    @inline(__always) func topCard(_ pile: Int) -> UInt8 { card(pile, count[pile] &- 1) }

    @inline(__always) func home(_ suit: Int) -> Int { Int(truncatingIfNeeded: homes >> UInt64(suit &* 4)) & 15 }

    /// May the card go home now: its foundation holds exactly the ranks below it.
    @inline(__always) func fitsHome(_ card: UInt8) -> Bool { home(SolverCard.suit(card)) == SolverCard.rank(card) }

    var isWon: Bool { cardsLeft == 0 }

    static let notInTalon: UInt8 = 255

    /// Where a card is in the talon now, if it is there: the start's talon positions before
    /// it that still hold a card.
    @inline(__always) func talonIndex(of card: UInt8) -> Int? {
        let bit = talonBit[Int(card)]
        guard bit != Self.notInTalon, talonMask >> UInt64(bit) & 1 != 0 else { return nil }
        return (talonMask & ((1 << UInt64(bit)) &- 1)).nonzeroBitCount
    }

    /// What a move does at once, for trying moves in a good order: 4 for each card it turns
    /// face up, 1 for each card it sends home (-1 for one it takes back down).
    @inline(__always) func gain(of move: SolverMove) -> Int {
        switch move.kind {
        case .tableauToFoundation:
            let n = count[move.from]
            return 1 + (n > 1 && hidden[move.from] == n - 1 ? 4 : 0)
        case .tableauToTableau:
            let j = move.thenHome ? move.index - 1 : move.index
            return (move.thenHome ? 1 : 0) + (j > 0 && hidden[move.from] == j ? 4 : 0)
        case .talonToFoundation: return 1
        case .talonToTableau: return 0
        case .foundationToTableau: return -1
        }
    }

    /// Talon positions a card can be played from after some taps and nothing else, as bits:
    /// the waste's top, then every `draw`-th card of the rest of this pass and of every pass
    /// after a turn of the waste, and the last card of each pass.
    func reachableTalon() -> UInt64 {
        let n = talonCount
        guard n > 0 else { return 0 }
        if draw == 1 { return n >= 64 ? ~0 : (1 << UInt64(n)) &- 1 }
        var mask: UInt64 = 1 << UInt64(n - 1)
        let w = wasteCount
        if w > 0 { mask |= 1 << UInt64(w - 1) }
        var k = w + draw
        while k < n {
            mask |= 1 << UInt64(k - 1)
            k += draw
        }
        k = draw
        while k < n {
            mask |= 1 << UInt64(k - 1)
            k += draw
        }
        return mask
    }

    /// The key for the table of positions already searched: the foundations, each pile's
    /// face-down count and bottom card (`pileCode`), the cards left in the talon and, where
    /// it matters, the waste's size. That fixes which cards are face up on the tableau and
    /// which of them head runs, but not which of two same-colour cards of a rank a card
    /// lies on. That choice changes nothing: when one of the two is a pile's top, one move
    /// takes the card's run across and one takes it back; when both are covered, by the two
    /// cards that fit them, whichever goes first frees a place for the other to move to. So
    /// positions that differ only there share a key, as in lonelybot.
    ///
    /// The waste's size counts never in draw 1, and in draw 3 not when it is a multiple of
    /// 3 or the whole talon: those all reach what an empty waste does.
    ///
    /// One word: the foundations in bits 0-15, then the pile digits, the talon mask, the
    /// waste's size and, in bit 63, a mark that no key is 0 (`SolverStart` checks it fits).
    @inline(__always) var key: UInt64 {
        let w = wasteCount
        let wasteKey: UInt64 = draw == 1 || w % draw == 0 || w == talonCount ? 0 : UInt64(w)
        return homes | pileCode << 16 | talonMask << talonShift | wasteKey << wasteShift | 1 << 63
    }

    /// Each pile's face-down count and bottom flag as one digit of a mixed-radix number:
    /// the count plus one, or for no face-down card 0 with the flag and 1 without.
    @inline(__always) var pileCode: UInt64 {
        var code: UInt64 = 0
        for p in 0..<Self.pileCount {
            let down = hidden[p]
            let digit = down > 0 ? down &+ 1 : (bottomFlags >> UInt64(p) & 1 == 0 ? 1 : 0)
            code &+= UInt64(truncatingIfNeeded: digit) &* pileWeight[p]
        }
        return code
    }

    // MARK: - Moving

    @inline(__always) func clearTop(_ pile: Int) {
        let n = count[pile]
        if n > 0 { topPile[Int(card(pile, n &- 1))] = -1 }
    }

    @inline(__always) func setTop(_ pile: Int) {
        let n = count[pile]
        if n > 0 { topPile[Int(card(pile, n &- 1))] = Int8(truncatingIfNeeded: pile) }
    }

    @inline(__always) mutating func goHome(_ card: UInt8) {
        homes &+= 1 << UInt64(SolverCard.suit(card) &* 4)
        cardsLeft &-= 1
    }

    @inline(__always) mutating func leaveHome(_ card: UInt8) {
        homes &-= 1 << UInt64(SolverCard.suit(card) &* 4)
        cardsLeft &+= 1
    }

    /// Turns up the top card of a pile whose cards are all face down: 1 when it did.
    @inline(__always) mutating func uncover(_ pile: Int) -> UInt64 {
        let n = count[pile]
        guard n > 0 && hidden[pile] == n else { return 0 }
        hidden[pile] = n &- 1
        hiddenTotal &-= 1
        if n == 1 && !SolverCard.isKing(card(pile, 0)) { bottomFlags |= 1 << UInt64(pile) }
        return 1
    }

    @inline(__always) mutating func cover(_ pile: Int) {
        hidden[pile] = hidden[pile] &+ 1
        hiddenTotal &+= 1
    }

    /// Takes talon card `index` out; the cards before it become the waste.
    @inline(__always) mutating func removeFromTalon(_ index: Int) -> UInt8 {
        let card = talon[index]
        var i = index
        while i < talonCount &- 1 {
            talon[i] = talon[i &+ 1]
            i &+= 1
        }
        talonCount &-= 1
        wasteCount = index
        talonMask &= ~(1 << UInt64(talonBit[Int(card)]))
        return card
    }

    @inline(__always) mutating func insertIntoTalon(_ card: UInt8, at index: Int, waste: Int) {
        var i = talonCount
        while i > index {
            talon[i] = talon[i &- 1]
            i &-= 1
        }
        talon[index] = card
        talonCount &+= 1
        wasteCount = waste
        talonMask |= 1 << UInt64(talonBit[Int(card)])
    }

    @inline(__always) mutating func place(_ card: UInt8, on pile: Int) {
        clearTop(pile)
        let n = count[pile]
        cards[pile &* Self.pileCapacity &+ n] = card
        count[pile] = n &+ 1
        pileMask[pile] = pileMask[pile] | (1 << UInt64(card))
        setTop(pile)
    }

    @inline(__always) mutating func takeTop(_ pile: Int) {
        clearTop(pile)
        count[pile] = count[pile] &- 1
        pileMask[pile] = pileMask[pile] & (~(1 << UInt64(card(pile, count[pile]))))
        setTop(pile)
    }

    /// Moves `length` cards from the top of pile `from` onto pile `to`, keeping the masks.
    @inline(__always) mutating func carry(_ length: Int, from a: Int, to b: Int) {
        let na = count[a]
        let nb = count[b]
        var moved: UInt64 = 0
        for k in 0..<length {
            let c = card(a, na &- length &+ k)
            cards[b &* Self.pileCapacity &+ nb &+ k] = c
            moved |= 1 << UInt64(c)
        }
        count[a] = na &- length
        count[b] = nb &+ length
        pileMask[a] = pileMask[a] & (~moved)
        pileMask[b] = pileMask[b] | (moved)
    }

    // Undo records: the move in the low 32 bits; above them, bit 0 a card was turned up,
    // bits 1-6 the waste's size before, bits 8-14 `bottomFlags` before, bits 15-20 how many cards a run move carried, bits 21-28
    // `pending` before.

    /// Makes a move the generator produced for this position; returns what undoes it. A
    /// card put on the tableau from the talon or a foundation becomes `pending`; any other
    /// move clears it.
    mutating func apply(_ move: SolverMove) -> UInt64 {
        let before = pending << 21
        pending = 0
        var info: UInt64
        switch move.kind {
        case .tableauToFoundation:
            let p = move.from
            let n = count[p]
            let c = card(p, n &- 1)
            info = bottomFlags << 8
            clearTop(p)
            count[p] = n &- 1
            pileMask[p] = pileMask[p] & (~(1 << UInt64(c)))
            goHome(c)
            if n == 1 { bottomFlags &= ~(1 << UInt64(p)) }
            info |= uncover(p)
            setTop(p)
        case .tableauToTableau:
            let a = move.from
            let b = move.to
            let j = move.index
            let length = count[a] &- j
            info = bottomFlags << 8 | UInt64(length) << 15
            clearTop(a)
            clearTop(b)
            carry(length, from: a, to: b)
            if j == 0 {
                bottomFlags &= ~(1 << UInt64(a))
                // A pile emptied by a whole run (never a King's) waits for a King.
                pending = Self.pendingEmptied | UInt64(a)
            }
            info |= uncover(a)
            setTop(a)
            setTop(b)
        case .talonToFoundation:
            info = UInt64(wasteCount) << 1
            goHome(removeFromTalon(move.index))
        case .talonToTableau:
            info = UInt64(wasteCount) << 1
            place(removeFromTalon(move.index), on: move.to)
            pending = Self.pendingFromTalon | UInt64(move.card)
        case .foundationToTableau:
            info = 0
            leaveHome(move.card)
            place(move.card, on: move.to)
            pending = Self.pendingFromHome | UInt64(move.card)
        }
        return UInt64(move.raw) | (info | before) << 32
    }

    /// Takes back the move of an undo record from `apply`; records go back newest first.
    mutating func undo(_ record: UInt64) {
        let move = SolverMove(raw: UInt32(truncatingIfNeeded: record))
        let info = record >> 32
        pending = info >> 21 & 255
        switch move.kind {
        case .tableauToFoundation:
            let p = move.from
            let c = move.card
            clearTop(p)
            if info & 1 != 0 { cover(p) }
            cards[p &* Self.pileCapacity &+ count[p]] = c
            count[p] = count[p] &+ 1
            pileMask[p] = pileMask[p] | (1 << UInt64(c))
            leaveHome(c)
            bottomFlags = info >> 8 & 127
            setTop(p)
        case .tableauToTableau:
            let a = move.from
            let b = move.to
            let length = Int(info >> 15 & 63)
            clearTop(a)
            clearTop(b)
            if info & 1 != 0 { cover(a) }
            carry(length, from: b, to: a)
            bottomFlags = info >> 8 & 127
            setTop(a)
            setTop(b)
        case .talonToFoundation:
            leaveHome(move.card)
            insertIntoTalon(move.card, at: move.index, waste: Int(info >> 1 & 63))
        case .talonToTableau:
            takeTop(move.to)
            insertIntoTalon(move.card, at: move.index, waste: Int(info >> 1 & 63))
        case .foundationToTableau:
            takeTop(move.to)
            goHome(move.card)
        }
    }
}
