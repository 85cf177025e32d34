import Core
import PostgresNIO

/// A game's chat in the PostgreSQL store: one row per line (PROTOCOL section 15).
extension PostgresGameStore {
    public func recentChat(game: String, limit: Int) throws -> [StoredChat] {
        try read { session in
            try session.query("""
                SELECT game, number, seq, room, by, text, at FROM
                  (SELECT * FROM chat WHERE game = \(game) ORDER BY number DESC LIMIT \(limit)) AS recent ORDER BY number
                """).map(Self.decodeChat)
        }
    }

    public func chat(game: String, after: Int, through: Int, limit: Int) throws -> [StoredChat] {
        try read { session in
            try session.query("""
                SELECT game, number, seq, room, by, text, at FROM chat
                WHERE game = \(game) AND seq > \(after) AND seq <= \(through) ORDER BY number LIMIT \(limit)
                """).map(Self.decodeChat)
        }
    }

    private static func decodeChat(_ row: PostgresRow) throws -> StoredChat {
        let (game, number, seq, room, by, text, at) = try row.decode((String, Int64, Int64, String, String, String, Double).self)
        return StoredChat(game: game, number: Int(number), seq: Int(seq), room: room, by: by, text: text, at: at)
    }
}
