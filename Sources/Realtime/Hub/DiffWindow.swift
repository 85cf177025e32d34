import Core

/// A game's recent diff frames by seq: what `since` is answered from without storage. It
/// keeps at least the last `capacity`, and never lets go of one a delayed spectator may still
/// need (`keepFrom`): those frames wait in the delay line anyway, so keeping them costs nothing.
struct DiffWindow {
    let capacity: Int
    private var frames: [OutFrame] = []
    private var head = 0
    /// The seq of the newest frame (0: none yet).
    private(set) var lastSeq = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { frames.count - head }
    /// The seq of the oldest frame kept (lastSeq + 1 when empty).
    var firstSeq: Int { lastSeq - count + 1 }

    mutating func append(_ frame: OutFrame, seq: Int, keepFrom: Int = .max) {
        if count == 0 { lastSeq = seq - 1 }
        precondition(seq == lastSeq + 1, "diffs enter the window in seq order")
        frames.append(frame)
        lastSeq = seq
        while count > capacity && firstSeq < keepFrom {
            head += 1
        }
        if head > 64 && head * 2 > frames.count {
            frames.removeFirst(head)
            head = 0
        }
    }

    /// A diff as stored (its text), numbered `seq`.
    mutating func append(diffText text: String, seq: Int, keepFrom: Int = .max) {
        append(OutFrame(text, kind: .diff(seq: seq)), seq: seq, keepFrom: keepFrom)
    }

    mutating func removeAll() {
        frames.removeAll()
        head = 0
        lastSeq = 0
    }

    /// Every diff after `since` up to `through` (the newest when nil), if the window holds them all.
    func frames(after since: Int, through last: Int? = nil) -> [OutFrame]? {
        let last = min(last ?? lastSeq, lastSeq)
        guard since >= firstSeq - 1 else { return nil }
        guard since < last else { return [] }
        return Array(frames[(head + since + 1 - firstSeq)...(head + last - firstSeq)])
    }
}

/// Ids of a game's applied commands. The recent ones map to their seq in memory; older
/// ones are kept only as 64-bit hashes, so a re-sent old id is recognised without
/// keeping every id, and its seq is then read from storage.
struct AppliedIDs: Sendable {
    let recentCapacity: Int
    private var recent: [String: Int] = [:]
    private var recentOrder: [String] = []
    private var recentStart = 0
    private var hashes: Set<UInt64> = []

    init(recentCapacity: Int) { self.recentCapacity = max(1, recentCapacity) }

    enum Lookup: Equatable {
        case applied(seq: Int)
        /// Applied long ago (or a hash collision): ask storage.
        case maybe
        case new
    }

    func lookup(_ clientID: String) -> Lookup {
        if let seq = recent[clientID] { return .applied(seq: seq) }
        return hashes.contains(Self.hash(clientID)) ? .maybe : .new
    }

    mutating func insert(_ clientID: String, seq: Int) {
        hashes.insert(Self.hash(clientID))
        recent[clientID] = seq
        if recentOrder.count < recentCapacity {
            recentOrder.append(clientID)
        } else {
            recent[recentOrder[recentStart]] = nil
            recentOrder[recentStart] = clientID
            recentStart = (recentStart + 1) % recentCapacity
        }
    }

    /// FNV-1a: stable across processes (Swift's `Hasher` is seeded per process).
    static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h &*= 0x100_0000_01b3
        }
        return h
    }
}
