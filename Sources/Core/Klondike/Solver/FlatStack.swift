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
