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

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    static let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
}
