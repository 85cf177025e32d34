/// The answer to `hint`: the message's fields after `"type":"hint"` (`from`, `to`, and for a
/// solver's verdict `winnable`).
public struct Hint: Sendable, Equatable {
    public var from: String?
    public var to: String?
    /// Klondike's verdict on the position (`true`, `false`, or JSON null: undecided); nil leaves the field out.
    public var winnable: JSON?

    public init(from: String?, to: String?, winnable: JSON? = nil) {
        self.from = from
        self.to = to
        self.winnable = winnable
    }
}
