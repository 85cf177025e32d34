import Core

/// One of the shipped games, behind the few operations a room needs.
enum AnyGame: Sendable {
    case klondike(Klondike)
    case plane(Plane)
    case race(Race)

    var kind: GameKind {
        switch self {
        case .klondike: return .klondike
        case .plane: return .plane
        case .race: return .race
        }
    }

    /// The state as `viewer` sees it. Only a race shows different states to different
    /// viewers (a seated player never sees a rival's cards); other games show everyone the same.
    func publicState(for viewer: RaceViewer = .spectator) -> JSON {
        switch self {
        case .klondike(let game): return game.publicState
        case .plane(let game): return game.publicState
        case .race(let race): return race.publicState(for: viewer)
        }
    }

    /// `playing` or `won`; a plane is always playing; a race `waiting`, `playing` or `finished`.
    var status: String {
        switch self {
        case .klondike(let game): return game.status
        case .plane: return "playing"
        case .race(let race): return race.status
        }
    }

    func textBoard(for viewer: RaceViewer) -> [String] {
        switch self {
        case .klondike(let game): return game.textBoard()
        case .plane(let game): return game.textBoard()
        case .race(let race): return race.textBoard(for: viewer)
        }
    }

    /// The Klondike table a hint is about: the game itself, or a seated player's own table.
    func klondikeTable(for viewer: RaceViewer) -> Klondike? {
        switch (self, viewer) {
        case (.klondike(let game), _): return game
        case (.race(let race), .seat(let seat)): return race.table(of: seat)
        default: return nil
        }
    }

    mutating func apply(_ command: GameCommand, context: MoveContext) -> Result<GameOutcome, GameError> {
        switch (self, command) {
        case (.klondike(var game), .klondike(let command)):
            let result = game.apply(command, context: context)
            self = .klondike(game)
            return result.map(GameOutcome.init)
        case (.plane(var game), .plane(let command)):
            let result = game.apply(command, context: context)
            self = .plane(game)
            return result.map(GameOutcome.init)
        case (.race(var race), .race(let command)):
            let result = race.apply(command, context: context)
            self = .race(race)
            return result.map { GameOutcome(views: $0.views, events: $0.events) }
        default:
            return .failure(.badRequest("wrong-kind", "that command belongs to another kind of game"))
        }
    }

    /// Builds a new game from `create` options. Returns the game and its full options for
    /// storage, where the server's secret choices (seed, entropy) are filled in.
    static func create(kind: GameKind, options: JSON, time: Double,
                       random: inout some RandomNumberGenerator) throws(ProtocolError) -> (AnyGame, JSON) {
        let delay = try SpectatorDelay.read(options)
        let (game, created) = try createGame(kind: kind, options: options, time: time, random: &random)
        var stored = created
        if delay > 0, case .object(var pairs) = stored {
            pairs.append(("delay", JSON.seconds(delay)))
            stored = .object(pairs)
        }
        return (game, stored)
    }

    private static func createGame(kind: GameKind, options: JSON, time: Double,
                                   random: inout some RandomNumberGenerator) throws(ProtocolError) -> (AnyGame, JSON) {
        switch kind {
        case .klondike, .race:
            var fields = try KlondikeOptionFields(options)
            var stored: [(key: String, value: JSON)] = []
            if kind == .race {
                let seats = try RaceSeats.read(options)
                stored.append(("seats", .int(seats)))
            }
            if fields.deal == nil {
                let seed = Int(random.next() >> 11)  // 53 bits, the protocol's seed range
                fields.deal = .seed(UInt64(seed))
                fields.allFields.append(("seed", .int(seed)))
            }
            stored += fields.allFields
            if fields.draw == nil { stored.insert(("draw", 1), at: kind == .race ? 1 : 0) }
            stored.append(("entropy", .int(Int(bitPattern: UInt(random.next())))))
            return (try restore(kind: kind, options: .object(stored), time: time), .object(stored))
        case .plane:
            var stored: [(key: String, value: JSON)] = []
            for name in ["width", "height"] {
                guard let raw = options[name], raw != .null else { continue }
                guard let value = raw.doubleValue, value.isFinite, value > 0 else {
                    throw .bad("\(name) must be a number above 0")
                }
                stored.append((name, .double(value)))
            }
            if let raw = options["seed"], raw != .null {
                guard let seed = raw.intValue, (0...KlondikeOptionFields.maxSeed).contains(seed) else {
                    throw .bad("seed must be an integer from 0 to 2^53-1")
                }
                stored.append(("seed", .int(seed)))
            } else {
                stored.append(("seed", .int(Int(random.next() >> 11))))
            }
            return (try restore(kind: .plane, options: .object(stored), time: time), .object(stored))
        }
    }

    /// Builds a game from its stored options (the inverse of `create`'s second result).
    static func restore(kind: GameKind, options: JSON, time: Double) throws(ProtocolError) -> AnyGame {
        do {
            switch kind {
            case .klondike:
                let fields = try KlondikeOptionFields(options)
                let klondike = try Klondike(
                    options: KlondikeOptions(draw: fields.draw ?? 1, deal: fields.deal ?? .seed(0),
                                             entropy: entropy(options)),
                    time: time)
                return .klondike(klondike)
            case .race:
                let fields = try KlondikeOptionFields(options)
                let race = try Race(
                    options: RaceOptions(seats: try RaceSeats.read(options), draw: fields.draw ?? 1,
                                         deal: fields.deal ?? .seed(0), entropy: entropy(options)),
                    time: time)
                return .race(race)
            case .plane:
                let plane = try Plane(options: PlaneOptions(
                    width: options["width"]?.doubleValue ?? 1024,
                    height: options["height"]?.doubleValue ?? 768,
                    seed: UInt64(options["seed"]?.intValue ?? 0)))
                return .plane(plane)
            }
        } catch let error as GameError {
            throw ProtocolError(error)
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw .bad("\(error)")
        }
    }

    private static func entropy(_ options: JSON) -> UInt64 {
        UInt64(bitPattern: Int64(options["entropy"]?.intValue ?? 0))
    }
}

/// The `delay` option of every kind (PROTOCOL section 15): seconds spectators see the game
/// behind its players, 0 to 900, default 0.
enum SpectatorDelay {
    static let range = 0.0...900.0

    static func read(_ options: JSON) throws(ProtocolError) -> Double {
        guard let raw = options["delay"], raw != .null else { return 0 }
        guard let delay = raw.doubleValue, delay.isFinite, range.contains(delay) else {
            throw .bad("delay must be a number of seconds from 0 to 900")
        }
        return delay
    }
}

/// A race's `seats` option: 2 to 8, default 2.
enum RaceSeats {
    static func read(_ options: JSON) throws(ProtocolError) -> Int {
        guard let raw = options["seats"], raw != .null else { return 2 }
        guard let seats = raw.intValue, RaceOptions.seatRange.contains(seats) else {
            throw .bad("seats must be an integer from \(RaceOptions.seatRange.lowerBound) to \(RaceOptions.seatRange.upperBound)")
        }
        return seats
    }
}

/// What an accepted command changed, per view: every game but a race has one view, the
/// spectators', which its players share. Each view's diff is encoded once.
struct GameOutcome: Sendable {
    var views: [RaceViewDiff]
    var events: [GameEvent]

    init(views: [RaceViewDiff], events: [GameEvent]) {
        self.views = views
        self.events = events
    }

    init(_ outcome: MoveOutcome) {
        self.init(views: [RaceViewDiff(viewers: [.spectator], diff: outcome.diff)], events: outcome.events)
    }

    /// The spectators' diff: what storage keeps, and what every other view can be derived from.
    var fullDiff: Diff { views.first { $0.viewers.contains(.spectator) }?.diff ?? Diff() }
}
