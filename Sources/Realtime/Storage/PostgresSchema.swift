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
        // are TEXT, not jsonb (jsonb would reorder keys and rewrite numbers). `updated` (the last
        // command) and `touched` (the last join or watch) are retention's clock; `touched` is not
        // indexed, so a move changes one index entry, not two. `owner` and `epoch` are the fence
        // (PROTOCOL 11.1). Commands are clustered by their primary key (game, seq), so a replay
        // is one range scan.
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
            // Chat (PROTOCOL section 15), kept with its game, clustered by (game, number).
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
            writeFunctionV1,
        ]),
        // The pool of proven seeds under names of no game (`proven_seed (pool, seed)`, its rows
        // kept), and the write function again to match: its parameters cannot be renamed in place.
        Migration(version: 2, name: "proven-seed", statements: [
            "ALTER TABLE winnable_seed RENAME TO proven_seed",
            "ALTER TABLE proven_seed RENAME COLUMN draw TO pool",
            "DROP FUNCTION boardcast_write",
            writeFunction,
        ]),
    ]

    /// A batch written in one statement: one round trip and one transaction per batch, and the
    /// statements inside are planned once per connection (PL/pgSQL keeps their plans), where
    /// five statements from the client would cost five round trips and five plans.
    ///
    /// Every look-up of `game` is by primary key (`id = ANY(...)`, a handful of ids), so its cost
    /// follows the batch, not the table. A plan is kept for the connection's life, and one made
    /// while the table was small would scan it whole: `enable_seqscan = off`, for this function
    /// only, keeps the index (the foreign key's look-ups, planned inside it, too).
    ///
    /// It applies `BatchPlan`'s rules under the rows' locks: it locks every game the batch names
    /// in id order (`lock_ids`), refuses created games whose id is stored and fenced games
    /// whose owner or epoch differ from the fence (or that are gone), inserts the created games
    /// (an id another node inserted meanwhile is refused too), upserts the other games' rows,
    /// inserts the commands, applies touches and seeds, all but the refused games' rows, and
    /// returns one row per refused game. Rows come as one array per column (`row_*`: game rows,
    /// `cmd_*`: commands).
    static let writeFunction = """
        CREATE FUNCTION boardcast_write(
            writer text, lock_ids text[], fenced_ids text[], fenced_epochs bigint[],
            row_ids text[], row_kinds text[], row_options text[], row_token_hashes text[],
            row_created double precision[], row_updated double precision[], row_statuses text[], row_seqs bigint[],
            row_creates boolean[], row_epochs bigint[],
            cmd_games text[], cmd_seqs bigint[], cmd_texts text[], cmd_players text[], cmd_client_ids text[],
            cmd_times double precision[], cmd_diffs text[],
            touch_ids text[], touch_times double precision[],
            added_pools integer[], added_seeds bigint[], taken_pools integer[], taken_seeds bigint[],
            chat_games text[], chat_numbers bigint[], chat_seqs bigint[], chat_rooms text[], chat_bys text[],
            chat_texts text[], chat_ats double precision[])
        RETURNS TABLE (refused_game text, refusal text, refused_owner text, refused_epoch bigint)
        LANGUAGE plpgsql
        SET enable_seqscan = off
        AS $$
        DECLARE
            created_ids text[] := ARRAY(SELECT c.id FROM unnest(row_ids, row_creates) AS c (id, creates) WHERE c.creates);
            refused_ids text[];
            refusals text[];
            owners text[];
            epochs bigint[];
            taken_ids text[];
            late_ids text[];
        BEGIN
            PERFORM 1 FROM game WHERE game.id = ANY(lock_ids) ORDER BY game.id FOR UPDATE;

            SELECT coalesce(array_agg(r.id), '{}'), coalesce(array_agg(r.why), '{}'),
                   coalesce(array_agg(r.owner), '{}'), coalesce(array_agg(r.epoch), '{}')
              INTO refused_ids, refusals, owners, epochs
              FROM (SELECT g.id, 'idTaken' AS why, g.owner, g.epoch FROM game g WHERE g.id = ANY(created_ids)
                    UNION ALL
                    SELECT f.id, CASE WHEN g.id IS NULL THEN 'noSuchGame' ELSE 'notOwner' END, g.owner, g.epoch
                      FROM unnest(fenced_ids, fenced_epochs) AS f (id, epoch)
                      LEFT JOIN (SELECT game.id, game.owner, game.epoch FROM game WHERE game.id = ANY(fenced_ids)) AS g
                        ON g.id = f.id
                     WHERE g.id IS NULL OR g.owner IS DISTINCT FROM writer OR g.epoch <> f.epoch) AS r;

            WITH inserted AS (
                INSERT INTO game (id, kind, options, token_hash, created, updated, status, seq, touched, owner, epoch)
                SELECT r.id, r.kind, r.options, r.token_hash, r.created, r.updated, r.status, r.seq, r.updated, writer, r.epoch
                  FROM unnest(row_ids, row_kinds, row_options, row_token_hashes, row_created, row_updated, row_statuses,
                              row_seqs, row_creates, row_epochs)
                       AS r (id, kind, options, token_hash, created, updated, status, seq, creates, epoch)
                 WHERE r.creates AND r.id <> ALL (refused_ids)
                 ORDER BY r.id
                ON CONFLICT (id) DO NOTHING
                RETURNING game.id)
            SELECT coalesce(array_agg(c.id), '{}') INTO late_ids
              FROM unnest(row_ids, row_creates) AS c (id, creates)
             WHERE c.creates AND c.id <> ALL (refused_ids) AND c.id NOT IN (SELECT inserted.id FROM inserted);
            refused_ids := refused_ids || late_ids;
            refusals := refusals || array_fill('idTaken'::text, ARRAY[cardinality(late_ids)]);
            owners := owners || array_fill(NULL::text, ARRAY[cardinality(late_ids)]);
            epochs := epochs || array_fill(NULL::bigint, ARRAY[cardinality(late_ids)]);
            SELECT coalesce(array_agg(x.id), '{}') INTO taken_ids
              FROM unnest(refused_ids, refusals) AS x (id, why) WHERE x.why = 'idTaken';

            INSERT INTO game (id, kind, options, token_hash, created, updated, status, seq, touched)
            SELECT r.id, r.kind, r.options, r.token_hash, r.created, r.updated, r.status, r.seq, r.updated
              FROM unnest(row_ids, row_kinds, row_options, row_token_hashes, row_created, row_updated, row_statuses,
                          row_seqs, row_creates)
                   AS r (id, kind, options, token_hash, created, updated, status, seq, creates)
             WHERE NOT r.creates AND r.id <> ALL (refused_ids)
             ORDER BY r.id
            ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, options = excluded.options,
                token_hash = excluded.token_hash, created = excluded.created, updated = excluded.updated,
                status = excluded.status, seq = excluded.seq;

            INSERT INTO command (game, seq, command, player, client_id, time, diff)
            SELECT c.game, c.seq, c.command, c.player, c.client_id, c.time, c.diff
              FROM unnest(cmd_games, cmd_seqs, cmd_texts, cmd_players, cmd_client_ids, cmd_times, cmd_diffs)
                   AS c (game, seq, command, player, client_id, time, diff)
             WHERE c.game <> ALL (refused_ids);

            IF cardinality(chat_games) > 0 THEN
                INSERT INTO chat (game, number, seq, room, by, text, at)
                SELECT c.game, c.number, c.seq, c.room, c.by, c.text, c.at
                  FROM unnest(chat_games, chat_numbers, chat_seqs, chat_rooms, chat_bys, chat_texts, chat_ats)
                       AS c (game, number, seq, room, by, text, at)
                 WHERE c.game <> ALL (refused_ids);
            END IF;

            IF cardinality(touch_ids) > 0 THEN
                UPDATE game SET touched = GREATEST(game.touched, t.time)
                  FROM unnest(touch_ids, touch_times) AS t (id, time)
                 WHERE game.id = ANY(touch_ids) AND game.id = t.id AND t.id <> ALL (taken_ids);
            END IF;
            IF cardinality(added_pools) > 0 THEN
                INSERT INTO proven_seed (pool, seed) SELECT * FROM unnest(added_pools, added_seeds) ON CONFLICT DO NOTHING;
            END IF;
            IF cardinality(taken_pools) > 0 THEN
                DELETE FROM proven_seed p USING unnest(taken_pools, taken_seeds) AS s (pool, seed)
                 WHERE p.pool = s.pool AND p.seed = s.seed;
            END IF;
            RETURN QUERY SELECT * FROM unnest(refused_ids, refusals, owners, epochs);
        END
        $$
        """


    /// `writeFunction` as migration 1 made it, with the pool table's first names: kept as released.
    static let writeFunctionV1 = """
        CREATE FUNCTION boardcast_write(
            writer text, lock_ids text[], fenced_ids text[], fenced_epochs bigint[],
            row_ids text[], row_kinds text[], row_options text[], row_token_hashes text[],
            row_created double precision[], row_updated double precision[], row_statuses text[], row_seqs bigint[],
            row_creates boolean[], row_epochs bigint[],
            cmd_games text[], cmd_seqs bigint[], cmd_texts text[], cmd_players text[], cmd_client_ids text[],
            cmd_times double precision[], cmd_diffs text[],
            touch_ids text[], touch_times double precision[],
            added_draws integer[], added_seeds bigint[], taken_draws integer[], taken_seeds bigint[],
            chat_games text[], chat_numbers bigint[], chat_seqs bigint[], chat_rooms text[], chat_bys text[],
            chat_texts text[], chat_ats double precision[])
        RETURNS TABLE (refused_game text, refusal text, refused_owner text, refused_epoch bigint)
        LANGUAGE plpgsql
        SET enable_seqscan = off
        AS $$
        DECLARE
            created_ids text[] := ARRAY(SELECT c.id FROM unnest(row_ids, row_creates) AS c (id, creates) WHERE c.creates);
            refused_ids text[];
            refusals text[];
            owners text[];
            epochs bigint[];
            taken_ids text[];
            late_ids text[];
        BEGIN
            PERFORM 1 FROM game WHERE game.id = ANY(lock_ids) ORDER BY game.id FOR UPDATE;

            SELECT coalesce(array_agg(r.id), '{}'), coalesce(array_agg(r.why), '{}'),
                   coalesce(array_agg(r.owner), '{}'), coalesce(array_agg(r.epoch), '{}')
              INTO refused_ids, refusals, owners, epochs
              FROM (SELECT g.id, 'idTaken' AS why, g.owner, g.epoch FROM game g WHERE g.id = ANY(created_ids)
                    UNION ALL
                    SELECT f.id, CASE WHEN g.id IS NULL THEN 'noSuchGame' ELSE 'notOwner' END, g.owner, g.epoch
                      FROM unnest(fenced_ids, fenced_epochs) AS f (id, epoch)
                      LEFT JOIN (SELECT game.id, game.owner, game.epoch FROM game WHERE game.id = ANY(fenced_ids)) AS g
                        ON g.id = f.id
                     WHERE g.id IS NULL OR g.owner IS DISTINCT FROM writer OR g.epoch <> f.epoch) AS r;

            WITH inserted AS (
                INSERT INTO game (id, kind, options, token_hash, created, updated, status, seq, touched, owner, epoch)
                SELECT r.id, r.kind, r.options, r.token_hash, r.created, r.updated, r.status, r.seq, r.updated, writer, r.epoch
                  FROM unnest(row_ids, row_kinds, row_options, row_token_hashes, row_created, row_updated, row_statuses,
                              row_seqs, row_creates, row_epochs)
                       AS r (id, kind, options, token_hash, created, updated, status, seq, creates, epoch)
                 WHERE r.creates AND r.id <> ALL (refused_ids)
                 ORDER BY r.id
                ON CONFLICT (id) DO NOTHING
                RETURNING game.id)
            SELECT coalesce(array_agg(c.id), '{}') INTO late_ids
              FROM unnest(row_ids, row_creates) AS c (id, creates)
             WHERE c.creates AND c.id <> ALL (refused_ids) AND c.id NOT IN (SELECT inserted.id FROM inserted);
            refused_ids := refused_ids || late_ids;
            refusals := refusals || array_fill('idTaken'::text, ARRAY[cardinality(late_ids)]);
            owners := owners || array_fill(NULL::text, ARRAY[cardinality(late_ids)]);
            epochs := epochs || array_fill(NULL::bigint, ARRAY[cardinality(late_ids)]);
            SELECT coalesce(array_agg(x.id), '{}') INTO taken_ids
              FROM unnest(refused_ids, refusals) AS x (id, why) WHERE x.why = 'idTaken';

            INSERT INTO game (id, kind, options, token_hash, created, updated, status, seq, touched)
            SELECT r.id, r.kind, r.options, r.token_hash, r.created, r.updated, r.status, r.seq, r.updated
              FROM unnest(row_ids, row_kinds, row_options, row_token_hashes, row_created, row_updated, row_statuses,
                          row_seqs, row_creates)
                   AS r (id, kind, options, token_hash, created, updated, status, seq, creates)
             WHERE NOT r.creates AND r.id <> ALL (refused_ids)
             ORDER BY r.id
            ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, options = excluded.options,
                token_hash = excluded.token_hash, created = excluded.created, updated = excluded.updated,
                status = excluded.status, seq = excluded.seq;

            INSERT INTO command (game, seq, command, player, client_id, time, diff)
            SELECT c.game, c.seq, c.command, c.player, c.client_id, c.time, c.diff
              FROM unnest(cmd_games, cmd_seqs, cmd_texts, cmd_players, cmd_client_ids, cmd_times, cmd_diffs)
                   AS c (game, seq, command, player, client_id, time, diff)
             WHERE c.game <> ALL (refused_ids);

            IF cardinality(chat_games) > 0 THEN
                INSERT INTO chat (game, number, seq, room, by, text, at)
                SELECT c.game, c.number, c.seq, c.room, c.by, c.text, c.at
                  FROM unnest(chat_games, chat_numbers, chat_seqs, chat_rooms, chat_bys, chat_texts, chat_ats)
                       AS c (game, number, seq, room, by, text, at)
                 WHERE c.game <> ALL (refused_ids);
            END IF;

            IF cardinality(touch_ids) > 0 THEN
                UPDATE game SET touched = GREATEST(game.touched, t.time)
                  FROM unnest(touch_ids, touch_times) AS t (id, time)
                 WHERE game.id = ANY(touch_ids) AND game.id = t.id AND t.id <> ALL (taken_ids);
            END IF;
            IF cardinality(added_draws) > 0 THEN
                INSERT INTO winnable_seed (draw, seed) SELECT * FROM unnest(added_draws, added_seeds) ON CONFLICT DO NOTHING;
            END IF;
            IF cardinality(taken_draws) > 0 THEN
                DELETE FROM winnable_seed w USING unnest(taken_draws, taken_seeds) AS s (draw, seed)
                 WHERE w.draw = s.draw AND w.seed = s.seed;
            END IF;
            RETURN QUERY SELECT * FROM unnest(refused_ids, refusals, owners, epochs);
        END
        $$
        """

    /// Every table the store keeps, for `usage()`.
    static let tables = ["game", "command", "chat", "proven_seed", "meta", "boardcast_migration"]

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
