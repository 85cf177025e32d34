import Core
import Foundation
import GRDB

/// Games stored as events in one SQLite file: a summary row per game and every
/// accepted command, replayed through Core to rebuild a game after a restart.
///
/// Durability: the database is in WAL mode. With `.full` (the default) every
/// commit fsyncs the WAL, so an acknowledged move survives a `kill -9` *and* a
/// power cut or kernel crash; `.normal` only writes the WAL, which survives a
/// killed process but may lose the last commits on power loss. `CommitQueue`
/// groups moves so the fsync is paid once per batch, not once per move (see the
/// storage-bench figures).
///
/// Opening refuses, without changing it, a file that is not an SQLite database,
/// fails `PRAGMA quick_check`, or was written by a newer schema: see `StorageError`.
public final class SQLiteGameStore: GameStore {
    public enum Sync: String, Sendable {
        /// `PRAGMA synchronous = FULL`: survives power loss.
        case full
        /// `PRAGMA synchronous = NORMAL`: survives a crashed process, not a crashed machine.
        case normal
    }

    public static let fileName = "boardcast.sqlite"
    public static let lockFileName = "boardcast.lock"

    /// The database file, or `:memory:`.
    public let path: String
    public let durability: Sync
    private let database: any GRDB.DatabaseWriter
    private let lock: DataDirectoryLock?

    /// Opens (creating if needed) `directory/boardcast.sqlite` and brings its schema up to date.
    /// Throws `StorageError` when the file is damaged, newer, or in use by another server.
    public init(directory: String, durability: Sync = .full) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError.cannotOpen(path: directory, detail: "cannot create the directory: \(error.localizedDescription)")
        }
        let path = URL(fileURLWithPath: directory).appendingPathComponent(Self.fileName).path
        let lock = try DataDirectoryLock(
            path: URL(fileURLWithPath: directory).appendingPathComponent(Self.lockFileName).path,
            directory: directory)
        // Checked read-only before DatabasePool opens it: the pool writes at once (WAL set-up).
        let checked = try Self.checkExistingFile(at: path)
        let pool: GRDB.DatabasePool
        do {
            var configuration = GRDB.Configuration()
            configuration.label = "boardcast"
            // Another process (an operator's sqlite3 shell) may briefly hold a lock; wait rather than fail a commit.
            configuration.busyMode = .timeout(5)
            pool = try GRDB.DatabasePool(path: path, configuration: configuration)
            // After the pool's own set-up, which sets NORMAL; only the writer connection commits.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
            }
            try SQLiteSchema.migrator.migrate(pool)
        } catch {
            throw Self.openingError(error, path: path)
        }
        self.path = path
        self.durability = durability
        self.database = pool
        self.lock = lock
        self.integrityCheckDeferred = !checked
    }

    /// The file was too large to read whole before serving (start-up must not grow with the
    /// stored games): `integrityProblems()` should run in the background soon after.
    public let integrityCheckDeferred: Bool

    /// `quick_check` over the whole file on a read connection: `[]` when it is sound.
    public func integrityProblems() throws -> [String] {
        let lines = try database.read { try Self.quickCheck($0) }
        return lines == ["ok"] ? [] : lines
    }

    /// Files up to this size are read whole (`quick_check`) before the server serves:
    /// about 0.1 s here. Larger ones are checked in the background.
    static let fullCheckLimit = 64 * 1024 * 1024

    private init(memory: GRDB.DatabaseQueue) {
        self.path = ":memory:"
        self.durability = .normal
        self.database = memory
        self.lock = nil
        self.integrityCheckDeferred = false
    }

    /// A store that keeps nothing past the process (`--data :memory:`), with the same behaviour otherwise.
    public static func inMemory() throws -> SQLiteGameStore {
        let queue = try GRDB.DatabaseQueue()
        try SQLiteSchema.migrator.migrate(queue)
        return SQLiteGameStore(memory: queue)
    }

    /// Closes the database and releases the data directory. Calls after this throw.
    public func close() throws {
        defer { lock?.release() }
        try database.close()
    }

    /// A read on one of the pool's connections (extensions of this store read through it).
    func read<T>(_ body: (GRDB.Database) throws -> T) throws -> T { try database.read(body) }

    // MARK: GameStore

    public func games() throws -> [StoredGame] {
        try database.read { db in
            try decodeGames(db, sql: "SELECT \(Self.gameColumns) FROM game ORDER BY created, id", arguments: [])
        }
    }

    public func games(updatedSince time: Double) throws -> [StoredGame] {
        try database.read { db in
            try decodeGames(db, sql: "SELECT \(Self.gameColumns) FROM game WHERE updated >= ? ORDER BY updated, id",
                            arguments: [time])
        }
    }

    public func recentGames(kind: String?, statuses: [String]?, limit: Int) throws -> [StoredGame] {
        try database.read { db in
            var conditions: [String] = []
            var arguments: GRDB.StatementArguments = []
            if let kind {
                conditions.append("kind = ?")
                arguments += [kind]
            }
            if let statuses {
                conditions.append(statuses.isEmpty ? "0" : "status IN (" + Array(repeating: "?", count: statuses.count).joined(separator: ", ") + ")")
                arguments += StatementArguments(statuses)
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            arguments += [limit]
            return try decodeGames(
                db, sql: "SELECT \(Self.gameColumns) FROM game \(filter) ORDER BY updated DESC, id DESC LIMIT ?",
                arguments: arguments)
        }
    }

    private func decodeGames(_ db: GRDB.Database, sql: String, arguments: GRDB.StatementArguments) throws -> [StoredGame] {
        let rows = try GRDB.Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var games: [StoredGame] = []
        while let row = try rows.next() { games.append(try decodeGame(row)) }
        return games
    }

    public func game(id: String) throws -> StoredGame? {
        try database.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Self.gameColumns) FROM game WHERE id = ?")
            return try GRDB.Row.fetchOne(statement, arguments: [id]).map(decodeGame)
        }
    }

    public func forEachCommand(game: String, after seq: Int, _ body: (StoredCommand) throws -> Void) throws {
        try database.read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT \(Self.commandColumns) FROM command WHERE game = ? AND seq > ? ORDER BY seq")
            let rows = try GRDB.Row.fetchCursor(statement, arguments: [game, seq])
            while let row = try rows.next() { try body(try decodeCommand(row)) }
        }
    }

    public func diffs(game: String, after seq: Int, limit: Int) throws -> [String] {
        try database.read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT seq, diff FROM command WHERE game = ? AND seq > ? ORDER BY seq LIMIT ?")
            let rows = try GRDB.Row.fetchCursor(statement, arguments: [game, seq, limit])
            var diffs: [String] = []
            var expected = seq + 1
            while let row = try rows.next() {
                guard row[0] as Int == expected, let diff = row[1] as String? else { break }
                diffs.append(diff)
                expected += 1
            }
            return diffs
        }
    }

    public func fillDiffs(game: String, _ diffs: [(seq: Int, diff: String)]) throws {
        try database.write { db in
            let update = try db.cachedStatement(sql: "UPDATE command SET diff = ? WHERE game = ? AND seq = ? AND diff IS NULL")
            for (seq, diff) in diffs { try update.execute(arguments: [diff, game, seq]) }
        }
    }

    public func meta(_ key: String) throws -> String? {
        try database.read { try String.fetchOne($0, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    public func setMeta(_ key: String, _ value: String) throws {
        try database.write {
            try $0.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           arguments: [key, value])
        }
    }

    public func provenSeeds() throws -> [ProvenSeed] {
        try database.read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT pool, seed FROM proven_seed ORDER BY pool, seed").map {
                ProvenSeed(pool: $0[0], seed: UInt64(bitPattern: $0[1] as Int64))
            }
        }
    }

    public func command(game: String, clientID: String) throws -> StoredCommand? {
        try database.read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT \(Self.commandColumns) FROM command WHERE game = ? AND client_id = ? ORDER BY seq LIMIT 1")
            return try GRDB.Row.fetchOne(statement, arguments: [game, clientID]).map(decodeCommand)
        }
    }

    /// One transaction: game rows upserted (the last row of a game in the batch wins),
    /// then commands inserted. A command whose (game, seq) is already stored, or whose
    /// game has no row, fails the whole batch: both mean the caller lost track of a game.
    /// A created game whose id is stored is refused; the fence is ignored (one writer per file).
    @discardableResult
    public func write(_ batch: StoreBatch) throws -> WriteOutcome {
        guard !batch.isEmpty else { return WriteOutcome() }
        var unfenced = batch
        unfenced.fence = nil
        return try database.write { db in
            var plan = try BatchPlan(unfenced)
            plan.refuse(stored: try storedIDs(db, among: plan.createdGames.map(\.id)), owners: nil)
            // `touched` starts at the game's creation; commands leave it alone (their `updated` is
            // retention's clock too), so a move writes no second index entry.
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO game (id, kind, options, token_hash, created, updated, status, seq, touched)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, options = excluded.options,
                    token_hash = excluded.token_hash, created = excluded.created, updated = excluded.updated,
                    status = excluded.status, seq = excluded.seq
                """)
            for game in plan.createdGames + plan.updatedGames {
                try upsert.execute(arguments: [
                    game.id, game.kind, game.options.encoded, game.tokenHash,
                    game.created, game.updated, game.status, game.seq, game.updated,
                ])
            }
            let insert = try db.cachedStatement(sql: """
                INSERT INTO command (game, seq, command, player, client_id, time, diff) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for command in plan.commands {
                try insert.execute(arguments: [
                    command.game, command.seq, command.command.encoded, command.player, command.clientID, command.time,
                    command.diff,
                ])
            }
            if !plan.seedsAdded.isEmpty {
                let add = try db.cachedStatement(sql: "INSERT OR IGNORE INTO proven_seed (pool, seed) VALUES (?, ?)")
                for seed in plan.seedsAdded { try add.execute(arguments: [seed.pool, Int64(bitPattern: seed.seed)]) }
            }
            if !plan.seedsTaken.isEmpty {
                let take = try db.cachedStatement(sql: "DELETE FROM proven_seed WHERE pool = ? AND seed = ?")
                for seed in plan.seedsTaken { try take.execute(arguments: [seed.pool, Int64(bitPattern: seed.seed)]) }
            }
            if !plan.touches.isEmpty {
                let touch = try db.cachedStatement(sql: "UPDATE game SET touched = max(touched, ?) WHERE id = ?")
                for entry in plan.touches { try touch.execute(arguments: [entry.time, entry.game]) }
            }
            try Self.insertChat(plan.chat, db)
            return plan.outcome
        }
    }

    private func storedIDs(_ db: GRDB.Database, among ids: [String]) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let lookup = try db.cachedStatement(sql: "SELECT 1 FROM game WHERE id = ?")
        return try Set(ids.filter { try Bool.fetchOne(lookup, arguments: [$0]) != nil })
    }

    public func deleteUntouched(before time: Double, limit: Int) throws -> [String] {
        guard limit > 0 else { return [] }
        return try database.write { db in
            // A range scan of game_updated from the oldest move, skipping games joined or watched
            // since; each game's commands are a range of command's primary key.
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM game WHERE updated < ? AND touched < ? ORDER BY updated, id LIMIT ?",
                arguments: [time, time, limit])
            let commands = try db.cachedStatement(sql: "DELETE FROM command WHERE game = ?")
            let chat = try db.cachedStatement(sql: "DELETE FROM chat WHERE game = ?")
            let game = try db.cachedStatement(sql: "DELETE FROM game WHERE id = ?")
            for id in ids {
                try commands.execute(arguments: [id])
                try chat.execute(arguments: [id])
                try game.execute(arguments: [id])
            }
            return ids
        }
    }

    public func usage() throws -> StorageUsage {
        let (games, pages) = try database.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM game") ?? 0,
             try Int64.fetchOne(db, sql: "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()") ?? 0)
        }
        guard path != ":memory:" else { return StorageUsage(games: games, bytes: pages) }
        let bytes = [path, path + "-wal"].reduce(Int64(0)) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value
            return total + (size ?? 0)
        }
        return StorageUsage(games: games, bytes: bytes)
    }

    // MARK: Schema

    static let gameColumns = "id, kind, options, token_hash, created, updated, status, seq"
    static let commandColumns = "game, seq, command, player, client_id, time, diff"

    // MARK: Decoding

    private func decodeGame(_ row: GRDB.Row) throws -> StoredGame {
        let id: String = row[0]
        return StoredGame(
            id: id, kind: row[1], options: try decodeJSON(row[2], what: "options of game \(id)"),
            tokenHash: row[3], created: row[4], updated: row[5], status: row[6], seq: row[7])
    }

    private func decodeCommand(_ row: GRDB.Row) throws -> StoredCommand {
        let game: String = row[0]
        let seq: Int = row[1]
        return StoredCommand(
            game: game, seq: seq, command: try decodeJSON(row[2], what: "command \(seq) of game \(game)"),
            player: row[3], clientID: row[4], time: row[5], diff: row[6])
    }

    private func decodeJSON(_ text: String, what: String) throws -> JSON {
        do {
            return try JSONText.parse(text)
        } catch {
            throw StorageError.damaged(path: path, detail: "the \(what) is not JSON: \(error)")
        }
    }

    // MARK: Opening safely

    /// Looks at an existing file without writing to it: the header, then `quick_check` (for a
    /// file up to `fullCheckLimit`) and the migrations it records, on a read-only connection.
    /// Returns whether the whole file was checked.
    private static func checkExistingFile(at path: String) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return true }
        let header = try? handle.read(upToCount: 100) ?? Data()
        let size = (try? handle.seekToEnd()).map(Int.init) ?? 0
        try? handle.close()
        guard let header, !header.isEmpty else { return true }  // SQLite writes nothing until the first commit
        let wholeFile = size <= fullCheckLimit
        guard header.count == 100 else {
            throw StorageError.damaged(path: path, detail: "the file is only \(header.count) bytes long")
        }
        guard header.prefix(16) == Data("SQLite format 3\0".utf8) else {
            throw StorageError.damaged(path: path, detail: "the file does not start with the SQLite header")
        }
        do {
            var configuration = GRDB.Configuration()
            configuration.readonly = true
            let queue = try GRDB.DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            // No transaction: on a damaged file even its COMMIT can fail and hide the report.
            try queue.inDatabase { db in
                let problems = wholeFile ? try quickCheck(db) : ["ok"]
                if problems != ["ok"] {
                    throw StorageError.damaged(
                        path: path, detail: "quick_check: " + problems.prefix(4).joined(separator: "; "))
                }
                let migrator = SQLiteSchema.migrator
                let applied = try migrator.appliedIdentifiers(db)
                let unknown = applied.subtracting(migrator.migrations)
                if !unknown.isEmpty {
                    throw StorageError.newerSchema(path: path, unknownMigrations: unknown.sorted())
                }
            }
            return wholeFile
        } catch let error as StorageError {
            throw error
        } catch {
            throw openingError(error, path: path)
        }
    }

    /// quick_check's report lines. It may report a bad page and then fail on it,
    /// so lines read before an error are kept: they say where the damage is.
    private static func quickCheck(_ db: GRDB.Database) throws -> [String] {
        var lines: [String] = []
        do {
            let cursor = try String.fetchCursor(db, sql: "PRAGMA quick_check")
            while let row = try cursor.next() {
                // A row may hold several lines, headed by "*** in database main ***".
                lines += row.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("*** in database") }
            }
        } catch let error as GRDB.DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            lines.append(error.message ?? "\(error)")
        }
        return lines
    }

    private static func openingError(_ error: any Error, path: String) -> any Error {
        guard let error = error as? GRDB.DatabaseError else { return error }
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return StorageError.damaged(path: path, detail: error.message ?? "\(error)")
        default:
            return StorageError.cannotOpen(path: path, detail: "\(error)")
        }
    }

    // MARK: For tests and maintenance

    /// Runs SQL outside the store's rules (tests use it to fake a newer schema).
    func executeRawSQL(_ sql: String) throws {
        try database.writeWithoutTransaction { try $0.execute(sql: sql) }
    }

    /// A PRAGMA's value as the writer connection sees it (`journal_mode`, `synchronous`).
    func writerPragma(_ name: String) throws -> String? {
        try database.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA \(name)") }
    }
}
