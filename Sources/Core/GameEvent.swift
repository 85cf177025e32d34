/// Something a game announces beside its diff (the protocol's `event` message).
public struct GameEvent: Sendable, Equatable {
    public var name: String
    /// Extra fields of the event message, e.g. `moves`, `score`, `seconds`.
    public var fields: [(key: String, value: JSON)]

    public init(name: String, fields: [(key: String, value: JSON)] = []) {
        self.name = name
        self.fields = fields
    }

    public static func == (a: GameEvent, b: GameEvent) -> Bool {
        a.name == b.name && JSON.object(a.fields) == JSON.object(b.fields)
    }
}

extension GameEvent {
    /// Whole seconds from `start` to `time`, rounded down; a clock that went backwards counts as 0.
    public static func seconds(from start: Double, to time: Double) -> JSON {
        let elapsed = time - start
        return .int(elapsed.isFinite && elapsed > 0 ? Int(min(elapsed, 9e15).rounded(.down)) : 0)
    }
}
