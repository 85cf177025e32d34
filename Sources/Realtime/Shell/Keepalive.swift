/// Pings and dead-peer detection for every connection with one timing wheel, driven
/// by the server's tick: adding or removing a connection is O(1), and each second
/// visits only the connections due that second. (lws 4.1.6 keeps one timer per
/// connection in a sorted list, an O(n) insert per connection: a crowd arriving cost
/// the square of its size. The server gives lws no ping policy and does this instead.)
///
/// Every `interval` seconds each connection is visited once: if nothing (no frame, no
/// pong) came since the ping sent at the last visit, it is dropped; otherwise it is
/// pinged again. So a peer that stops answering is dropped within two intervals.
struct KeepaliveWheel {
    let interval: Int
    private var slots: [ContiguousArray<Connection>]
    /// The last whole second visited.
    private var lastVisited: Int?
    private(set) var count = 0

    init(intervalSeconds: Int) {
        interval = max(1, intervalSeconds)
        slots = Array(repeating: [], count: interval)
    }

    /// Puts a new connection in the slot of the current second: its first visit comes one interval later.
    mutating func add(_ connection: Connection, now: Double) {
        let slot = Int(now.rounded(.down)) % interval
        connection.io.wheelSlot = slot
        connection.io.wheelIndex = slots[slot].count
        connection.io.heardFrom = true
        connection.io.pingUnanswered = false
        slots[slot].append(connection)
        count += 1
    }

    mutating func remove(_ connection: Connection) {
        let slot = connection.io.wheelSlot
        let index = connection.io.wheelIndex
        guard slot >= 0, slot < slots.count, index >= 0, index < slots[slot].count,
              slots[slot][index] === connection else { return }
        let last = slots[slot].removeLast()
        if index < slots[slot].count {
            slots[slot][index] = last
            last.io.wheelIndex = index
        }
        connection.io.wheelSlot = -1
        connection.io.wheelIndex = -1
        count -= 1
    }

    struct Due {
        var ping: [Connection] = []
        var dead: [Connection] = []
    }

    /// Visits every slot whose second passed since the last call (at most one full turn).
    mutating func advance(to now: Double) -> Due {
        let second = Int(now.rounded(.down))
        var due = Due()
        guard let last = lastVisited else {
            lastVisited = second
            return due
        }
        guard second > last else { return due }
        for visited in (max(last + 1, second - interval + 1))...second {
            for connection in slots[visited % interval] {
                if connection.io.pingUnanswered && !connection.io.heardFrom {
                    due.dead.append(connection)
                } else {
                    connection.io.heardFrom = false
                    connection.io.pingUnanswered = true
                    due.ping.append(connection)
                }
            }
        }
        lastVisited = second
        return due
    }

    /// Every connection, for shutdown.
    var all: [Connection] { slots.flatMap { $0 } }
}
