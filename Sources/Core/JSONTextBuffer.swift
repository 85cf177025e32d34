/// Fixed memory that JSON text is written into, bounds-checked on every write:
/// a bound that is too small stops the program rather than corrupting memory.
struct JSONTextBuffer {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    /// A String written by `body` into storage of `capacity` bytes, with no copy.
    static func makeString(capacity: Int, _ body: (inout JSONTextBuffer) -> Void) -> String {
        String(unsafeUninitializedCapacity: max(capacity, 1)) { storage in
            var buffer = JSONTextBuffer(base: storage.baseAddress!, capacity: storage.count)
            body(&buffer)
            return buffer.count
        }
    }

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    mutating func append(_ byte: UInt8) {
        precondition(count < capacity, "JSON text longer than its bound")
        base[count] = byte
        count &+= 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(capacity - count >= bytes.count, "JSON text longer than its bound")
        (base + count).update(from: source, count: bytes.count)
        count &+= bytes.count
    }

    /// Copies bytes that need no JSON escaping; returns false, with `count`
    /// unchanged, at the first byte that does.
    mutating func appendIfNoEscapes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let source = bytes.baseAddress else { return true }
        let n = bytes.count
        precondition(capacity - count >= n, "JSON text longer than its bound")
        let target = base + count
        // Eight bytes per step: checking and copying byte by byte was the
        // largest cost of encoding a diff.
        var i = 0
        while n - i >= 8 {
            let word = UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self)
            if Self.needsEscape(word) { return false }
            UnsafeMutableRawPointer(target + i).storeBytes(of: word, as: UInt64.self)
            i &+= 8
        }
        while i < n {
            let u = source[i]
            if u < 0x20 || u == 0x22 || u == 0x5C { return false }
            target[i] = u
            i &+= 1
        }
        count &+= n
        return true
    }

    /// Whether any of the eight bytes is below 0x20, `"` or `\\` (the exact
    /// "has a byte less than / equal to" bit tricks, no false answers).
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let hasControl = (word &- ones &* 0x20) & ~word & highs != 0
        return hasControl || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }

    mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Copies a string's UTF-8 as is (callers escape first where JSON needs it).
    mutating func append(_ s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { append($0) }
        if done == nil { for u in s.utf8 { append(u) } }
    }

    /// Decimal digits, most significant first, with no intermediate String.
    mutating func appendInteger(_ i: Int) {
        if i < 0 { append(UInt8(ascii: "-")) }
        let n = i.magnitude
        var power: UInt = 1
        while n / power >= 10 { power &*= 10 }
        while power > 0 {
            append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: (n / power) % 10))
            power /= 10
        }
    }
}
