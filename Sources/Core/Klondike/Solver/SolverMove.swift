/// One step of the search, packed in 32 bits so move lists and the path are flat arrays.
/// A talon step is a macro: "tap until this card shows, then play it"; the taps are
/// counted out only when a winning path is turned into gestures.
struct SolverMove: Equatable {
    enum Kind: UInt32 {
        /// The top card of tableau pile `from` goes home.
        case tableauToFoundation
        /// Talon card `index` (see `SolverPosition.talon`) goes home.
        case talonToFoundation
        /// Talon card `index` goes onto tableau pile `to`.
        case talonToTableau
        /// The cards of pile `from` from `index` up go onto pile `to`.
        case tableauToTableau
        /// The top card of the foundation of suit `from` comes down onto pile `to`.
        case foundationToTableau
    }

    let raw: UInt32

    init(raw: UInt32) { self.raw = raw }

    /// `card` is the card that moves (the bottom one of a run): undo puts it back by name,
    /// since the slot it left may have been written over since.
    init(_ kind: Kind, from: Int = 0, to: Int = 0, index: Int = 0, card: UInt8, thenHome: Bool = false) {
        // Every field is masked to its width. Besides keeping fields apart, this works around
        // a Swift 6.3.1 optimizer bug: with unmasked, trapping conversions it dropped the
        // kind and `from` bits of a move built in a loop (foundation moves of a King).
        let fields = UInt32(truncatingIfNeeded: from & 15) << 3 | UInt32(truncatingIfNeeded: to & 15) << 7
            | UInt32(truncatingIfNeeded: index & 63) << 11 | UInt32(card & 63) << 17
        raw = kind.rawValue | fields | (thenHome ? 1 << 23 : 0)
    }

    var kind: Kind { Kind(rawValue: raw & 7) ?? .tableauToFoundation }
    var from: Int { Int(raw >> 3 & 15) }
    var to: Int { Int(raw >> 7 & 15) }
    var index: Int { Int(raw >> 11 & 63) }
    var card: UInt8 { UInt8(raw >> 17 & 63) }
    /// A run move that uncovers a card which then goes home at once (see `SolverMoves`).
    var thenHome: Bool { raw & 1 << 23 != 0 }
}
