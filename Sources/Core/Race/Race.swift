public enum RacePhase: String, Sendable, Equatable {
    case waiting, playing, finished
}

/// A race: every seat plays its own Klondike table from the same deal. The rules of each
/// table are Klondike's own; the race adds who may act, the finish order, and per-view
/// public states (a seated player must not read their hidden cards off a rival's table).
public struct Race: Sendable, Equatable {
    /// Seat names in order: `p1`, `p2`, ...
    public let seats: [String]
    public private(set) var phase: RacePhase
    /// Seats whose table is won, first finisher first.
    public private(set) var finished: [String] = []
    /// When the race started (or was last reset): the won event's seconds run from here.
    public private(set) var startTime: Double
    /// One table per seat, in the order of `seats`.
    private(set) var tables: [Klondike]
    private var seedStream: SplitMix64

    public init(options: RaceOptions, time: Double) throws(GameError) {
        guard RaceOptions.seatRange.contains(options.seats) else {
            throw .badRequest("bad-seats", "a race has 2 to 8 seats, not \(options.seats)")
        }
        let table = try Klondike(options: KlondikeOptions(draw: options.draw, deal: options.deal, entropy: 0), time: time)
        seats = Self.seatNames(options.seats)
        tables = Array(repeating: table, count: options.seats)
        phase = .waiting
        startTime = time
        seedStream = SplitMix64(seed: options.entropy)
    }

    /// A race from any tables, for tests that need positions play would take long to reach.
    init(testTables: [Klondike], phase: RacePhase = .playing, finished: [String] = [], startTime: Double = 0) {
        precondition(RaceOptions.seatRange.contains(testTables.count))
        seats = Self.seatNames(testTables.count)
        tables = testTables
        self.phase = phase
        self.finished = finished
        self.startTime = startTime
        seedStream = SplitMix64(seed: 0)
    }

    private static func seatNames(_ count: Int) -> [String] { (1...count).map { "p\($0)" } }

    public var status: GameStatus {
        switch phase {
        case .waiting: .waiting
        case .playing: .playing
        case .finished: .finished
        }
    }

    public var isFinished: Bool { phase == .finished }

    /// A seat's table, e.g. for its hint; nil for a seat the race does not have.
    public func table(of seat: String) -> Klondike? {
        seatIndex(seat).map { tables[$0] }
    }

    func seatIndex(_ seat: String) -> Int? { seats.firstIndex(of: seat) }

    /// The protocol's STATE as everyone sees it: every table as it is.
    public var publicState: JSON {
        .object([
            "seats": .int(seats.count),
            "status": .string(status.word),
            "tables": .object(zip(seats, tables).map { (key: $0, value: $1.publicState) }),
            "finished": .array(finished.map { .string($0) }),
        ])
    }

    /// The STATE one view is shown: a seated player sees rival tables masked (see `RaceView`).
    public func publicState(for viewer: Viewer) -> JSON {
        RaceView.state(publicState, for: viewer)
    }

    // MARK: - Commands

    /// Applies a command from `context.player` (a seat name; `.start` ignores it). A refused
    /// command changes nothing.
    public mutating func apply(_ command: RaceCommand, context: MoveContext) -> Result<RaceOutcome, GameError> {
        do {
            return .success(try perform(command, context: context))
        } catch {
            return .failure(error)
        }
    }

    private mutating func perform(_ command: RaceCommand, context: MoveContext) throws(GameError) -> RaceOutcome {
        switch command {
        case .start:
            return try start(time: context.time)
        case .table(let gesture):
            return try play(gesture, seat: try sender(context), context: context)
        case .reset(let options):
            _ = try sender(context)
            return try reset(options, time: context.time)
        }
    }

    private func sender(_ context: MoveContext) throws(GameError) -> Int {
        guard let seat = seatIndex(context.player) else {
            throw .badRequest("no-such-seat", "\"\(context.player)\" is not a seat of this race (\(seats.joined(separator: ", ")))")
        }
        return seat
    }

    private mutating func start(time: Double) throws(GameError) -> RaceOutcome {
        guard phase == .waiting else { throw .illegal("race-started", "the race has already started") }
        phase = .playing
        startTime = time
        let diff = Diff([.replace(path: "/status", value: .string(status.word))])
        return RaceOutcome(race: self, full: diff, touched: [], events: [GameEvent(name: "start")])
    }

    private mutating func play(_ gesture: KlondikeCommand, seat: Int, context: MoveContext) throws(GameError) -> RaceOutcome {
        guard phase != .waiting else {
            throw .illegal("race-waiting", "the race has not started: every seat must be taken first")
        }
        if case .reset = gesture {
            throw .illegal("race-reset-only", "a table is never reset alone: reset the race once it is finished")
        }
        let outcome: MoveOutcome
        switch tables[seat].apply(gesture, context: context) {
        case .success(let accepted): outcome = accepted
        case .failure(let error): throw error
        }
        let prefix = RaceView.tablePath(seats[seat])
        var ops = outcome.diff.ops.map { $0.prefixed(prefix) }
        var events: [GameEvent] = []
        // Klondike's own won event times the game from its deal; a race times it from the start.
        if tables[seat].isWon && !finished.contains(seats[seat]) {
            finished.append(seats[seat])
            ops.append(.add(path: "/finished/\(finished.count - 1)", value: .string(seats[seat])))
            events.append(won(seat, time: context.time))
            if finished.count == seats.count {
                phase = .finished
                ops.append(.replace(path: "/status", value: .string(status.word)))
            }
        }
        return RaceOutcome(race: self, full: Diff(ops), touched: [seat], events: events)
    }

    private func won(_ seat: Int, time: Double) -> GameEvent {
        return GameEvent(
            name: "won",
            fields: [
                (key: "by", value: .string(seats[seat])),
                (key: "place", value: .int(finished.count)),
                (key: "moves", value: .int(tables[seat].moves)),
                (key: "score", value: .int(tables[seat].score)),
                (key: "seconds", value: GameEvent.seconds(from: startTime, to: time)),
            ])
    }

    private mutating func reset(_ options: KlondikeResetOptions, time: Double) throws(GameError) -> RaceOutcome {
        // The stream advances only if the reset is accepted, so a refused one leaves no trace.
        var stream = seedStream
        // Seeds from the stream are cut to 53 bits, as Klondike's, so a protocol seed could name the deal.
        let deal = options.deal ?? .seed(stream.next() >> 11)
        let draw = options.draw ?? tables[0].draw
        // Options are checked first: a malformed reset is a bad request whatever the phase.
        let table = try Klondike(options: KlondikeOptions(draw: draw, deal: deal, entropy: 0), time: time)
        guard phase == .finished else {
            throw .illegal("race-not-finished", "a race is reset only once every table is won")
        }
        seedStream = stream
        tables = Array(repeating: table, count: seats.count)
        finished = []
        phase = .playing
        startTime = time
        // Whole tables: every card changes, and each view masks its rivals' tables whole.
        var ops: [PatchOp] = [.replace(path: "/status", value: .string(status.word))]
        for (seat, table) in zip(seats, tables) {
            ops.append(.replace(path: RaceView.tablePath(seat), value: table.publicState))
        }
        ops.append(.replace(path: "/finished", value: []))
        return RaceOutcome(race: self, full: Diff(ops), touched: Array(seats.indices), events: [GameEvent(name: "reset")])
    }
}
