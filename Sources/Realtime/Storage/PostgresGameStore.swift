import Core
import Foundation
import PostgresNIO

/// Games in a PostgreSQL database that several nodes share (PROTOCOL 11.1), with the same
/// rows and semantics as `SQLiteGameStore`, plus who owns each game (`SharedGameStore`).
///
/// Threads: every method blocks its caller until the database has answered (see
/// `PostgresLink`). `write` has a connection of its own, used only by the commit thread, so a
/// commit never queues behind reads; every other call borrows one of a few reader connections.
/// The connections run on one event-loop thread that the store owns and `close()` stops.
///
/// Durability: each connection runs with `synchronous_commit = on`, so `write` returns once
/// its transaction is on the server's disk. A lost connection makes the call throw
/// `StorageError.unreachable`, having written nothing (but for a write whose answer was lost
/// after the server ran it); a later call connects again.
public final class PostgresGameStore: SharedGameStore {
    public let configuration: PostgresStoreConfiguration
    private let group: MultiThreadedEventLoopGroup
    /// The commit thread's connection.
    private let writer: PostgresLink
    private let readers: PostgresLinkPool
    /// The health probe's connection, with short time-outs of its own.
    private let prober: PostgresLink

    /// Connects, then creates or migrates the tables. Throws `StorageError.unreachable` when the
    /// server cannot be reached, `newerDatabaseSchema` for a database of a newer Boardcast.
    public init(configuration: PostgresStoreConfiguration) throws {
        self.configuration = configuration
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        writer = PostgresLink(configuration: configuration, eventLoop: loop, name: "writer")
        readers = PostgresLinkPool((0..<max(1, configuration.readerConnections)).map {
            PostgresLink(configuration: configuration, eventLoop: loop, name: "reader-\($0)")
        })
        var quick = configuration
        quick.connectTimeout = configuration.probeTimeout
        quick.statementTimeout = configuration.probeTimeout
        prober = PostgresLink(configuration: quick, eventLoop: loop, name: "probe")
        do {
            try writer.withSession { try PostgresSchema.migrate($0, store: configuration.redactedURL) }
        } catch {
            shutDown()
            throw error
        }
    }

    /// Closes every connection and stops the event-loop thread. Calls after this fail.
    public func close() throws {
        shutDown()
    }

    private func shutDown() {
        writer.close()
        readers.close()
        prober.close()
        try? group.syncShutdownGracefully()
    }

    public func probe() throws {
        try prober.withSession { _ = try $0.query("SELECT 1") }
    }

    // MARK: For tests

    /// Connections the writer has opened: 1 until a lost connection was replaced.
    var writerConnectionsOpened: Int { writer.connections }

    /// A setting as the writer's session sees it (`synchronous_commit`).
    func writerSetting(_ name: String) throws -> String? {
        try writer.withSession { try $0.query(PostgresQuery(unsafeSQL: "SHOW \(name)")).first?.decode(String.self) }
    }

    // MARK: Reads

    private static let gameColumns = "id, kind, options, token_hash, created, updated, status, seq"
    private static let commandColumns = "game, seq, command, player, client_id, time, diff"

    func read<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try readers.withSession(body)
    }

    private func games(_ query: PostgresQuery) throws -> [StoredGame] {
        try read { try $0.query(query).map(decodeGame) }
    }

    public func game(id: String) throws -> StoredGame? {
        try games("SELECT \(unescaped: Self.gameColumns) FROM game WHERE id = \(id)").first
    }

    public func games() throws -> [StoredGame] {
        try games("SELECT \(unescaped: Self.gameColumns) FROM game ORDER BY created, id")
    }

    public func games(updatedSince time: Double) throws -> [StoredGame] {
        try games("SELECT \(unescaped: Self.gameColumns) FROM game WHERE updated >= \(time) ORDER BY updated, id")
    }

    public func recentGames(kind: String?, statuses: [String]?, limit: Int) throws -> [StoredGame] {
        // A NULL filter matches every row: one statement whatever the filters.
        try games("""
            SELECT \(unescaped: Self.gameColumns) FROM game
            WHERE (\(kind)::text IS NULL OR kind = \(kind)) AND (\(statuses)::text[] IS NULL OR status = ANY(\(statuses)))
            ORDER BY updated DESC, id DESC LIMIT \(limit)
            """)
    }

    /// Rows this many at a time, each page a short read: a long game is never held in memory
    /// whole, and a slow `body` does not keep a reader connection.
    static let commandPage = 1000

    public func forEachCommand(game: String, after seq: Int, _ body: (StoredCommand) throws -> Void) throws {
        var after = seq
        while true {
            let page = try read { session in
                try session.query("""
                    SELECT \(unescaped: Self.commandColumns) FROM command
                    WHERE game = \(game) AND seq > \(after) ORDER BY seq LIMIT \(Self.commandPage)
                    """).map(decodeCommand)
            }
            for command in page {
                try body(command)
                after = command.seq
            }
            if page.count < Self.commandPage { return }
        }
    }

    public func diffs(game: String, after seq: Int, limit: Int) throws -> [String] {
        let rows = try read { session in
            try session.query("SELECT seq, diff FROM command WHERE game = \(game) AND seq > \(seq) ORDER BY seq LIMIT \(limit)")
                .map { try $0.decode((Int, String?).self) }
        }
        var diffs: [String] = []
        for (offset, row) in rows.enumerated() {
            guard row.0 == seq + 1 + offset, let diff = row.1 else { break }
            diffs.append(diff)
        }
        return diffs
    }

    public func fillDiffs(game: String, _ diffs: [(seq: Int, diff: String)]) throws {
        guard !diffs.isEmpty else { return }
        _ = try read { session in
            try session.query("""
                UPDATE command SET diff = filled.diff
                FROM unnest(\(diffs.map(\.seq))::bigint[], \(diffs.map(\.diff))::text[]) AS filled (seq, diff)
                WHERE command.game = \(game) AND command.seq = filled.seq AND command.diff IS NULL
                """)
        }
    }

    public func command(game: String, clientID: String) throws -> StoredCommand? {
        try read { session in
            try session.query("""
                SELECT \(unescaped: Self.commandColumns) FROM command
                WHERE game = \(game) AND client_id = \(clientID) ORDER BY seq LIMIT 1
                """).first.map(decodeCommand)
        }
    }

    public func provenSeeds() throws -> [ProvenSeed] {
        try read { session in
            try session.query("SELECT pool, seed FROM proven_seed ORDER BY pool, seed").map {
                let (pool, seed) = try $0.decode((Int, Int64).self)
                return ProvenSeed(pool: pool, seed: UInt64(bitPattern: seed))
            }
        }
    }

    public func meta(_ key: String) throws -> String? {
        try read { try $0.query("SELECT value FROM meta WHERE key = \(key)").first?.decode(String.self) }
    }

    public func setMeta(_ key: String, _ value: String) throws {
        _ = try read { session in
            try session.query("""
                INSERT INTO meta (key, value) VALUES (\(key), \(value))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """)
        }
    }

    public func usage() throws -> StorageUsage {
        let sizes = PostgresSchema.tables.map { "pg_total_relation_size('\($0)')" }.joined(separator: " + ")
        return try read { session in
            let row = try session.query("SELECT (SELECT count(*) FROM game), (\(unescaped: sizes))::bigint").first
            guard let (games, bytes) = try row?.decode((Int, Int64).self) else { return StorageUsage(games: 0, bytes: 0) }
            return StorageUsage(games: games, bytes: bytes)
        }
    }

    // MARK: Writes

    /// One statement, `boardcast_write` (see `PostgresSchema`), which is one transaction and one
    /// round trip whatever the batch's size: rows travel as arrays, one per column, and are
    /// spread by UNNEST. It locks the rows of every game the batch names, in id order, refuses
    /// what `BatchPlan`'s rules refuse, and writes the rest.
    ///
    /// The lock is what makes the fence safe: a claim (an UPDATE of the same row) waits for this
    /// transaction to end, and this transaction waits for a claim in flight, then reads the
    /// owner it wrote.
    @discardableResult
    public func write(_ batch: StoreBatch) throws -> WriteOutcome {
        guard !batch.isEmpty else { return WriteOutcome() }
        let plan = try BatchPlan(batch)
        let games = plan.createdGames + plan.updatedGames
        let columns = GameColumns(games)
        let creates = plan.createdGames.map { _ in true } + plan.updatedGames.map { _ in false }
        let epochs = games.map { plan.fence?.startingEpoch(of: $0.id) ?? 0 }
        let commands = plan.commands
        let chat = plan.chat
        let query: PostgresQuery = """
            SELECT refused_game, refusal, refused_owner, refused_epoch FROM boardcast_write(
                \(plan.fence?.node)::text, \(plan.lockOrder)::text[],
                \(plan.fenced.map(\.game))::text[], \(plan.fenced.map(\.epoch))::bigint[],
                \(columns.ids)::text[], \(columns.kinds)::text[], \(columns.options)::text[], \(columns.tokenHashes)::text[],
                \(columns.created)::float8[], \(columns.updated)::float8[], \(columns.statuses)::text[], \(columns.seqs)::bigint[],
                \(creates)::boolean[], \(epochs)::bigint[],
                \(commands.map(\.game))::text[], \(commands.map(\.seq))::bigint[], \(commands.map(\.command.encoded))::text[],
                \(commands.map(\.player))::text[], \(NullableTextArray(commands.map(\.clientID)))::text[],
                \(commands.map(\.time))::float8[], \(NullableTextArray(commands.map(\.diff)))::text[],
                \(plan.touches.map(\.game))::text[], \(plan.touches.map(\.time))::float8[],
                \(plan.seedsAdded.map(\.pool))::integer[], \(plan.seedsAdded.map { Int64(bitPattern: $0.seed) })::bigint[],
                \(plan.seedsTaken.map(\.pool))::integer[], \(plan.seedsTaken.map { Int64(bitPattern: $0.seed) })::bigint[],
                \(chat.map(\.game))::text[], \(chat.map { Int64($0.number) })::bigint[], \(chat.map { Int64($0.seq) })::bigint[],
                \(chat.map(\.room))::text[], \(chat.map(\.by))::text[], \(chat.map(\.text))::text[],
                \(chat.map(\.at))::float8[])
            """
        // Between BEGIN and COMMIT, not alone: postgres-nio reports a statement done at its
        // CommandComplete, and a statement outside a transaction commits only after that, at the
        // Sync behind it. A server going down in between (a fast shutdown) rolls it back though
        // the statement "succeeded": acked moves missing from the store, a hole no load gets past.
        // A COMMIT's CommandComplete comes after the commit.
        let rows = try writer.withSession { session in try session.transaction { try session.query(query) } }
        var refused: [String: WriteRefusal] = [:]
        for row in rows {
            let (game, refusal, owner, epoch) = try row.decode((String, String, String?, Int64?).self)
            switch refusal {
            case "idTaken": refused[game] = .idTaken
            case "noSuchGame": refused[game] = .noSuchGame
            default: refused[game] = .notOwner(current: GameOwnership(node: owner, epoch: epoch ?? 0))
            }
        }
        return WriteOutcome(refused: refused)
    }

    public func deleteUntouched(before time: Double, limit: Int) throws -> [String] {
        guard limit > 0 else { return [] }
        return try read { session in
            try session.transaction {
                // SKIP LOCKED: a game a node is writing right now is being touched; it is not taken.
                let ids = try session.query("""
                    SELECT id FROM game WHERE updated < \(time) AND touched < \(time) ORDER BY updated, id LIMIT \(limit)
                       FOR UPDATE SKIP LOCKED
                    """).map { try $0.decode(String.self) }
                guard !ids.isEmpty else { return [] }
                try session.query("DELETE FROM command WHERE game = ANY(\(ids))")
                try session.query("DELETE FROM chat WHERE game = ANY(\(ids))")
                try session.query("DELETE FROM game WHERE id = ANY(\(ids))")
                return ids
            }
        }
    }

    // MARK: Ownership

    public func ownership(of game: String) throws -> GameOwnership? {
        try read { session in
            try session.query("SELECT owner, epoch FROM game WHERE id = \(game)").first.map {
                let (owner, epoch) = try $0.decode((String?, Int64).self)
                return GameOwnership(node: owner, epoch: epoch)
            }
        }
    }

    public func claim(game: String, node: String, expectedEpoch: Int64) throws -> ClaimOutcome {
        // In a transaction for the same reason as `write`: a claim reported done is committed.
        try read { session in try session.transaction {
            // The WHERE is re-checked on the row's latest version after any lock wait (READ
            // COMMITTED), so of two claims at one epoch the second finds it moved and changes nothing.
            let claimed = try session.query("""
                UPDATE game SET owner = \(node), epoch = epoch + 1
                WHERE id = \(game) AND epoch = \(expectedEpoch) RETURNING epoch
                """).first
            if let claimed { return .claimed(GameOwnership(node: node, epoch: try claimed.decode(Int64.self))) }
            let current = try session.query("SELECT owner, epoch FROM game WHERE id = \(game)").first
            guard let current else { return .notFound }
            let (owner, epoch) = try current.decode((String?, Int64).self)
            return .lost(current: GameOwnership(node: owner, epoch: epoch))
        } }
    }

    public func release(game: String, node: String, epoch: Int64) throws -> Bool {
        try read { session in try session.transaction {
            let result = try session.query("""
                UPDATE game SET owner = NULL, epoch = epoch + 1
                WHERE id = \(game) AND owner = \(node) AND epoch = \(epoch)
                """)
            return result.metadata.rows == 1
        } }
    }

    // MARK: Decoding

    private func decodeGame(_ row: PostgresRow) throws -> StoredGame {
        let (id, kind, options, tokenHash, created, updated, status, seq) =
            try row.decode((String, String, String, String, Double, Double, String, Int).self)
        return StoredGame(
            id: id, kind: kind, options: try decodeJSON(options, what: "options of game \(id)"),
            tokenHash: tokenHash, created: created, updated: updated, status: status, seq: seq)
    }

    private func decodeCommand(_ row: PostgresRow) throws -> StoredCommand {
        let (game, seq, command, player, clientID, time, diff) =
            try row.decode((String, Int, String, String, String?, Double, String?).self)
        return StoredCommand(
            game: game, seq: seq, command: try decodeJSON(command, what: "command \(seq) of game \(game)"),
            player: player, clientID: clientID, time: time, diff: diff)
    }

    private func decodeJSON(_ text: String, what: String) throws -> JSON {
        do {
            return try JSONText.parse(text)
        } catch {
            throw StorageError.unreadableRow(store: configuration.redactedURL, detail: "the \(what) is not JSON: \(error)")
        }
    }
}

/// Game rows as one array per column, the parameters of an UNNEST insert.
private struct GameColumns {
    var ids: [String] = []
    var kinds: [String] = []
    var options: [String] = []
    var tokenHashes: [String] = []
    var created: [Double] = []
    var updated: [Double] = []
    var statuses: [String] = []
    var seqs: [Int] = []

    init(_ games: [StoredGame]) {
        for game in games {
            ids.append(game.id)
            kinds.append(game.kind)
            options.append(game.options.encoded)
            tokenHashes.append(game.tokenHash)
            created.append(game.created)
            updated.append(game.updated)
            statuses.append(game.status)
            seqs.append(game.seq)
        }
    }
}
