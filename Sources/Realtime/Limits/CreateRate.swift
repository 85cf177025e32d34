/// New games per client address (`--create-rate N`): a token bucket per address holding up
/// to N creations, refilled at N a minute, shared by every connection of that address. So a
/// client may create N games at once, then one every 60/N seconds.
///
/// Memory stays bounded whatever the number of addresses: a bucket untouched for a minute is
/// full again, the same as no bucket, and is dropped; and at most `maxAddresses` buckets are
/// kept, the stalest making room for a new one (an address seen again after that starts with
/// a full bucket: only a crowd of more than `maxAddresses` addresses within a minute can get
/// that). Every operation is O(1): buckets sit in a list ordered by last use.
public struct CreateRatePerAddress {
    public enum Decision: Equatable, Sendable {
        case allowed
        /// Over the limit: the next creation from this address is allowed after this many seconds.
        case refused(retryAfter: Double)
    }

    public let perMinute: Int
    public let maxAddresses: Int
    private let capacity: Double
    /// Tokens a second.
    private let rate: Double

    // Buckets in slots, linked from the least recently used (`oldest`) to the most (`newest`).
    private var index: [ClientAddress: Int32] = [:]
    private var keys: [ClientAddress] = []
    private var tokens: [Double] = []
    private var last: [Double] = []
    private var older: [Int32] = []
    private var newer: [Int32] = []
    private var freeSlots: [Int32] = []
    private var oldest: Int32 = -1
    private var newest: Int32 = -1

    public init(perMinute: Int, maxAddresses: Int = 65_536) {
        self.perMinute = max(1, perMinute)
        self.maxAddresses = max(1, maxAddresses)
        capacity = Double(self.perMinute)
        rate = Double(self.perMinute) / 60
    }

    /// Buckets held now.
    public var trackedAddresses: Int { index.count }

    /// Takes one creation for `address` at time `now` (seconds).
    public mutating func take(_ address: ClientAddress, now: Double) -> Decision {
        dropFullBuckets(now: now, atMost: 4)
        let key = address.limitKey
        let slot: Int32
        if let found = index[key] {
            slot = found
            let s = Int(slot)
            tokens[s] = min(capacity, tokens[s] + max(0, now - last[s]) * rate)
            last[s] = now
            unlink(slot)
            append(slot)
        } else {
            if index.count >= maxAddresses { remove(oldest) }
            slot = insert(key, now: now)
        }
        let s = Int(slot)
        guard tokens[s] >= 1 else { return .refused(retryAfter: (1 - tokens[s]) / rate) }
        tokens[s] -= 1
        return .allowed
    }

    /// The `limited` error's text for a refusal.
    public func refusalMessage(retryAfter: Double) -> String {
        let seconds = max(1, Int(retryAfter.rounded(.up)))
        return "over \(perMinute) new games a minute from this address: try again in \(seconds) s"
    }

    /// Drops buckets untouched long enough to be full again (from the stalest, a few per call).
    private mutating func dropFullBuckets(now: Double, atMost: Int) {
        var dropped = 0
        while dropped < atMost, oldest >= 0, now - last[Int(oldest)] >= capacity / rate {
            remove(oldest)
            dropped += 1
        }
    }

    private mutating func insert(_ key: ClientAddress, now: Double) -> Int32 {
        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
            let s = Int(slot)
            keys[s] = key
            tokens[s] = capacity
            last[s] = now
        } else {
            slot = Int32(keys.count)
            keys.append(key)
            tokens.append(capacity)
            last.append(now)
            older.append(-1)
            newer.append(-1)
        }
        index[key] = slot
        append(slot)
        return slot
    }

    private mutating func remove(_ slot: Int32) {
        guard slot >= 0 else { return }
        unlink(slot)
        index[keys[Int(slot)]] = nil
        freeSlots.append(slot)
    }

    private mutating func append(_ slot: Int32) {
        let s = Int(slot)
        older[s] = newest
        newer[s] = -1
        if newest >= 0 { newer[Int(newest)] = slot } else { oldest = slot }
        newest = slot
    }

    private mutating func unlink(_ slot: Int32) {
        let s = Int(slot)
        if older[s] >= 0 { newer[Int(older[s])] = newer[s] } else { oldest = newer[s] }
        if newer[s] >= 0 { older[Int(newer[s])] = older[s] } else { newest = older[s] }
        older[s] = -1
        newer[s] = -1
    }
}
