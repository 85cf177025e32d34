import Core

/// A command of some game, read from its message: the game that reads it applies it.
struct GameCommand: Sendable, Equatable {
    let base: any Sendable & Equatable

    init(_ base: some Sendable & Equatable) { self.base = base }

    static func == (a: GameCommand, b: GameCommand) -> Bool { a.base.isEqual(to: b.base) }
}

extension Equatable {
    fileprivate func isEqual(to other: any Equatable) -> Bool { (other as? Self) == self }
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

    func typed<C>(as type: C.Type) -> ReadCommand<C>? {
        guard let command = command.base as? C else { return nil }
        return ReadCommand(command, cause: cause, stored: stored)
    }
}

/// The realtime layer's own command, the clock's alone: `{"type":"resume"}` (PROTOCOL section 17).
struct ClockResume: Sendable, Equatable {
    static let type = "resume"
    static var parsed: ParsedGesture { ParsedGesture(ReadCommand(ClockResume(), cause: .object(["type": .string(type)]))) }
}

/// Any game of the catalog, behind the operations a room needs; every answer comes from
/// the game itself (`Core.Game`), so the realtime layer knows no game's rules.
struct AnyGame: Sendable, Equatable {
    private(set) var base: any Game
    /// The players' clocks of a game created with `clock` (section 17): the layer's, not the game's.
    private(set) var clock: TurnClock?

    init(_ base: any Game, clock: ClockOption? = nil, at time: Double = 0) {
        self.base = base
        self.clock = clock.map { TurnClock(option: $0, seats: base.seats, at: time) }
    }

    static func == (a: AnyGame, b: AnyGame) -> Bool {
        func open<G: Game>(_ game: G) -> Bool { (b.base as? G) == game }
        return a.clock == b.clock && open(a.base)
    }

    var clockDeadline: Double? { clock?.deadline }
    var clockRunning: Bool { clock?.running != nil }
    var botLevels: ClosedRange<Int>? { type(of: base).botLevels }
    func checkBots(creating options: JSON) throws(ProtocolError) {
        do { try type(of: base).checkBots(creating: options) } catch { throw ProtocolError(error) }
    }
    func awaits(_ seat: String) -> Bool { base.awaits(seat) }
    func botPace(level: Int) -> Double { type(of: base).botPace(level: level) }

    /// The command that ends the game on time for `seat`.
    func timeout(of seat: String) -> ParsedGesture? {
        func open<G: Game>(_ game: G) -> ParsedGesture? { game.timeout(of: seat).map(ParsedGesture.init) }
        return open(base)
    }

    /// A bot's move (run off the service thread: it may search).
    func botMove(seat: String, level: Int, seed: UInt64, budget: Int) -> ParsedGesture? {
        var random = SplitMix64(seed: seed)
        func open<G: Game>(_ game: G) -> ParsedGesture? {
            game.botMove(seat: seat, level: level, random: &random, budget: budget).map(ParsedGesture.init)
        }
        return open(base)
    }

    var kind: GameKind { GameKind(type(of: base).kind) }
    var seats: [String] { base.seats }
    var turn: String? { base.turn }
    var status: String { base.status }
    var isOver: Bool { base.isOver }
    var hasSeatViews: Bool { type(of: base).hasSeatViews }
    var playersHoldingConnectionState: [String] { base.playersHoldingConnectionState }

    func publicState(for viewer: Viewer = .spectator) -> JSON {
        guard let clock, case .object(let pairs) = base.state(for: viewer) else { return base.state(for: viewer) }
        return .object(pairs + [("clocks", clock.state)])
    }
    func text(for viewer: Viewer, heading: String) -> [String] { base.text(for: viewer, heading: heading) }
    func diff(_ full: Diff, for viewer: Viewer) -> Diff { type(of: base).diff(full, for: viewer) }
    func hintPlan(for asker: HintContext) -> HintPlan { base.hintPlan(for: asker) }
    func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)] { base.hints(for: viewer, budget: budget) }

    var startCommand: ParsedGesture? {
        func open<G: Game>(_ game: G) -> ParsedGesture? { game.startCommand.map(ParsedGesture.init) }
        return open(base)
    }

    func departure(of player: String) -> ParsedGesture? {
        func open<G: Game>(_ game: G) -> ParsedGesture? { game.departure(of: player).map(ParsedGesture.init) }
        return open(base)
    }

    mutating func apply(_ command: GameCommand, context: MoveContext) -> Result<GameOutcome, GameError> {
        if command.base is ClockResume {
            guard var clock, clock.running != nil else { return .failure(.illegal("no-clock", "no clock is running")) }
            let ops = clock.resume(at: context.time)
            self.clock = clock
            return .success(GameOutcome(Diff(ops)))
        }
        func open<G: Game>(_ game: inout G) -> Result<GameOutcome, GameError> {
            guard let typed = command.base as? G.Command else {
                return .failure(.badRequest("wrong-kind", "that command belongs to another kind of game"))
            }
            return game.apply(typed, context: context)
        }
        let (turnBefore, wasOver) = (base.turn, base.isOver)
        let result = open(&base)
        guard case .success(var outcome) = result, var clock else { return result }
        let ops = clock.follow(turnBefore: turnBefore, turnAfter: base.turn, wasOver: wasOver, isOver: base.isOver,
                               mover: context.player, at: context.time)
        self.clock = clock
        if !ops.isEmpty {
            outcome.appendToEveryView(ops)
        }
        return .success(outcome)
    }

    /// A deal to prove before `parsed` is applied (a reset asking for a winnable deal).
    func dealRequest(for parsed: ParsedGesture) -> DealRequest? {
        guard type(of: base).provesDeals else { return nil }
        func open<G: Game>(_ game: G) -> DealRequest? { parsed.typed(as: G.Command.self).flatMap(game.dealRequest(for:)) }
        return open(base)
    }

    /// `parsed` dealing a proven seed instead of whatever it named.
    func dealing(_ parsed: ParsedGesture, seed: UInt64) -> ParsedGesture {
        func open<G: Game>(_ game: G) -> ParsedGesture {
            guard let typed = parsed.typed(as: G.Command.self) else { return parsed }
            return ParsedGesture(game.dealing(typed, seed: seed))
        }
        return open(base)
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
        if clock != nil && !type.takesTurns { throw .bad("\(kind.rawValue) has no turns: a clock is for games where players take turns") }
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
        let bots = try BotSeats.read(options, seats: game.seats, levels: type.botLevels)
        if !bots.isEmpty {
            do { try type.checkBots(creating: options) } catch { throw ProtocolError(error) }
            stored = .object(pairs + [("bots", bots.json)])
        }
        return (game, stored)
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

    /// Reads a game command for a game of `kind`. Section 2's order: a malformed field is
    /// `bad-request` even when the kind lacks the type, which is `unknown-type` only once the
    /// fields would be well formed for a kind that has it.
    func parse(type: String, message: JSON, kind: GameKind) throws(ProtocolError) -> ParsedGesture {
        guard let game = game(named: kind.rawValue) else { throw .bad("unknown kind \(kind.rawValue)") }
        guard game.commandTypes.contains(type) else {
            try validateForAnyKind(type: type, message: message)
            throw ProtocolError(.unknownType, "\(kind.rawValue) has no \(type)")
        }
        return try Self.read(game, type: type, message: message)
    }

    /// A command the server stored for itself (a start, a departure), or a client's.
    func parseStored(type: String, message: JSON, kind: GameKind) throws(ProtocolError) -> ParsedGesture {
        guard let game = game(named: kind.rawValue) else { throw .bad("unknown kind \(kind.rawValue)") }
        func serverCommand<G: Game>(_ game: G.Type) -> ParsedGesture? {
            game.readServerCommand(type, message).map(ParsedGesture.init)
        }
        if let issued = serverCommand(game) { return issued }
        return try parse(type: type, message: message, kind: kind)
    }

    private static func read(_ game: any Game.Type, type: String, message: JSON) throws(ProtocolError) -> ParsedGesture {
        func open<G: Game>(_ game: G.Type) throws(GameError) -> ParsedGesture { ParsedGesture(try game.read(type, message)) }
        do {
            return try open(game)
        } catch {
            throw ProtocolError(error)
        }
    }

    /// The message must be well formed for some kind that has this type; `unknown-type` when none has it.
    func validateForAnyKind(type: String, message: JSON) throws(ProtocolError) {
        var firstError: ProtocolError?
        for game in games where game.commandTypes.contains(type) {
            do {
                _ = try Self.read(game, type: type, message: message)
                return
            } catch {
                if firstError == nil { firstError = error }
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
