/// Why the game store cannot be used. Each description tells an operator what to do:
/// the server prints it and stops rather than start on, or over, data it cannot trust.
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
        }
    }
}
