/// What an accepted command changed: one diff per group of viewers. A game that shows everyone
/// the same has one group, the spectators'; a game with seat views puts the spectators' group (the
/// full diff, with the seats that see it as it is) first, then the seats it changed differently.
/// The first group is kept apart from the others so that the common case, one diff for all, costs
/// no array: a move's outcome is made on every accepted command.
public struct GameOutcome: Sendable, Equatable {
    /// The spectators' diff: what storage keeps, and what every other view is derived from.
    public var fullDiff: Diff
    /// Who sees `fullDiff`: the spectators, and the seats that see it as it is.
    public var fullViewers: [Viewer]
    /// The other groups, each with a diff of its own (empty for a game that shows everyone the same).
    public var otherViews: [ViewDiff]
    public var events: [GameEvent]

    /// Every group, the spectators' first.
    public init(views: [ViewDiff], events: [GameEvent] = []) {
        fullDiff = views.first?.diff ?? Diff()
        fullViewers = views.first?.viewers ?? Self.spectatorsOnly
        otherViews = Array(views.dropFirst())
        self.events = events
    }

    /// One diff that every viewer sees.
    public init(_ diff: Diff, events: [GameEvent] = []) {
        fullDiff = diff
        fullViewers = Self.spectatorsOnly
        otherViews = []
        self.events = events
    }

    init(fullDiff: Diff, fullViewers: [Viewer], otherViews: [ViewDiff], events: [GameEvent]) {
        self.fullDiff = fullDiff
        self.fullViewers = fullViewers
        self.otherViews = otherViews
        self.events = events
    }

    /// Shared, so that a one-view outcome allocates no list of viewers.
    static let spectatorsOnly: [Viewer] = [.spectator]

    /// Every group, the spectators' first.
    public var views: [ViewDiff] { [ViewDiff(viewers: fullViewers, diff: fullDiff)] + otherViews }

    /// Calls `body` with each group, the spectators' first, without building the list.
    public func forEachView(_ body: (_ viewers: [Viewer], _ diff: Diff) throws -> Void) rethrows {
        try body(fullViewers, fullDiff)
        for view in otherViews { try body(view.viewers, view.diff) }
    }

    /// Adds `ops` at the end of every group's diff (ops every viewer sees, such as the clocks').
    public mutating func appendToEveryView(_ ops: [PatchOp]) {
        fullDiff.ops.append(contentsOf: ops)
        for index in otherViews.indices { otherViews[index].diff.ops.append(contentsOf: ops) }
    }
}

/// One view's diff and the viewers who see it.
public struct ViewDiff: Sendable, Equatable {
    public var viewers: [Viewer]
    public var diff: Diff

    public init(viewers: [Viewer], diff: Diff) {
        self.viewers = viewers
        self.diff = diff
    }
}

/// The result of an accepted gesture of a game that shows everyone the same state.
public typealias MoveOutcome = GameOutcome

extension GameOutcome {
    public init(diff: Diff, events: [GameEvent] = []) { self.init(diff, events: events) }

    /// The diff every viewer sees (the spectators').
    public var diff: Diff { fullDiff }
}
