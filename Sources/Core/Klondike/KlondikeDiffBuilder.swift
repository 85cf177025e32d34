/// Collects the RFC 6902 ops of one move. Moves only take cards off the top of piles, put
/// cards on top, and turn a top card over, so each changed pile is described by its old
/// length and how many of its bottom cards kept their public face (`keep`); the new cards
/// are read from the table after the move, so a face-down card can only ever show as `??`.
struct KlondikeDiffBuilder {
    private var ops: [PatchOp] = []

    init() {
        ops.reserveCapacity(8)
    }

    var diff: Diff { Diff(ops) }

    mutating func replace(_ path: String, _ value: JSON) {
        ops.append(.replace(path: path, value: value))
    }

    /// Ops turning pile `slot` from its old public form (`oldCount` cards, the first `keep`
    /// of which are unchanged) into its form in `table`: replace the changed cards both
    /// forms have, remove the old surplus from the top down (so every index is valid when
    /// its op applies), then add the new cards bottom up. A pile emptied or filled from
    /// empty with several cards (the waste turned over) is one replace of the whole array
    /// instead of dozens of ops.
    mutating func pile(_ slot: Int, oldCount: Int, keep: Int, in table: KlondikeTable) {
        let newCount = table.piles[slot].count
        if keep == 0 && (oldCount == 0 || newCount == 0) && oldCount + newCount > 2 {
            ops.append(.replace(path: KlondikePaths.piles[slot], value: table.publicPile(slot)))
            return
        }
        let common = min(oldCount, newCount)
        if keep < common {
            for i in keep..<common {
                ops.append(.replace(path: KlondikePaths.card(slot, i), value: table.publicCard(slot, i)))
            }
        }
        if oldCount > newCount {
            for i in stride(from: oldCount - 1, through: newCount, by: -1) {
                ops.append(.remove(path: KlondikePaths.card(slot, i)))
            }
        } else if newCount > oldCount {
            for i in oldCount..<newCount {
                ops.append(.add(path: KlondikePaths.card(slot, i), value: table.publicCard(slot, i)))
            }
        }
    }
}
