/// The positions the search has reached: an open-addressing hash set (linear probing,
/// filled to three quarters) of whole keys, not hashes of them, so a verdict never rests
/// on a hash collision.
struct VisitedSet: ~Copyable {
    private var slots: UnsafeMutablePointer<SolverKey>
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1 << 12) {
        let size = max(16, 1 << (Int.bitWidth - (capacity - 1).leadingZeroBitCount))
        slots = .allocate(capacity: size)
        // A key's high word always has its top bit set, so zero marks an empty slot.
        slots.initialize(repeating: SolverKey(low: 0, high: 0), count: size)
        mask = size - 1
    }

    deinit { slots.deallocate() }

    @inline(__always) private static func hash(_ key: SolverKey) -> Int {
        var h = key.low ^ (key.high &* 0x9E37_79B9_7F4A_7C15)
        h = (h ^ (h >> 32)) &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
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

    /// Bits 55-62 of a key's low word are free (see `SolverPosition.key`): a slot keeps there
    /// the pending card its position was searched with, 0 when searched with every move.
    private static let pendingShift: UInt64 = 55
    private static let keyBits: UInt64 = ~(255 << pendingShift)

    /// Files a position reached with `pending` (0 for none) and says how to search it. A
    /// search restricted by a pending card proves less than a full one, so the table keeps
    /// which it was: a full search covers any later arrival, a restricted one only an
    /// arrival with the same card pending; anything else searches the position again, fully.
    @inline(__always) mutating func visit(_ key: SolverKey, pending: UInt64) -> Visit {
        var i = Self.hash(key) & mask
        while true {
            let slot = slots[i]
            if slot.high == 0 { break }
            if slot.high == key.high && slot.low & Self.keyBits == key.low {
                let searched = slot.low >> Self.pendingShift
                if searched == 0 || searched == pending { return .skip }
                slots[i].low = key.low
                return .searchAll
            }
            i = (i &+ 1) & mask
        }
        slots[i] = SolverKey(low: key.low | pending << Self.pendingShift, high: key.high)
        count += 1
        if count * 4 > mask * 3 { grow() }
        return pending == 0 ? .searchAll : .searchPending
    }

    /// Takes a key out if it is there, moving later keys of its cluster back so every key
    /// stays reachable from its home slot.
    mutating func remove(_ key: SolverKey) {
        var i = Self.hash(key) & mask
        while true {
            let slot = slots[i]
            if slot.high == 0 { return }
            if slot.high == key.high && slot.low & Self.keyBits == key.low { break }
            i = (i &+ 1) & mask
        }
        var hole = i
        var j = i
        while true {
            j = (j &+ 1) & mask
            let slot = slots[j]
            if slot.high == 0 { break }
            let home = Self.hash(SolverKey(low: slot.low & Self.keyBits, high: slot.high)) & mask
            // The key at j may fill the hole unless its home lies cyclically in (hole, j].
            let inBetween = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !inBetween {
                slots[hole] = slot
                hole = j
            }
        }
        slots[hole] = SolverKey(low: 0, high: 0)
        count -= 1
    }

    private mutating func grow() {
        let old = slots
        let oldSize = mask + 1
        let size = oldSize * 2
        slots = .allocate(capacity: size)
        slots.initialize(repeating: SolverKey(low: 0, high: 0), count: size)
        mask = size - 1
        for j in 0..<oldSize where old[j].high != 0 {
            var i = Self.hash(SolverKey(low: old[j].low & Self.keyBits, high: old[j].high)) & mask
            while slots[i].high != 0 { i = (i &+ 1) & mask }
            slots[i] = old[j]
        }
        old.deallocate()
    }
}

/// A stack of plain values in one growing buffer, for the search's moves, path and frames.
struct FlatStack<Element: BitwiseCopyable>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always) mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count &+= 1
    }

    @inline(__always) mutating func removeLast() -> Element {
        count &-= 1
        return base[count]
    }

    /// Drops elements down to `newCount` (plain values: nothing to release).
    @inline(__always) mutating func shrink(to newCount: Int) { count = newCount }

    @inline(__always) subscript(i: Int) -> Element {
        get { base[i] }
        set { base[i] = newValue }
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.initialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }
}
