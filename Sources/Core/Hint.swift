/// The answer to `hint`: the message's fields after `"type":"hint"`: `from`, `to`, and any of
/// the game's own (Klondike's solver adds its verdict, `winnable`).
public struct Hint: Sendable, Equatable {
    public var from: String?
    public var to: String?
    /// The game's own fields, after `from` and `to`.
    public var fields: [(key: String, value: JSON)]

    public init(from: String?, to: String?, fields: [(key: String, value: JSON)] = []) {
        self.from = from
        self.to = to
        self.fields = fields
    }

    public static func == (a: Hint, b: Hint) -> Bool {
        a.from == b.from && a.to == b.to && JSON.object(a.fields) == JSON.object(b.fields)
    }
}
