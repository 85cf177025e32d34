/// Why the game store cannot be used, or could not carry out one call. Each description tells
/// an operator what to do. At start-up the server prints it and stops rather than start on, or
/// over, data it cannot trust; later, `unreachable` is passing (moves are refused until the
/// store answers again) and the others point at a bug or a database changed by hand.
public enum StorageError: Error, Equatable, CustomStringConvertible {
    /// The database file is not a readable SQLite database, or fails `PRAGMA quick_check`.
    /// The file has not been changed.
    case damaged(path: String, detail: String)
    /// The database was written by a newer Boardcast (migrations this build does not know).
    case newerSchema(path: String, unknownMigrations: [String])
    /// Another process (a second server) has this data directory open.
    case inUse(path: String)
    /// The directory or file cannot be created, opened or locked (permissions, missing disk...).
    case cannotOpen(path: String, detail: String)
    /// The PostgreSQL database was migrated by a newer Boardcast (migrations this build does not know).
    case newerDatabaseSchema(store: String, unknownMigrations: [String])
    /// The database server cannot be reached, or the connection was lost during the call (which
    /// then wrote nothing, or, for a lost COMMIT, everything: a caller reads back to know).
    /// The store connects again on a later call.
    case unreachable(store: String, detail: String)
    /// The database refused the statement (a constraint, a type): the whole call wrote nothing.
    case refused(store: String, detail: String)
    /// A row holds what this server cannot read (text that is not JSON): changed by hand, or damaged.
    case unreadableRow(store: String, detail: String)
    /// A fenced batch carries a game without the epoch its node holds: a bug in the caller,
    /// so the batch is not written at all rather than written unchecked.
    case unfencedGame(game: String, node: String)

    public var description: String {
        switch self {
        case .damaged(let path, let detail):
            return """
                the game database \(path) is damaged (\(detail)). It has not been changed. \
                To start anyway, stop the server, move \(path) and any \(path)-wal and \(path)-shm \
                beside it to another folder (a new empty database is then created), or restore them \
                from a backup; `sqlite3 DAMAGED.sqlite .recover` may salvage games from the moved copy.
                """
        case .newerSchema(let path, let unknown):
            return """
                the game database \(path) was written by a newer version of Boardcast \
                (unknown schema migrations: \(unknown.sorted().joined(separator: ", "))). \
                Run that newer version, or point --data at another directory.
                """
        case .inUse(let path):
            return """
                the data directory \(path) is in use by another running server. \
                Stop that server or point --data at another directory.
                """
        case .cannotOpen(let path, let detail):
            return "cannot open the game database \(path): \(detail)"
        case .newerDatabaseSchema(let store, let unknown):
            return """
                the game database \(store) was migrated by a newer version of Boardcast \
                (unknown schema migrations: \(unknown.sorted().joined(separator: ", "))). \
                Run that newer version, or point --store at another database.
                """
        case .unreachable(let store, let detail):
            return "the game database \(store) cannot be reached: \(detail)"
        case .refused(let store, let detail):
            return "the game database \(store) refused a statement: \(detail)"
        case .unreadableRow(let store, let detail):
            return "the game database \(store) holds a row this server cannot read: \(detail)"
        case .unfencedGame(let game, let node):
            return "a batch fenced by node \(node) carries game \(game) without its epoch: nothing was written"
        }
    }
}
