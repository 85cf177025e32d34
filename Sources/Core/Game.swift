/// Who made a move and when: the only facts from outside a game that a move may use.
/// Time comes from the caller so the rules stay free of clocks.
public struct MoveContext: Sendable, Equatable {
    /// The player id (`p1`, `p2`, ...).
    public var player: String
    /// Seconds since the Unix epoch, as the caller's clock read it.
    public var time: Double

    public init(player: String, time: Double) {
        self.player = player
        self.time = time
    }
}

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

/// The result of an accepted gesture of a game that shows everyone the same state.
public typealias MoveOutcome = GameOutcome

extension GameOutcome {
    public init(diff: Diff, events: [GameEvent] = []) { self.init(diff, events: events) }

    /// The diff every viewer sees (the spectators').
    public var diff: Diff { fullDiff }
}
