import Core

/// A command of some game, read from its message: the game that reads it applies it.
struct GameCommand: Sendable, Equatable {
    let base: ErasedCommand

    init(_ base: some Sendable & Equatable) { self.base = CommandBox(base) }

    static func == (a: GameCommand, b: GameCommand) -> Bool { a.base.isEqual(to: b.base) }
}

/// A game command with the two JSON forms the server keeps of it.
struct ParsedGesture: Sendable, Equatable {
    var command: GameCommand
    /// What every member sees as the diff's `cause` (before `by` is added): no id, token, seed or deck.
    var cause: JSON
    /// What storage keeps to replay it: the cause plus any seed or deck.
    var stored: JSON

    init<C>(_ read: ReadCommand<C>) {
        command = GameCommand(read.command)
        cause = read.cause
        stored = read.stored
    }

    /// A command the server issued, as the game mapped it: stored (and shown) in the server's form.
    init(_ command: GameCommand, issued: ServerCommand) {
        self.command = command
        cause = issued.stored
        stored = issued.stored
    }

    func typed<C: Sendable & Equatable>(as type: C.Type) -> ReadCommand<C>? {
        guard let command = command.base.unboxed(as: C.self) else { return nil }
        return ReadCommand(command, cause: cause, stored: stored)
    }
}

extension ServerCommand {
    /// The form storage keeps, and the cause members see (a start's and a departure's with `by`):
    /// `{"type":"start"}`, `{"type":"leave"}`, `{"type":"timeout","seat":"p1"}`.
    var stored: JSON {
        switch self {
        case .start: return .object(["type": "start"])
        case .departure: return .object(["type": "leave"])
        case .timeout(let seat): return .object(["type": "timeout", "seat": .string(seat)])
        }
    }

    /// A stored command the server issued, stored for `player`; nil for any other command.
    init?(stored command: JSON, player: String) {
        switch command["type"]?.stringValue {
        case "start": self = .start
        case "leave": self = .departure(player: player)
        case "timeout":
            guard let seat = command["seat"]?.stringValue else { return nil }
            self = .timeout(seat: seat)
        default: return nil
        }
    }
}

/// The realtime layer's own command, the clock's alone: `{"type":"resume"}` (PROTOCOL section 17).
struct ClockResume: Sendable, Equatable {
    static let type = "resume"
    static var parsed: ParsedGesture { ParsedGesture(ReadCommand(ClockResume(), cause: .object(["type": .string(type)]))) }
}

/// Any game of the catalog, behind the operations a room needs; every answer comes from
/// the game itself (`Core.Game` and the capabilities it conforms to), so the realtime layer
/// knows no game's rules. A capability the game lacks answers as having none.
struct AnyGame: Sendable, Equatable {
    private(set) var base: any Game
    /// The players' clocks of a game created with `clock` (section 17): the layer's, not the game's.
    private(set) var clock: TurnClock?
    /// Capabilities asked on every move, looked up once.
    private let seatViews: (any SeatViews.Type)?
    private let provenSeeds: Bool

    init(_ base: any Game, clock: ClockOption? = nil, at time: Double = 0) {
        self.base = base
        seatViews = type(of: base) as? any SeatViews.Type
        provenSeeds = base is any ProvenSeeds
        self.clock = clock.map { TurnClock(option: $0, seats: (base as? any SeatedGame)?.seats ?? [], at: time) }
    }

    static func == (a: AnyGame, b: AnyGame) -> Bool {
        func open<G: Game>(_ game: G) -> Bool { (b.base as? G) == game }
        return a.clock == b.clock && open(a.base)
    }

    var clockDeadline: Double? { clock?.deadline }
    var clockRunning: Bool { clock?.running != nil }

    // MARK: Bots (BotPlayable)

    var botLevels: ClosedRange<Int>? { (type(of: base) as? any BotPlayable.Type)?.botLevels }
    func checkBots(creating options: JSON) throws(ProtocolError) {
        guard let type = type(of: base) as? any BotPlayable.Type else { return }
        do { try type.checkBots(creating: options) } catch { throw ProtocolError(error) }
    }
    func awaits(_ seat: String) -> Bool { (base as? any BotPlayable)?.awaits(seat) ?? false }
    func botPace(level: Int) -> Double { (type(of: base) as? any BotPlayable.Type)?.botPace(level: level) ?? 0 }

    /// A bot's move (run off the service thread: it may search).
    func botMove(seat: String, level: Int, seed: UInt64, budget: Int) -> ParsedGesture? {
        var random = SplitMix64(seed: seed)
        func open<G: BotPlayable>(_ game: G) -> ParsedGesture? {
            game.botMove(seat: seat, level: level, random: &random, budget: budget).map(ParsedGesture.init)
        }
        guard let game = base as? any BotPlayable else { return nil }
        return open(game)
    }

    // MARK: What the room asks

    var kind: GameKind { GameKind(type(of: base).kind) }
    var seats: [String] { (base as? any SeatedGame)?.seats ?? [] }
    var turn: String? { (base as? any TurnBasedGame)?.turn }
    /// The status word (the state's, the lobby's, `show`'s).
    var status: String { base.status.word }
    var isOver: Bool { base.isOver }
    var hasSeatViews: Bool { seatViews != nil }
    var playersHoldingConnectionState: [String] { (base as? any ConnectionBound)?.playersHoldingConnectionState ?? [] }

    func publicState(for viewer: Viewer = .spectator) -> JSON {
        guard let clock, case .object(let pairs) = base.state(for: viewer) else { return base.state(for: viewer) }
        return .object(pairs + [("clocks", clock.state)])
    }
    func text(for viewer: Viewer, heading: String) -> [String] { base.text(for: viewer, heading: heading) }
    func diff(_ full: Diff, for viewer: Viewer) -> Diff { seatViews?.diff(full, for: viewer) ?? full }

    // MARK: Hints (HintingGame)

    func hintPlan(for asker: HintContext) -> HintPlan {
        guard let game = base as? any HintingGame else {
            return .refused(GameError(.unknownType, rule: "no-hints", "\(type(of: base).kind) has no hint"))
        }
        return game.hintPlan(for: asker)
    }
    func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)] {
        (base as? any HintingGame)?.hints(for: viewer, budget: budget) ?? []
    }

    // MARK: Commands the server issues

    /// The game's command for one the server issues now (the start, a departure, a timeout), or nil.
    func command(for issued: ServerCommand) -> ParsedGesture? {
        base.command(for: issued).map { ParsedGesture(GameCommand($0), issued: issued) }
    }

    var startCommand: ParsedGesture? { command(for: .start) }
    func departure(of player: String) -> ParsedGesture? { command(for: .departure(player: player)) }
    func timeout(of seat: String) -> ParsedGesture? { command(for: .timeout(seat: seat)) }

    // MARK: Applying

    mutating func apply(_ command: GameCommand, context: MoveContext) -> Result<GameOutcome, GameError> {
        if command.base.unboxed(as: ClockResume.self) != nil {
            guard var clock, clock.running != nil else { return .failure(.illegal("no-clock", "no clock is running")) }
            let ops = clock.resume(at: context.time)
            self.clock = clock
            return .success(GameOutcome(Diff(ops)))
        }
        guard var clock else { return base.apply(erased: command.base, context: context) }
        let (turnBefore, wasOver) = (turn, base.isOver)
        let result = base.apply(erased: command.base, context: context)
        guard case .success(var outcome) = result else { return result }
        let ops = clock.follow(turnBefore: turnBefore, turnAfter: turn, wasOver: wasOver, isOver: base.isOver,
                               mover: context.player, at: context.time)
        self.clock = clock
        if !ops.isEmpty {
            outcome.appendToEveryView(ops)
        }
        return .success(outcome)
    }

    // MARK: Proven seeds (ProvenSeeds)

    /// A seed to prove before `parsed` is applied (a reset asking for a proven one).
    func seedRequest(for parsed: ParsedGesture) -> SeedRequest? {
        guard provenSeeds, let game = base as? any ProvenSeeds else { return nil }
        func open<G: ProvenSeeds>(_ game: G) -> SeedRequest? { parsed.typed(as: G.Command.self).flatMap(game.seedRequest(for:)) }
        return open(game)
    }

    /// `parsed` with a proven seed instead of whatever it named.
    func seeded(_ parsed: ParsedGesture, seed: UInt64) -> ParsedGesture {
        guard let game = base as? any ProvenSeeds else { return parsed }
        func open<G: ProvenSeeds>(_ game: G) -> ParsedGesture {
            guard let typed = parsed.typed(as: G.Command.self) else { return parsed }
            return ParsedGesture(game.seeded(typed, seed: seed))
        }
        return open(game)
    }
}

extension GameCatalog {
    /// The game type of a kind, or `bad-request` naming the kinds there are.
    func type(of kind: GameKind) throws(ProtocolError) -> any Game.Type {
        guard let type = game(named: kind.rawValue) else {
            throw .bad("unknown kind \(kind.rawValue): \(kinds.joined(separator: ", "))")
        }
        return type
    }

    /// Builds a new game from `create` options. Returns the game and its full options for
    /// storage, where the server's secret choices (seed, entropy) are filled in.
    func create(kind: GameKind, options: JSON, time: Double,
                random: inout some RandomNumberGenerator) throws(ProtocolError) -> (AnyGame, JSON) {
        let type = try type(of: kind)
        let delay = try SpectatorDelay.read(options)
        let clock = try ClockOption.read(options)
        let watch = try WatchPolicy.read(options)
        if clock != nil && !(type is any TurnBasedGame.Type) { throw .bad("\(kind.rawValue) has no turns: a clock is for games where players take turns") }
        var stored: JSON
        do {
            stored = try type.storedOptions(creating: options, random: &random)
        } catch {
            throw ProtocolError(error)
        }
        guard case .object(var pairs) = stored else { throw .bad("options must be an object") }
        if delay > 0 { pairs.append(("delay", JSON.seconds(delay))) }
        if let clock { pairs.append(("clock", clock.json)) }
        if watch != .anyone {
            // The key is the server's secret choice, like a seed: stored, shown only to players.
            pairs.append(("watch", .string(watch.rawValue)))
            pairs.append((WatchKey.option, .string(WatchKey.make(using: &random))))
        }
        stored = .object(pairs)
        let game = try restore(kind: kind, options: stored, time: time)
        let bots = try BotSeats.read(options, seats: game.seats, levels: game.botLevels)
        if !bots.isEmpty {
            try game.checkBots(creating: options)
            stored = .object(pairs + [("bots", bots.json)])
        }
        return (game, stored)
    }

    /// A seed to prove before a game of `kind` is made with these `create` options, or nil.
    func seedRequest(creating options: JSON, kind: GameKind) throws(ProtocolError) -> SeedRequest? {
        guard let type = try type(of: kind) as? any ProvenSeeds.Type else { return nil }
        do { return try type.seedRequest(creating: options) } catch { throw ProtocolError(error) }
    }

    /// `create`'s options with a proven seed in them, as the game of `kind` puts it there.
    func options(_ options: JSON, seed: UInt64, kind: GameKind) -> JSON {
        guard let type = game(named: kind.rawValue) as? any ProvenSeeds.Type else { return options }
        return type.options(options, seed: seed)
    }

    /// Builds a game from its stored options (the inverse of `create`'s second result).
    func restore(kind: GameKind, options: JSON, time: Double) throws(ProtocolError) -> AnyGame {
        let type = try type(of: kind)
        do {
            return AnyGame(try type.init(stored: options, time: time), clock: try ClockOption.read(options), at: time)
        } catch let error as GameError {
            throw ProtocolError(error)
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw .bad("\(error)")
        }
    }

    /// Reads a game command for a game of `kind`: a generic gesture (`Gesture`), which every game
    /// reads, or one of the kind's own types. Section 2's order: a malformed field is
    /// `bad-request` even when the kind lacks the type, which is `unknown-type` only once the
    /// fields would be well formed for a kind that has it.
    func parse(type: String, message: JSON, kind: GameKind) throws(ProtocolError) -> ParsedGesture {
        guard let game = game(named: kind.rawValue) else { throw .bad("unknown kind \(kind.rawValue)") }
        do throws(GameError) {
            guard Self.reads(game, type) else { throw GameError(.unknownType, rule: "unknown-type", "") }
            return try Self.read(game, type: type, message: message)
        } catch where error.code == .unknownType {
            // Not this kind's: well formed for another kind that has it, or `unknown-type` for all.
            try validateForAnyKind(type: type, message: message)
            throw ProtocolError(.unknownType, "\(kind.rawValue) has no \(type)")
        } catch {
            throw ProtocolError(error)
        }
    }

    /// Whether messages of `type` reach `game`'s `read`: the generic gestures, and its own types.
    private static func reads(_ game: any Game.Type, _ type: String) -> Bool {
        Gesture(rawValue: type) != nil || game.commandTypes.contains(type)
    }

    /// A stored command: one the server issued (a start, a departure, a timeout), which `game`
    /// (as it was when the command was applied) maps again, or a client's.
    func parseStored(_ message: JSON, player: String, game: AnyGame) throws(ProtocolError) -> ParsedGesture {
        if let issued = ServerCommand(stored: message, player: player), let parsed = game.command(for: issued) { return parsed }
        guard let type = message["type"]?.stringValue else { throw .bad("a stored command has no type") }
        return try parse(type: type, message: message, kind: game.kind)
    }

    private static func read(_ game: any Game.Type, type: String, message: JSON) throws(GameError) -> ParsedGesture {
        func open<G: Game>(_ game: G.Type) throws(GameError) -> ParsedGesture { ParsedGesture(try game.read(type, message)) }
        return try open(game)
    }

    /// The message must be well formed for some kind that has this type; `unknown-type` when none has it.
    func validateForAnyKind(type: String, message: JSON) throws(ProtocolError) {
        var firstError: ProtocolError?
        for game in games where Self.reads(game, type) {
            do {
                _ = try Self.read(game, type: type, message: message)
                return
            } catch where error.code == .unknownType {
                continue
            } catch {
                if firstError == nil { firstError = ProtocolError(error) }
            }
        }
        throw firstError ?? ProtocolError(.unknownType, "unknown type \(type)")
    }

    /// A game's own shorthand command (`alpha +1`, `resign`), nil when no game has `verb`.
    func shorthand(_ verb: String, _ args: [String]) throws(ProtocolError) -> JSON? {
        for game in games {
            do {
                if let message = try game.shorthand(verb, args) { return message }
            } catch {
                throw ProtocolError(error)
            }
        }
        return nil
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
