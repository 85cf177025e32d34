// A race behind the game interface: Klondike's messages on a seat's own table, seats, and
// a view per seat (rivals' hidden cards masked).

extension Race: SeatViews {
    public static let kind = "race"

    public static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON {
        try KlondikeOptionFields.stored(creating: options, leading: [("seats", .int(try seatCount(options)))], random: &random)
    }

    public init(stored options: JSON, time: Double) throws(GameError) {
        let fields = try KlondikeOptionFields(options)
        try self.init(options: RaceOptions(seats: try Self.seatCount(options), draw: fields.draw ?? 1,
                                           deal: fields.deal ?? .seed(0), entropy: KlondikeOptionFields.entropy(options)),
                      time: time)
    }

    /// The `seats` option: 2 to 8, default 2.
    static func seatCount(_ options: JSON) throws(GameError) -> Int {
        guard let raw = options["seats"], raw != .null else { return 2 }
        guard let seats = raw.intValue, RaceOptions.seatRange.contains(seats) else {
            throw .badRequest("bad-seats", "seats must be an integer from \(RaceOptions.seatRange.lowerBound) to \(RaceOptions.seatRange.upperBound)")
        }
        return seats
    }

    public static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<RaceCommand> {
        let read = try KlondikeMessages.read(type, message).0
        if case .reset(let options) = read.command { return ReadCommand(.reset(options), cause: read.cause, stored: read.stored) }
        return ReadCommand(.table(read.command), cause: read.cause, stored: read.stored)
    }

    public func command(for issued: ServerCommand) -> RaceCommand? {
        issued == .start && phase == .waiting ? .start : nil
    }

    public static func diff(_ full: Diff, for viewer: Viewer) -> Diff { RaceView.diff(full, for: viewer) }

    public func state(for viewer: Viewer) -> JSON { publicState(for: viewer) }

    public func text(for viewer: Viewer, heading: String) -> [String] { [heading] + textBoard(for: viewer) }
}

extension Race: HintingGame {
    public func hintPlan(for asker: HintContext) -> HintPlan {
        guard case .seat(let seat) = asker.viewer, let table = table(of: seat) else {
            return .refused(GameError(.forbidden, rule: "race-hint", "hints in a race are for a seated player's own table"))
        }
        return .search(table.hintKey)
    }

    public func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)] {
        guard case .seat(let seat) = viewer, let table = table(of: seat) else { return [] }
        return KlondikeSolverHints.hints(from: table, budget: budget)
    }
}

extension Race: ProvenSeeds {
    public static func seedRequest(creating options: JSON) throws(GameError) -> SeedRequest? {
        let fields = try KlondikeOptionFields(options)
        _ = try seatCount(options)
        return fields.seedRequest
    }

    public static func options(_ options: JSON, seed: UInt64) -> JSON { KlondikeOptionFields.seeding(options, seed: seed) }

    public func seedRequest(for command: ReadCommand<RaceCommand>) -> SeedRequest? {
        guard case .reset(let options) = command.command else { return nil }
        return KlondikeMessages.seedRequest(ReadCommand(.reset(options), cause: command.cause, stored: command.stored),
                                            currentDraw: seats.first.flatMap { table(of: $0)?.draw } ?? 1)
    }

    public func seeded(_ command: ReadCommand<RaceCommand>, seed: UInt64) -> ReadCommand<RaceCommand> {
        guard case .reset(let options) = command.command,
              let (dealt, stored) = KlondikeMessages.dealing(ReadCommand(.reset(options), cause: command.cause,
                                                                         stored: command.stored),
                                                             seed: seed, wrap: { .reset($0) }),
              case .reset(let dealtOptions) = dealt else { return command }
        return ReadCommand(.reset(dealtOptions), cause: command.cause, stored: stored)
    }
}
