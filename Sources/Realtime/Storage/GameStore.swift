import Core

/// A game as stored: enough to rebuild it by replaying its commands through Core.
public struct StoredGame: Sendable, Equatable {
    public var id: String
    /// The game's kind name (`GameKind`).
    public var kind: String
    /// The full creation options, secret parts included (seed, deck, entropy): never shown to clients.
    public var options: JSON
    /// SHA-256 of the player token, hex. The token itself is never stored.
    public var tokenHash: String
    /// Seconds since the Unix epoch.
    public var created: Double
    public var updated: Double
    /// `playing` or `won`.
    public var status: String
    /// The seq of the last stored command (0 for a game with none).
    public var seq: Int

    public init(id: String, kind: String, options: JSON, tokenHash: String, created: Double, updated: Double, status: String, seq: Int) {
        self.id = id
        self.kind = kind
        self.options = options
        self.tokenHash = tokenHash
        self.created = created
        self.updated = updated
        self.status = status
        self.seq = seq
    }
}

/// One accepted command: the event that event sourcing replays.
public struct StoredCommand: Sendable, Equatable {
    public var game: String
    /// The seq of the diff this command caused (1, 2, ...).
    public var seq: Int
    /// The command in its full JSON form (including any seed or deck, never `id` or `token`).
    public var command: JSON
    /// The player id that sent it (`p1`), or `server` for commands the server issues itself.
    public var player: String
    /// The client's `id` as JSON text (`"abc"` or `17`), for at-most-once across restarts.
    public var clientID: String?
    /// Seconds since the Unix epoch when it was applied.
    public var time: Double
    /// The diff message it caused, exactly as members got it, so an old `since` is answered
    /// by reading instead of replaying. Nil in rows stored before diffs were kept.
    public var diff: String?

    public init(game: String, seq: Int, command: JSON, player: String, clientID: String?, time: Double,
                diff: String? = nil) {
        self.game = game
        self.seq = seq
        self.command = command
        self.player = player
        self.clientID = clientID
        self.time = time
        self.diff = diff
    }
}

/// One line of a game's chat (PROTOCOL section 15), kept with the game.
public struct StoredChat: Sendable, Equatable {
    public var game: String
    /// Its place in the game's chat (1, 2, ...).
    public var number: Int
    /// The game's seq when it was said: a replay shows it after that diff.
    public var seq: Int
    /// `players` or `spectators`.
    public var room: String
    /// The player id or spectator name (`s3`) that said it.
    public var by: String
    public var text: String
    /// Unix seconds.
    public var at: Double

    public init(game: String, number: Int, seq: Int, room: String, by: String, text: String, at: Double) {
        self.game = game
        self.number = number
        self.seq = seq
        self.room = room
        self.by = by
        self.text = text
        self.at = at
    }
}

/// One group commit: new games and commands, and the new summary rows of the games they touch.
///
/// A store writes a batch in one transaction, game by game: a game it refuses (see
/// `WriteOutcome`) has none of its rows written, and every other game's rows are.
public struct StoreBatch: Sendable, Equatable {
    public var games: [StoredGame] = []
    public var commands: [StoredCommand] = []
    /// Seeds the prover proved, for the pool that has a proven seed at hand at once.
    public var provenSeedsAdded: [ProvenSeed] = []
    /// Pool seeds used: never used twice.
    public var provenSeedsTaken: [ProvenSeed] = []
    /// Ids of games created by this batch. A new game whose id is already stored is refused
    /// (`.idTaken`): the store, not a read before each create, keeps ids unique.
    public var newGames: Set<String> = []
    /// Joins and watches: each raises its game's `touched` time (retention) to at least `time`.
    public var touches: [GameTouch] = []
    /// Chat lines said (PROTOCOL section 15), written with their game's rows (refused with them).
    public var chat: [StoredChat] = []
    /// The writing node and the epochs it holds, checked in the write's transaction by a store
    /// shared by nodes; nil writes without looking at owners (one node, SQLite).
    public var fence: StoreFence?

    public init(games: [StoredGame] = [], commands: [StoredCommand] = [], provenSeedsAdded: [ProvenSeed] = [],
                provenSeedsTaken: [ProvenSeed] = [], newGames: Set<String> = [], touches: [GameTouch] = [],
                fence: StoreFence? = nil) {
        self.games = games
        self.commands = commands
        self.provenSeedsAdded = provenSeedsAdded
        self.provenSeedsTaken = provenSeedsTaken
        self.newGames = newGames
        self.touches = touches
        self.fence = fence
    }

    public var isEmpty: Bool {
        games.isEmpty && commands.isEmpty && provenSeedsAdded.isEmpty && provenSeedsTaken.isEmpty
            && touches.isEmpty && chat.isEmpty
    }

    /// Adds a later batch (group commit). A game's epoch already in the fence is kept: a row is
    /// never written under an epoch newer than the one it was made under, so a node that gave a game
    /// up and took it back between two batches sees that game refused rather than written twice.
    public mutating func append(_ other: StoreBatch) {
        games.append(contentsOf: other.games)
        commands.append(contentsOf: other.commands)
        provenSeedsAdded.append(contentsOf: other.provenSeedsAdded)
        provenSeedsTaken.append(contentsOf: other.provenSeedsTaken)
        newGames.formUnion(other.newGames)
        touches.append(contentsOf: other.touches)
        chat.append(contentsOf: other.chat)
        if let later = other.fence {
            if var fence {
                precondition(fence.node == later.node, "one commit queue carries one node's batches")
                fence.epochs.merge(later.epochs) { earlier, _ in earlier }
                self.fence = fence
            } else {
                fence = later
            }
        }
    }
}

/// A join or watch of a game at `time` (seconds since the Unix epoch), for retention.
public struct GameTouch: Sendable, Equatable {
    public var game: String
    public var time: Double

    public init(game: String, time: Double) {
        self.game = game
        self.time = time
    }
}

/// What `GameStore.usage()` reports for `/metrics`.
public struct StorageUsage: Sendable, Equatable {
    /// Games stored, resting or live.
    public var games: Int
    /// Bytes the store takes: the database file and its WAL (SQLite), its tables with their
    /// indexes (PostgreSQL).
    public var bytes: Int64

    public init(games: Int, bytes: Int64) {
        self.games = games
        self.bytes = bytes
    }
}

/// A seed the catalog's `SeedProver` proved for `pool` (a seed that must be proven, at hand at once
/// from the pool). Stored in the `proven_seed` table.
public struct ProvenSeed: Sendable, Hashable {
    public var pool: Int
    public var seed: UInt64

    public init(pool: Int, seed: UInt64) {
        self.pool = pool
        self.seed = seed
    }
}

/// Where games live between restarts. `write` is called from one writer thread,
/// reads from the loading threads and, briefly, the service thread: implementations
/// must be safe for that. Every call blocks until the store has answered.
public protocol GameStore: Sendable {
    /// One game's summary row, for loading a game on first use.
    func game(id: String) throws -> StoredGame?
    /// Every summary row, oldest first (tests and tools: it grows with the stored games).
    func games() throws -> [StoredGame]
    /// The summary rows of games with activity at or after `time` (live at start-up).
    func games(updatedSince time: Double) throws -> [StoredGame]
    /// Summary rows, newest activity first, filtered (for `/api/games` past the live lobby): of
    /// `kind`, with one of `statuses` (nil: any).
    func recentGames(kind: String?, statuses: [String]?, limit: Int) throws -> [StoredGame]
    /// The commands of one game with seq > `after`, in seq order, streamed.
    func forEachCommand(game: String, after seq: Int, _ body: (StoredCommand) throws -> Void) throws
    /// Up to `limit` stored diff frames of a game after seq `after`, in order; stops at a row without one.
    func diffs(game: String, after seq: Int, limit: Int) throws -> [String]
    /// Writes the diffs of rows stored before diffs were kept.
    func fillDiffs(game: String, _ diffs: [(seq: Int, diff: String)]) throws
    /// The command of `game` sent with client id `clientID` (JSON text, as stored), if any:
    /// at-most-once across restarts without keeping every id in memory.
    func command(game: String, clientID: String) throws -> StoredCommand?
    /// Writes the batch in one transaction (upserting game rows), durable on return, except the
    /// rows of the games it refuses, which the outcome lists. A batch the store cannot write as a
    /// whole (a command for a game with no row, a seq already stored, a lost connection) throws
    /// and writes nothing.
    @discardableResult
    func write(_ batch: StoreBatch) throws -> WriteOutcome
    /// The pool of proven seeds not used yet.
    func provenSeeds() throws -> [ProvenSeed]
    /// The last `limit` chat lines of a game, in the order they were said.
    func recentChat(game: String, limit: Int) throws -> [StoredChat]
    /// A game's chat lines said at seq `after` + 1 through `through`, in order (a replay's), at most `limit`.
    func chat(game: String, after: Int, through: Int, limit: Int) throws -> [StoredChat]
    /// A value kept with the games (a cluster node's code).
    func meta(_ key: String) throws -> String?
    func setMeta(_ key: String, _ value: String) throws
    /// Deletes, in one transaction, up to `limit` games whose last command (`updated`) and last
    /// join or watch (`touched`) are both before `before`, with their commands and chat; returns
    /// their ids, oldest last command first. A range scan of the `updated` index: its cost grows
    /// with `limit` and the games that moved that long ago but were watched since, not the table.
    func deleteUntouched(before: Double, limit: Int) throws -> [String]
    /// How many games are stored and the bytes they take, for `/metrics`.
    func usage() throws -> StorageUsage
    /// Ends the store's connections (and for SQLite releases the data directory). Calls after this throw.
    func close() throws
    /// A cheap look at whether the store answers now (a store over the network: a `SELECT 1` on a
    /// connection of its own with a short time-out); throws `StorageError.unreachable` when not.
    func probe() throws
}

extension GameStore {
    /// A store in a local file answers whenever the process runs.
    public func probe() throws {}

    /// Every command of a game with seq > `after` (tests and small games).
    public func commands(game: String, after seq: Int) throws -> [StoredCommand] {
        var commands: [StoredCommand] = []
        try forEachCommand(game: game, after: seq) { commands.append($0) }
        return commands
    }
}
