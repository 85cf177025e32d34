import PostgresNIO

/// The PostgreSQL tables, which the server creates and brings up to date itself.
///
/// Migrations are append-only, as SQLite's: a released one is never edited, a change is a
/// new one with the next version. `boardcast_migration` records each applied version; a
/// database with a version this build does not know was migrated by a newer Boardcast and
/// is refused before anything is changed.
enum PostgresSchema {
    struct Migration {
        let version: Int
        let name: String
        /// One statement each: the extended protocol takes one statement per query.
        let statements: [String]

        var label: String { "v\(version)-\(name)" }
    }

    static let migrations: [Migration] = [
        // Columns as in SQLite, so both back-ends store the same text: options, commands and diffs
        // are TEXT, not jsonb (jsonb would reorder keys and rewrite numbers). `touched` is retention's
        // clock; `owner` and `epoch` are the fence (PROTOCOL 11.1). Commands are clustered by
        // their primary key (game, seq), so a replay is one range scan.
        Migration(version: 1, name: "games-commands-owners", statements: [
            """
            CREATE TABLE game (
                id text PRIMARY KEY,
                kind text NOT NULL,
                options text NOT NULL,
                token_hash text NOT NULL,
                created double precision NOT NULL,
                updated double precision NOT NULL,
                status text NOT NULL,
                seq bigint NOT NULL,
                touched double precision NOT NULL,
                owner text,
                epoch bigint NOT NULL DEFAULT 0
            )
            """,
            "CREATE INDEX game_updated ON game (updated)",
            "CREATE INDEX game_touched ON game (touched)",
            """
            CREATE TABLE command (
                game text NOT NULL REFERENCES game (id),
                seq bigint NOT NULL,
                command text NOT NULL,
                player text NOT NULL,
                client_id text,
                time double precision NOT NULL,
                diff text,
                PRIMARY KEY (game, seq)
            )
            """,
            "CREATE INDEX command_client_id ON command (game, client_id) WHERE client_id IS NOT NULL",
            "CREATE TABLE winnable_seed (draw integer NOT NULL, seed bigint NOT NULL, PRIMARY KEY (draw, seed))",
            "CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)",
        ]),
        // Chat (PROTOCOL section 15), kept with its game, clustered by (game, number).
        Migration(version: 2, name: "chat", statements: [
            """
            CREATE TABLE chat (
                game text NOT NULL REFERENCES game (id),
                number bigint NOT NULL,
                seq bigint NOT NULL,
                room text NOT NULL,
                by text NOT NULL,
                text text NOT NULL,
                at double precision NOT NULL,
                PRIMARY KEY (game, number)
            )
            """,
        ]),
    ]

    /// Every table the store keeps, for `usage()`.
    static let tables = ["game", "command", "chat", "winnable_seed", "meta", "boardcast_migration"]

    /// An arbitrary key for the advisory lock that lets one node migrate while the others wait.
    private static let migrationLock: Int64 = 0x626f_6172_6463_6173  // "boardcas"

    /// Applies the missing migrations in one transaction, or throws `newerDatabaseSchema` having changed nothing.
    static func migrate(_ session: PostgresSession, store: String) throws {
        try session.transaction {
            // Nodes starting together: the first migrates, the others then find it done.
            try session.query("SELECT pg_advisory_xact_lock(\(migrationLock))")
            try session.query("""
                CREATE TABLE IF NOT EXISTS boardcast_migration (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied timestamptz NOT NULL DEFAULT now()
                )
                """)
            var applied: [Int: String] = [:]
            for row in try session.query("SELECT version, name FROM boardcast_migration") {
                let (version, name) = try row.decode((Int, String).self)
                applied[version] = name
            }
            let known = Set(migrations.map(\.version))
            let unknown = applied.filter { !known.contains($0.key) }.map { "v\($0.key)-\($0.value)" }
            guard unknown.isEmpty else {
                throw StorageError.newerDatabaseSchema(store: store, unknownMigrations: unknown.sorted())
            }
            for migration in migrations where applied[migration.version] == nil {
                for statement in migration.statements {
                    try session.query(PostgresQuery(unsafeSQL: statement))
                }
                try session.query(
                    "INSERT INTO boardcast_migration (version, name) VALUES (\(migration.version), \(migration.name))")
            }
        }
    }
}
