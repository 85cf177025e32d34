import Core

/// The proven seed a new game is dealt from (section 12): proved for this create, or taken from
/// the stored pool, which then gives it up in the same write as the game's row.
struct ChosenSeed {
    var value: UInt64
    var pooled: ProvenSeed? = nil
}
