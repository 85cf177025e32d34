import HeapModule

/// When each game's delayed spectators are next owed something (PROTOCOL section 15), so that
/// a delayed diff goes out when it comes due, not at the next tick: a heap with at most one
/// entry a room, so the next deadline costs nothing however many games wait.
struct DelayDeadlines {
    private struct Entry: Comparable {
        var due: Instant
        /// Ties break in the order rooms were scheduled: the same events give the same actions.
        var order: UInt64
        var room: GameRoom
        static func < (a: Entry, b: Entry) -> Bool { (a.due, a.order) < (b.due, b.order) }
        static func == (a: Entry, b: Entry) -> Bool { a.order == b.order }
    }

    private var heap = Heap<Entry>()
    /// Rooms with an entry in the heap. A room's output never comes due earlier than its
    /// entry says (its queue only grows at the back), so one entry a room is enough.
    private var scheduled: Set<ObjectIdentifier> = []
    private var nextOrder: UInt64 = 0

    var next: Instant? { heap.min?.due }

    /// A room's oldest waiting output is due at `due` (a room already scheduled keeps its entry).
    mutating func schedule(_ room: GameRoom, at due: Instant) {
        guard scheduled.insert(ObjectIdentifier(room)).inserted else { return }
        nextOrder += 1
        heap.insert(Entry(due: due, order: nextOrder, room: room))
    }

    /// The room leaves the schedule (its entry is dropped when it comes to the top).
    mutating func remove(_ room: GameRoom) { scheduled.remove(ObjectIdentifier(room)) }

    /// Every scheduled room due by `now`, earliest first; they leave the schedule.
    mutating func popDue(now: Instant) -> [GameRoom] {
        var due: [GameRoom] = []
        while let top = heap.min, top.due <= now {
            heap.removeMin()
            if scheduled.remove(ObjectIdentifier(top.room)) != nil { due.append(top.room) }
        }
        return due
    }
}
