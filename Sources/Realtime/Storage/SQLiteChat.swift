import Core
import GRDB

/// A game's chat in the SQLite store: one row per line, clustered by (game, number).
extension SQLiteGameStore {
    static func chatMigration(_ db: GRDB.Database) throws {
        try db.execute(sql: """
            CREATE TABLE chat (
                game TEXT NOT NULL REFERENCES game (id),
                number INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                room TEXT NOT NULL,
                by TEXT NOT NULL,
                text TEXT NOT NULL,
                at REAL NOT NULL,
                PRIMARY KEY (game, number)
            ) STRICT, WITHOUT ROWID;
            """)
    }

    static func insertChat(_ lines: [StoredChat], _ db: GRDB.Database) throws {
        guard !lines.isEmpty else { return }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO chat (game, number, seq, room, by, text, at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for line in lines {
            try insert.execute(arguments: [line.game, line.number, line.seq, line.room, line.by, line.text, line.at])
        }
    }

    public func recentChat(game: String, limit: Int) throws -> [StoredChat] {
        try readChat(sql: """
            SELECT game, number, seq, room, by, text, at FROM
              (SELECT * FROM chat WHERE game = ? ORDER BY number DESC LIMIT ?) ORDER BY number
            """, arguments: [game, limit])
    }

    public func chat(game: String, after: Int, through: Int, limit: Int) throws -> [StoredChat] {
        try readChat(sql: """
            SELECT game, number, seq, room, by, text, at FROM chat
            WHERE game = ? AND seq > ? AND seq <= ? ORDER BY number LIMIT ?
            """, arguments: [game, after, through, limit])
    }

    private func readChat(sql: String, arguments: GRDB.StatementArguments) throws -> [StoredChat] {
        try read { db in
            try GRDB.Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map {
                StoredChat(game: $0[0], number: $0[1], seq: $0[2], room: $0[3], by: $0[4], text: $0[5], at: $0[6])
            }
        }
    }
}
