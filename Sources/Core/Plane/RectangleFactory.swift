/// Makes the random parts of new rectangles from a generator it is handed, so a
/// plane replayed from its seed makes the same rectangles again.
///
/// Bounded draws are `next() % n` on purpose: the standard library's
/// `random(in:using:)` does not promise the same numbers across Swift versions,
/// and stored games are rebuilt by replaying their commands. The modulo bias is
/// below 2^-16 for every `n` used here.
struct RectangleFactory {
    static let defaultWidth = 150.0
    static let defaultHeight = 120.0

    let planeWidth: Double
    let planeHeight: Double

    /// The default size, shrunk to fit a plane smaller than it.
    var defaultSize: (width: Double, height: Double) {
        (min(Self.defaultWidth, planeWidth), min(Self.defaultHeight, planeHeight))
    }

    func makeID(using rng: inout some RandomNumberGenerator) -> RectangleID {
        // 36^9 < 2^47: one draw gives all nine characters.
        var n = rng.next() % 101_559_956_668_416
        let text = String(unsafeUninitializedCapacity: 11) { buffer in
            for i in [10, 9, 8, 6, 5, 4, 2, 1, 0] {
                buffer[i] = RectangleID.alphabet[Int(n % 36)]
                n /= 36
            }
            buffer[3] = UInt8(ascii: "-")
            buffer[7] = UInt8(ascii: "-")
            return 11
        }
        return RectangleID(unchecked: text)
    }

    /// A fresh id, re-rolled until it is not one of `taken`.
    func makeUniqueID(avoiding taken: Set<RectangleID>, using rng: inout some RandomNumberGenerator) -> RectangleID {
        var id = makeID(using: &rng)
        while taken.contains(id) { id = makeID(using: &rng) }
        return id
    }

    func makeColor(using rng: inout some RandomNumberGenerator) -> RGB {
        // One draw, three bytes of it.
        let bits = rng.next()
        return RGB(r: Int(bits & 0xFF), g: Int((bits >> 8) & 0xFF), b: Int((bits >> 16) & 0xFF))
    }

    func makeAlpha(using rng: inout some RandomNumberGenerator) -> Int {
        1 + Int(rng.next() % 10)
    }

    /// A whole-number coordinate in `0...(room)`, so random positions read well in terminals.
    func makeCoordinate(room: Double, using rng: inout some RandomNumberGenerator) -> Double {
        guard room >= 1 else { return 0 }
        return Double(rng.next() % (UInt64(room.rounded(.down)) + 1))
    }

    /// Moves an origin so a rectangle of the given size lies fully inside the plane.
    /// The size must already fit the plane.
    func clampedOrigin(x: Double, y: Double, width: Double, height: Double) -> (x: Double, y: Double) {
        (Self.clamp(x, size: width, side: planeWidth), Self.clamp(y, size: height, side: planeHeight))
    }

    static func clamp(_ v: Double, size: Double, side: Double) -> Double {
        // `+ 0` turns a -0.0 into 0.0 so a clamped coordinate never prints as "-0".
        var origin = min(max(v, 0), side - size) + 0
        // `side - size` is rounded, so its far edge can land an ulp past the side: step back.
        while origin > 0 && origin + size > side { origin = origin.nextDown }
        return origin
    }
}
