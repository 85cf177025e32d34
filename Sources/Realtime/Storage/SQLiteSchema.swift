import GRDB

/// The SQLite file's tables, which the server creates and brings up to date itself (as
/// `PostgresSchema` does for a shared store). A file migrated by a newer Boardcast, with a
/// migration this build does not know, is refused before anything is changed.
enum SQLiteSchema {
    /// Migrations are append-only: a released one is never edited, a change is a new one.
    static var migrator: GRDB.DatabaseMigrator {
        var migrator = GRDB.DatabaseMigrator()
        migrator.registerMigration("v1-games-and-commands") { db in
            // STRICT: a wrongly typed value is an error, not silently stored.
            // WITHOUT ROWID: commands are clustered by (game, seq), so a replay is one range scan.
            try db.execute(sql: """
                CREATE TABLE game (
                    id TEXT NOT NULL PRIMARY KEY,
                    kind TEXT NOT NULL,
                    options TEXT NOT NULL,
                    token_hash TEXT NOT NULL,
                    created REAL NOT NULL,
                    updated REAL NOT NULL,
                    status TEXT NOT NULL,
                    seq INTEGER NOT NULL
                ) STRICT;
                CREATE TABLE command (
                    game TEXT NOT NULL REFERENCES game (id),
                    seq INTEGER NOT NULL,
                    command TEXT NOT NULL,
                    player TEXT NOT NULL,
                    client_id TEXT,
                    time REAL NOT NULL,
                    PRIMARY KEY (game, seq)
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX command_client_id ON command (game, client_id) WHERE client_id IS NOT NULL;
                """)
        }
        // Diffs are stored with their commands (an old `since` is a read, not a replay), and
        // games are found by activity (start-up loads the live ones only).
        migrator.registerMigration("v2-diffs-and-activity") { db in
            try db.execute(sql: """
                ALTER TABLE command ADD COLUMN diff TEXT;
                CREATE INDEX game_updated ON game (updated);
                """)
        }
        // The pool of proven seeds (`ProvenSeeds`), so a seed that must be proven is at hand at once
        // (section 12). Released under its first game's name; v7 gives it a generic one.
        migrator.registerMigration("v3-winnable-seeds") { db in
            try db.execute(sql: """
                CREATE TABLE winnable_seed (
                    draw INTEGER NOT NULL,
                    seed INTEGER NOT NULL,
                    PRIMARY KEY (draw, seed)
                ) STRICT, WITHOUT ROWID;
                """)
        }
        // Facts about this data directory that outlive a process: its cluster node code.
        migrator.registerMigration("v4-meta") { db in
            try db.execute(sql: "CREATE TABLE meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) STRICT")
        }
        // Retention (--retain-days): a game's last join or watch. A game is untouched when this and
        // its last command (`updated`, indexed) are both old. Not indexed itself: commands would
        // rewrite that index at every move (18% more bytes written by a move alone).
        migrator.registerMigration("v5-touched") { db in
            try db.execute(sql: """
                ALTER TABLE game ADD COLUMN touched REAL NOT NULL DEFAULT 0;
                UPDATE game SET touched = updated;
                """)
        }
        // Chat (PROTOCOL section 15), kept with its game.
        migrator.registerMigration("v6-chat") { db in try SQLiteGameStore.chatMigration(db) }
        // The pool of proven seeds under names of no game: `proven_seed (pool, seed)`, its rows kept.
        migrator.registerMigration("v7-proven-seed") { db in
            try db.execute(sql: """
                ALTER TABLE winnable_seed RENAME TO proven_seed;
                ALTER TABLE proven_seed RENAME COLUMN draw TO pool;
                """)
        }
        return migrator
    }
}
