/// A connection's number for its whole life: a slot in a dense table (the shell's and the
/// sessions' use the same slot) and the slot's generation, so a number that outlived its
/// connection never reaches the connection that took the slot next. The top bit marks a
/// connection of another cluster node served here as its game's owner.
struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    let raw: UInt64

    init(slot: Int, generation: UInt32, remote: Bool = false) {
        precondition(slot >= 0 && slot < 1 << 31, "connection slots fit 31 bits")
        raw = (remote ? 1 << 63 : 0) | UInt64(generation) << 32 | UInt64(slot)
    }

    /// A number as it travelled (another node's message): looked up, never trusted.
    init(raw: UInt64) { self.raw = raw }

    /// A connection with generation 0 (tests number connections this way).
    init(_ slot: Int) { self.init(slot: slot, generation: 0) }

    var slot: Int { Int(truncatingIfNeeded: raw & 0x7fff_ffff) }
    var generation: UInt32 { UInt32(truncatingIfNeeded: (raw >> 32) & 0x7fff_ffff) }
    /// Another node's connection, served by this node because it owns the game.
    var isRemote: Bool { raw >> 63 == 1 }

    static func < (a: ConnectionID, b: ConnectionID) -> Bool { a.raw < b.raw }

    var description: String { isRemote ? "r\(slot).\(generation)" : "\(slot).\(generation)" }
}

extension ConnectionID: ExpressibleByIntegerLiteral {
    init(integerLiteral value: Int) { self.init(value) }
}

/// A dense table keyed by `ConnectionID`: insertion takes a free slot (or a new one) and
/// bumps its generation, lookups are an array index plus a generation check.
struct Slab<Element> {
    private var elements: ContiguousArray<Element?> = []
    private var generations: ContiguousArray<UInt32> = []
    private var free: [Int] = []
    private let remote: Bool
    private(set) var count = 0

    init(remote: Bool = false) { self.remote = remote }

    /// Stores `make(id)` under a fresh id and returns the id.
    mutating func insert(_ make: (ConnectionID) -> Element) -> ConnectionID {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            generations[slot] &+= 1
            generations[slot] &= 0x7fff_ffff
        } else {
            slot = elements.count
            elements.append(nil)
            generations.append(0)
        }
        let id = ConnectionID(slot: slot, generation: generations[slot], remote: remote)
        elements[slot] = make(id)
        count += 1
        return id
    }

    /// Stores an element under an id given from outside (the shell numbers local connections;
    /// the sessions follow its numbering).
    mutating func place(_ element: Element, at id: ConnectionID) {
        while elements.count <= id.slot {
            elements.append(nil)
            generations.append(0)
        }
        if elements[id.slot] == nil { count += 1 }
        elements[id.slot] = element
        generations[id.slot] = id.generation
    }

    subscript(id: ConnectionID) -> Element? {
        get {
            guard id.slot < elements.count, generations[id.slot] == id.generation else { return nil }
            return elements[id.slot]
        }
        set {
            guard id.slot < elements.count, generations[id.slot] == id.generation else { return }
            if elements[id.slot] != nil && newValue == nil { count -= 1 }
            if elements[id.slot] == nil && newValue != nil { count += 1 }
            elements[id.slot] = newValue
        }
    }

    /// Frees the slot of `id` for reuse (with the next generation).
    @discardableResult
    mutating func remove(_ id: ConnectionID) -> Element? {
        guard let element = self[id] else { return nil }
        elements[id.slot] = nil
        count -= 1
        free.append(id.slot)
        return element
    }

    /// Every stored element, in slot order.
    var values: [Element] { elements.compactMap { $0 } }

    /// Changes the element of `id` in place, when there is one.
    mutating func modify<T>(_ id: ConnectionID, _ body: (inout Element) -> T) -> T? {
        guard id.slot < elements.count, generations[id.slot] == id.generation, elements[id.slot] != nil else { return nil }
        return body(&elements[id.slot]!)
    }
}
