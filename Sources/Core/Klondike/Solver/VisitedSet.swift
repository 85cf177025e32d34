/// The positions the search has reached: an open-addressing hash set (linear probing,
/// filled to three quarters) of whole keys, not hashes of them, so a verdict never rests
/// on a hash collision. Keys are one word (see `SolverPosition.key`), eight bytes a slot:
/// the table is most of the solver's memory and its look-ups most of its cache misses.
struct VisitedSet: ~Copyable {
    private var slots: UnsafeMutablePointer<UInt64>
    /// For each slot, the pending card its position was searched with (0: every move).
    private var pendings: UnsafeMutablePointer<UInt8>
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1 << 12) {
        let size = max(16, 1 << (Int.bitWidth - (capacity - 1).leadingZeroBitCount))
        // A key always has its top bit set, so zero marks an empty slot.
        slots = .allocate(capacity: size)
        slots.initialize(repeating: 0, count: size)
        pendings = .allocate(capacity: size)
        pendings.initialize(repeating: 0, count: size)
        mask = size - 1
    }

    deinit {
        slots.deallocate()
        pendings.deallocate()
    }

    @inline(__always) private static func hash(_ key: UInt64) -> Int {
        var h = key &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ (h >> 32)) &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 29
        return Int(truncatingIfNeeded: h)
    }

    /// How a position must be searched when the search reaches it.
    enum Visit {
        /// Already searched with at least the moves it would be searched with now.
        case skip
        /// Search it with every move, even if a card is pending: it was searched before
        /// with another card pending, or it is new and nothing is pending.
        case searchAll
        /// New: search it with only the moves its pending card allows.
        case searchPending
    }

    /// Files a position reached with `pending` (0 for none) and says how to search it. A
    /// search restricted by a pending card proves less than a full one, so the table keeps
    /// which it was: a full search covers any later arrival, a restricted one only an
    /// arrival with the same card pending; anything else searches the position again, fully.
    @inline(__always) mutating func visit(_ key: UInt64, pending: UInt64) -> Visit {
        var i = Self.hash(key) & mask
        while true {
            let slot = slots[i]
            if slot == 0 { break }
            if slot == key {
                let searched = UInt64(pendings[i])
                if searched == 0 || searched == pending { return .skip }
                pendings[i] = 0
                return .searchAll
            }
            i = (i &+ 1) & mask
        }
        slots[i] = key
        pendings[i] = UInt8(truncatingIfNeeded: pending)
        count += 1
        if count * 4 > mask * 3 { grow() }
        return pending == 0 ? .searchAll : .searchPending
    }

    /// Takes a key out if it is there, moving later keys of its cluster back so every key
    /// stays reachable from its home slot.
    mutating func remove(_ key: UInt64) {
        var i = Self.hash(key) & mask
        while true {
            let slot = slots[i]
            if slot == 0 { return }
            if slot == key { break }
            i = (i &+ 1) & mask
        }
        var hole = i
        var j = i
        while true {
            j = (j &+ 1) & mask
            let slot = slots[j]
            if slot == 0 { break }
            let home = Self.hash(slot) & mask
            // The key at j may fill the hole unless its home lies cyclically in (hole, j].
            let inBetween = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !inBetween {
                slots[hole] = slot
                pendings[hole] = pendings[j]
                hole = j
            }
        }
        slots[hole] = 0
        pendings[hole] = 0
        count -= 1
    }

    private mutating func grow() {
        let oldSlots = slots
        let oldPendings = pendings
        let oldSize = mask + 1
        let size = oldSize * 2
        slots = .allocate(capacity: size)
        slots.initialize(repeating: 0, count: size)
        pendings = .allocate(capacity: size)
        pendings.initialize(repeating: 0, count: size)
        mask = size - 1
        for j in 0..<oldSize where oldSlots[j] != 0 {
            var i = Self.hash(oldSlots[j]) & mask
            while slots[i] != 0 { i = (i &+ 1) & mask }
            slots[i] = oldSlots[j]
            pendings[i] = oldPendings[j]
        }
        oldSlots.deallocate()
        oldPendings.deallocate()
    }
}
