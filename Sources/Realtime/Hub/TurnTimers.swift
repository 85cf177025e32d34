import Core
import HeapModule

/// When each game's turn next needs the server (PROTOCOL sections 17 and 18): a clock that runs
/// out, or a bot that may move. One heap, one wake, as for the spectator delay: a game's entry is
/// checked when it comes to the top, so a stale one (the clock moved on) costs a look and nothing else.
final class TurnTimers {
    enum Due: Hashable {
        case clock
        case bot(seat: String)
    }

    private struct Entry: Comparable {
        var due: Instant
        var order: UInt64
        var room: GameRoom
        var what: Due
        static func < (a: Entry, b: Entry) -> Bool { (a.due, a.order) < (b.due, b.order) }
        static func == (a: Entry, b: Entry) -> Bool { a.order == b.order }
    }

    private struct BotKey: Hashable {
        var room: ObjectIdentifier
        var seat: String
    }

    private var heap = Heap<Entry>()
    private var nextOrder: UInt64 = 0
    /// Bots with a move scheduled or being thought of: one at a time per seat.
    private var botsBusy: Set<BotKey> = []
    /// The deadline each room's clock is scheduled for (a clock that moves on is scheduled again).
    private var clockScheduled: [ObjectIdentifier: Instant] = [:]

    var next: Instant? { heap.min?.due }

    /// After anything changed a game: its clock's deadline and its bots' next moves.
    func changed(_ room: GameRoom, now: Instant) {
        if let deadline = room.game.clockDeadline {
            let due = now + (deadline - now.unixTime)
            if clockScheduled[ObjectIdentifier(room)] != due {
                clockScheduled[ObjectIdentifier(room)] = due
                push(room, .clock, at: due)
            }
        } else {
            clockScheduled[ObjectIdentifier(room)] = nil
        }
        for (seat, level) in room.bots.levels where room.game.awaits(seat) {
            guard botsBusy.insert(BotKey(room: ObjectIdentifier(room), seat: seat)).inserted else { continue }
            push(room, .bot(seat: seat), at: now + room.game.botPace(level: level))
        }
    }

    /// A bot's move came back (or none): the seat may be scheduled again.
    func botDone(_ room: GameRoom, seat: String) { botsBusy.remove(BotKey(room: ObjectIdentifier(room), seat: seat)) }

    /// The room left memory: its entries are dropped as they come to the top.
    func forget(_ room: GameRoom) {
        clockScheduled[ObjectIdentifier(room)] = nil
        botsBusy = botsBusy.filter { $0.room != ObjectIdentifier(room) }
    }

    /// What is due by `now`, earliest first. A clock is due only if its deadline has come (a stale
    /// entry is dropped); a bot stays busy until `botDone`.
    func popDue(now: Instant) -> [(GameRoom, Due)] {
        var due: [(GameRoom, Due)] = []
        while let top = heap.min, top.due <= now {
            heap.removeMin()
            switch top.what {
            case .clock:
                guard clockScheduled[ObjectIdentifier(top.room)] == top.due else { continue }
                clockScheduled[ObjectIdentifier(top.room)] = nil
                due.append((top.room, .clock))
            case .bot(let seat):
                guard botsBusy.contains(BotKey(room: ObjectIdentifier(top.room), seat: seat)) else { continue }
                due.append((top.room, top.what))
            }
        }
        return due
    }

    private func push(_ room: GameRoom, _ what: Due, at due: Instant) {
        nextOrder += 1
        heap.insert(Entry(due: due, order: nextOrder, room: room, what: what))
    }
}
