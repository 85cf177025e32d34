/// A table of `2^k` entries, indexed by a hash of the position's key, always replacing.
/// Allocated and freed by each search (no state survives a call); a value of 0 is an empty slot.
struct FourTable {
    private let keys: UnsafeMutablePointer<UInt64>
    private let values: UnsafeMutablePointer<UInt32>
    private let count: Int
    private let shift: UInt64

    /// About one entry for every two nodes of the budget, from 2^10 to 2^20 entries (12 MiB).
    init(budget: Int) {
        var bits = 10
        while bits < 20 && (1 << bits) < budget / 2 { bits += 1 }
        count = 1 << bits
        shift = UInt64(64 - bits)
        keys = .allocate(capacity: count)
        values = .allocate(capacity: count)
        keys.initialize(repeating: 0, count: count)
        values.initialize(repeating: 0, count: count)
    }

    func clear() {
        keys.update(repeating: 0, count: count)
        values.update(repeating: 0, count: count)
    }

    func deallocate() {
        keys.deallocate()
        values.deallocate()
    }

    @inline(__always) private func index(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    @inline(__always) func get(_ key: UInt64) -> UInt32 {
        let i = index(key)
        return keys[i] == key ? values[i] : 0
    }

    @inline(__always) func put(_ key: UInt64, _ value: UInt32) {
        let i = index(key)
        keys[i] = key
        values[i] = value
    }
}
