/// A suggested move as two pointers. A stock tap reads `/stock` -> `/waste` (also when
/// the tap turns the waste over); anything else is a drag `from` -> `to`.
public struct KlondikeHint: Sendable, Equatable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}
