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
