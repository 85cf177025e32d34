/// A rectangle's id: three groups of three `[a-z0-9]` characters joined by `-`
/// (`a1b-2c3-d4e`). Eleven ASCII bytes fit Swift's inline small-string storage,
/// so ids cost no allocation.
public struct RectangleID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts only the protocol's form, so an id read from anywhere is one the plane could have made.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 11 else { return nil }
        for (i, byte) in bytes.enumerated() {
            let valid = (i == 3 || i == 7) ? byte == UInt8(ascii: "-") : RectangleID.alphabet.contains(byte)
            guard valid else { return nil }
        }
        rawValue = text
    }

    fileprivate init(unchecked rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    static let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
}

/// A colour as three 0...255 channels.
public struct RGB: Sendable, Equatable, Hashable {
    public var r: Int
    public var g: Int
    public var b: Int

    public init(r: Int, g: Int, b: Int) {
        self.r = r
        self.g = g
        self.b = b
    }

    public static let channelRange = 0...255

    public var isValid: Bool {
        RGB.channelRange.contains(r) && RGB.channelRange.contains(g) && RGB.channelRange.contains(b)
    }

    /// `#RRGGBB`, upper case.
    public var hex: String {
        func pair(_ v: Int) -> String {
            let digits = Array("0123456789ABCDEF")
            return String([digits[(v >> 4) & 0xF], digits[v & 0xF]])
        }
        return "#" + pair(r) + pair(g) + pair(b)
    }
}

/// One rectangle on the plane. The plane keeps every rectangle fully inside itself.
public struct Rectangle: Sendable, Equatable {
    public let id: RectangleID
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var color: RGB
    /// Opacity in tenths, 1...10.
    public var alpha: Int

    public init(id: RectangleID, x: Double, y: Double, width: Double, height: Double, color: RGB, alpha: Int) {
        self.id = id
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.color = color
        self.alpha = alpha
    }

    public static let alphaRange = 1...10

    /// Edges count as inside, so a tap exactly on a border hits the rectangle.
    public func contains(_ p: PlanePoint) -> Bool {
        x <= p.x && p.x <= x + width && y <= p.y && p.y <= y + height
    }

    /// The document form the protocol shows under `/rectangles/ID`.
    public var json: JSON {
        .object([
            (key: "x", value: .double(x)), (key: "y", value: .double(y)),
            (key: "width", value: .double(width)), (key: "height", value: .double(height)),
            (key: "r", value: .int(color.r)), (key: "g", value: .int(color.g)), (key: "b", value: .int(color.b)),
            (key: "alpha", value: .int(alpha)),
        ])
    }
}

/// Overrides for the `add` command; every field left nil is chosen at random.
public struct RectangleSpec: Sendable, Equatable {
    public var x: Double?
    public var y: Double?
    public var width: Double?
    public var height: Double?
    public var r: Int?
    public var g: Int?
    public var b: Int?
    public var alpha: Int?

    public init(
        x: Double? = nil, y: Double? = nil, width: Double? = nil, height: Double? = nil,
        r: Int? = nil, g: Int? = nil, b: Int? = nil, alpha: Int? = nil
    ) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.r = r
        self.g = g
        self.b = b
        self.alpha = alpha
    }
}

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
