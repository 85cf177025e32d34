import Core

/// The `clock` option of a game where players take turns (PROTOCOL section 17): seconds on each
/// clock at the start, and seconds added after each of a player's moves.
struct ClockOption: Sendable, Equatable {
    var initial: Double
    var increment: Double

    static let initialRange = 10.0...10_800.0
    static let incrementRange = 0.0...180.0

    /// `{"initial":S,"increment":I}` (the shorthand's `clock=S+I` arrives as this object); nil when the
    /// options have none.
    static func read(_ options: JSON) throws(ProtocolError) -> ClockOption? {
        let why = "clock must be {\"initial\":S,\"increment\":I}: S 10 to 10800 seconds, I 0 to 180"
        var initial: Double?, increment: Double?
        switch options["clock"] {
        case nil, .null?: return nil
        case let object? where object.objectPairs != nil:
            initial = object["initial"]?.doubleValue
            increment = object["increment"] == nil ? 0 : object["increment"]?.doubleValue
        default: throw .bad(why)
        }
        guard let initial, let increment, initialRange.contains(initial), incrementRange.contains(increment) else {
            throw .bad(why)
        }
        return ClockOption(initial: initial, increment: increment)
    }

    var json: JSON { .object([("initial", JSON.seconds(initial)), ("increment", JSON.seconds(increment))]) }
}

/// The players' clocks of one game: pure arithmetic on the instants it is fed (Unix milliseconds),
/// changed only by the diffs it returns, so a state at any seq shows the clocks as they were.
struct TurnClock: Sendable, Equatable {
    let option: ClockOption
    let seats: [String]
    /// Milliseconds left per seat, as of `since` for the running one.
    private(set) var left: [Int]
    private(set) var running: Int?
    /// When the running clock started (Unix milliseconds), or the last change when none runs.
    private(set) var since: Int

    init(option: ClockOption, seats: [String], at time: Double) {
        self.option = option
        self.seats = seats
        left = Array(repeating: Int((option.initial * 1000).rounded()), count: seats.count)
        since = Self.milliseconds(time)
    }

    static func milliseconds(_ time: Double) -> Int { Int((time * 1000).rounded()) }

    var runningSeat: String? { running.map { seats[$0] } }

    /// The Unix time at which the running clock reaches zero.
    var deadline: Double? { running.map { Double(since + left[$0]) / 1000 } }

    /// What the state's `clocks` shows.
    var state: JSON {
        .object(zip(seats, left).map { (key: $0, value: .int($1)) }
                + [("running", runningSeat.map(JSON.string) ?? .null), ("since", .string(RFC3339.formatMilliseconds(since)))])
    }

    /// After a command changed the game: the clock follows whose turn it is. A new game (a reset)
    /// starts every clock again; a change of turn charges the running seat and gives the mover its
    /// increment; the end of the game stops the clock. Returns the ops on the state's `clocks`.
    mutating func follow(turnBefore: String?, turnAfter: String?, wasOver: Bool, isOver: Bool, mover: String,
                         at time: Double) -> [PatchOp] {
        let now = Self.milliseconds(time)
        if wasOver && !isOver {
            self = TurnClock(option: option, seats: seats, at: time)
            running = turnAfter.flatMap(seats.firstIndex(of:))
            since = now
            return [.replace(path: "/clocks", value: state)]
        }
        guard turnBefore != turnAfter || isOver else { return [] }
        var ops: [PatchOp] = []
        if let running {
            let elapsed = max(0, now - since)
            var rest = max(0, left[running] - elapsed)
            if seats[running] == mover && rest > 0 { rest += Int((option.increment * 1000).rounded()) }
            left[running] = rest
            ops.append(.replace(path: "/clocks/" + Pointer.escape(seats[running]), value: .int(rest)))
        }
        running = isOver ? nil : turnAfter.flatMap(seats.firstIndex(of:))
        since = now
        ops.append(.replace(path: "/clocks/running", value: runningSeat.map(JSON.string) ?? .null))
        ops.append(.replace(path: "/clocks/since", value: .string(RFC3339.formatMilliseconds(since))))
        return ops
    }

    /// After a restart or a takeover: the running clock shows what it did at the last stored
    /// move, from now on (nobody is charged for the time the failure took).
    mutating func resume(at time: Double) -> [PatchOp] {
        since = Self.milliseconds(time)
        return [.replace(path: "/clocks/since", value: .string(RFC3339.formatMilliseconds(since)))]
    }
}
