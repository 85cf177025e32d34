import Core

/// The last `capacity` diff frames of a game, by seq: what `since` is answered from
/// without storage.
struct DiffWindow {
    let capacity: Int
    private var frames: [OutFrame] = []
    /// Index in `frames` of the oldest kept frame (a ring once full).
    private var start = 0
    /// The seq of the newest frame (0: none yet).
    private(set) var lastSeq = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { frames.count }
    /// The seq of the oldest frame kept (lastSeq + 1 when empty).
    var firstSeq: Int { lastSeq - frames.count + 1 }

    mutating func append(_ frame: OutFrame, seq: Int) {
        if frames.isEmpty { lastSeq = seq - 1 }
        precondition(seq == lastSeq + 1, "diffs enter the window in seq order")
        if frames.count < capacity {
            frames.append(frame)
        } else {
            frames[start] = frame
            start = (start + 1) % capacity
        }
        lastSeq = seq
    }

    /// A diff as stored (its text), numbered `seq`.
    mutating func append(diffText text: String, seq: Int) {
        append(OutFrame(text, kind: .diff(seq: seq)), seq: seq)
    }

    mutating func removeAll() {
        frames.removeAll()
        start = 0
        lastSeq = 0
    }

    /// Every diff after `since`, if the window still holds them all.
    func frames(after since: Int) -> [OutFrame]? {
        guard since >= firstSeq - 1 else { return nil }
        guard since < lastSeq else { return [] }
        return ((since + 1)...lastSeq).map { frames[(start + $0 - firstSeq) % frames.count] }
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
