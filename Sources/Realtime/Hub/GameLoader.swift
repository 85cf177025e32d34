import Core

/// A game rebuilt from storage, ready to become a live room. Built off the service
/// thread, so a long replay never stalls other games.
struct LoadedGame: Sendable {
    var stored: StoredGame
    var game: AnyGame
    var seq: Int
    /// The last diff frames (at most the window's size), oldest first.
    var recentDiffs: [String]
    var appliedIDs: AppliedIDs
    /// Player ids continue after the highest one stored.
    var nextPlayer: Int
    /// The last lines of its chat (both rooms).
    var recentChat: [ChatLine] = []
    /// For a game with a spectator delay: what its spectators see as of the load, and what
    /// is still due to them.
    var delayed: DelayedState?
    /// The bots the last reset that named them seated (section 18); nil: the create's.
    var bots: JSON?
}

/// What a delayed game's spectators see at a moment: the game as it was `delay` seconds
/// before, and what the players got since, each with the Unix time they got it.
struct DelayedState: Sendable {
    var game: AnyGame
    var seq: Int
    var pending: [(time: Double, output: DelayLine.Output)] = []
}

/// What a load of one game came to.
enum LoadResult: Sendable {
    case loaded(LoadedGame)
    case notFound
    case failed(String)
}

/// Rebuilds a stored game by replaying its commands through Core: the same state, seq,
/// diffs and applied ids it had. Streams the commands, so memory stays at one game
/// plus its window whatever the length of its history.
enum GameLoader {
    /// `asOf`: the Unix time of the load, which a spectator delay counts back from.
    static func load(_ gameID: String, from store: any GameStore, games: GameCatalog, windowSize: Int,
                     asOf: Double) -> LoadResult {
        do {
            guard let stored = try store.game(id: gameID) else { return .notFound }
            return .loaded(try rebuild(stored, from: store, games: games, windowSize: windowSize, asOf: asOf))
        } catch {
            return .failed("\(error)")
        }
    }

    static func rebuild(_ stored: StoredGame, from store: any GameStore, games: GameCatalog, windowSize: Int,
                        asOf: Double) throws -> LoadedGame {
        let kind = GameKind(stored.kind)
        guard games.game(named: stored.kind) != nil else {
            throw RestoreError(game: stored.id, detail: "unknown kind \(stored.kind)")
        }
        var game: AnyGame
        do {
            game = try games.restore(kind: kind, options: stored.options, time: stored.created)
        } catch {
            throw RestoreError(game: stored.id, detail: "options: \(error.message)")
        }
        var seq = 0
        var window = DiffWindow(capacity: windowSize)
        var applied = AppliedIDs(recentCapacity: windowSize)
        var nextPlayer = 1
        let delay = GameRoom.delay(of: stored.options)
        var delayed = delay.map { _ in DelayedState(game: game, seq: 0) }
        var bots: JSON?
        /// Rows stored before diffs were kept: their diffs are written back once, here.
        var missingDiffs: [(seq: Int, diff: String)] = []
        try store.forEachCommand(game: stored.id, after: 0) { command in
            let fail = { (why: String) in RestoreError(game: stored.id, detail: "command \(command.seq): \(why)") }
            guard command.seq == seq + 1 else { throw fail("out of order after seq \(seq)") }
            if command.player.hasPrefix("p"), let n = Int(command.player.dropFirst()), n >= nextPlayer { nextPlayer = n + 1 }
            let (gameCommand, cause) = try replayable(command.command, player: command.player, game: game, games: games,
                                                      fail: fail)
            if let seated = command.command["bots"] { bots = seated }
            switch game.apply(gameCommand, context: MoveContext(player: command.player, time: command.time)) {
            case .success(let outcome):
                seq += 1
                let text = ServerMessage.diff(game: stored.id, seq: seq, encodedOps: outcome.fullDiff.encodedOps,
                                              cause: CommandAuthor(stored: command.command).cause(cause, player: command.player)).encoded
                if let delay, delayed != nil {
                    if command.time <= asOf - delay {
                        // Spectators have seen this one: their copy is the game as it is now.
                        delayed?.game = game
                        delayed?.seq = seq
                    } else {
                        let applied = AppliedCommand(command: gameCommand, player: command.player, time: command.time)
                        delayed?.pending.append((command.time, .diff(seq: seq, frame: OutFrame(text, kind: .diff(seq: seq)),
                                                                     command: applied)))
                        for event in outcome.events {
                            delayed?.pending.append((command.time, .frame(ServerMessage.event(
                                game: stored.id, seq: seq, event: event).frame)))
                        }
                    }
                }
                window.append(OutFrame(text, kind: .diff(seq: seq)), seq: seq, keepFrom: (delayed?.seq ?? .max - 1) + 1)
                if let clientID = command.clientID { applied.insert(clientID, seq: seq) }
                if command.diff == nil { missingDiffs.append((seq, text)) }
            case .failure(let error):
                throw fail("refused on replay: \(error)")
            }
        }
        guard seq == stored.seq else {
            throw RestoreError(game: stored.id, detail: "replay reached seq \(seq), stored seq is \(stored.seq)")
        }
        if !missingDiffs.isEmpty { try store.fillDiffs(game: stored.id, missingDiffs) }
        let recent = window.frames(after: window.firstSeq - 1)?.map(\.text) ?? []
        let chat = try store.recentChat(game: stored.id, limit: 2 * ChatLog.kept).compactMap(ChatLine.init(stored:))
        if let delay {
            // Players' chat said within the delay still reaches spectators when it would have.
            for line in chat where line.room == .players && line.at > asOf - delay {
                delayed?.pending.append((line.at, .frame(line.frame(game: stored.id))))
            }
            delayed?.pending.sort { $0.time < $1.time }
        }
        return LoadedGame(stored: stored, game: game, seq: seq, recentDiffs: recent, appliedIDs: applied,
                          nextPlayer: nextPlayer, recentChat: chat, delayed: delayed, bots: bots)
    }

    /// A stored command as Core reads it, with the cause members saw.
    static func replayable(_ command: JSON, player: String, game: AnyGame, games: GameCatalog,
                           fail: (String) -> RestoreError) throws -> (GameCommand, JSON) {
        guard let type = command["type"]?.stringValue else { throw fail("no type") }
        if type == ClockResume.type { return (ClockResume.parsed.command, ClockResume.parsed.cause) }
        do {
            let parsed = try games.parseStored(command, player: player, game: game)
            return (parsed.command, parsed.cause)
        } catch {
            throw fail(error.message)
        }
    }
}

extension JSON {
    /// A cause as members see it: the command's public form plus `"by"`.
    func adding(by player: String) -> JSON {
        .object((objectPairs ?? []) + [("by", .string(player))])
    }
}

/// Who a command's cause names (PROTOCOL sections 4, 17 and 18).
enum CommandAuthor: Sendable, Equatable {
    /// `"by":"p1"`: a player, or the server's own start.
    case player
    /// `"by":"p2","bot":true`: a bot's move.
    case bot
    /// No `by`: the clock's `timeout` and `resume`.
    case clock

    /// The cause members see.
    func cause(_ cause: JSON, player: String) -> JSON {
        switch self {
        case .player: return cause.adding(by: player)
        case .bot: return .object((cause.adding(by: player).objectPairs ?? []) + [("bot", true)])
        case .clock: return cause
        }
    }

    /// The stored form keeps what replay needs to show the same cause.
    func stored(_ command: JSON) -> JSON {
        self == .bot ? .object((command.objectPairs ?? []) + [("bot", true)]) : command
    }

    /// The author of a stored command.
    init(stored command: JSON) {
        if command["bot"] == .bool(true) {
            self = .bot
        } else if let type = command["type"]?.stringValue, type == ClockResume.type || type == "timeout" {
            self = .clock
        } else {
            self = .player
        }
    }
}

/// A stored game that does not replay to what was stored.
public struct RestoreError: Error, CustomStringConvertible {
    public var game: String
    public var detail: String
    public var description: String { "stored game \(game) cannot be rebuilt: \(detail)" }
}
