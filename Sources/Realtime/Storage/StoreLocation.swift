import Foundation

/// Where a server keeps its games, from one flag's value: a directory for SQLite (`--data`),
/// `:memory:`, or a `postgresql://` (or `postgres://`) URL for a database that nodes share (`--store`).
public enum StoreLocation: Sendable, Equatable {
    case sqlite(directory: String)
    case sqliteInMemory
    case postgres(PostgresStoreConfiguration)

    /// `postgresql://USER[:PASSWORD]@HOST[:PORT]/DB` or `postgres://...` is PostgreSQL (PORT
    /// defaults to 5432; user and password may be percent-encoded); `:memory:` is an SQLite
    /// store that keeps nothing; any other text without `://` is an SQLite data directory.
    public static func parse(_ text: String) throws -> StoreLocation {
        if text == ":memory:" { return .sqliteInMemory }
        guard let schemeEnd = text.range(of: "://") else {
            guard !text.isEmpty else { throw StoreLocationError(text: text, reason: "it is empty") }
            return .sqlite(directory: text)
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard PostgresStoreConfiguration.schemes.contains(scheme) else {
            throw StoreLocationError(text: text, reason: "\(scheme):// is not a store this server knows (postgresql:// is)")
        }
        return .postgres(try PostgresStoreConfiguration(url: text))
    }
}

/// A store location that cannot be used as written. The description never repeats a password.
public struct StoreLocationError: Error, Equatable, CustomStringConvertible {
    public var text: String
    public var reason: String

    public var description: String {
        "cannot use the store \(PostgresStoreConfiguration.withoutPassword(text)): \(reason); "
            + "expected postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE or a data directory"
    }
}

/// How to reach a PostgreSQL database, and how the store uses it.
public struct PostgresStoreConfiguration: Sendable, Equatable {
    static let schemes: Set<String> = ["postgresql", "postgres"]

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// Connections for reads, claims and maintenance; the writer has one more of its own, so a
    /// commit never waits behind a read.
    public var readerConnections = 2
    /// Seconds the health probe waits to connect, and for its `SELECT 1` (PROTOCOL 11.1: a node
    /// that cannot reach its store says so within 2 s).
    public var probeTimeout = 0.8
    /// Seconds to wait for a connection to open.
    public var connectTimeout = 5.0
    /// Seconds to wait for one statement's answer before the connection is given up as lost.
    public var statementTimeout = 10.0

    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    public init(url: String) throws {
        func fail(_ reason: String) -> StoreLocationError { StoreLocationError(text: url, reason: reason) }
        guard let components = URLComponents(string: url) else { throw fail("it is not a URL") }
        guard let scheme = components.scheme?.lowercased(), Self.schemes.contains(scheme) else {
            throw fail("the scheme must be postgresql:// or postgres://")
        }
        guard let user = components.user, !user.isEmpty else { throw fail("it names no user (USER@HOST)") }
        guard let host = components.host, !host.isEmpty else { throw fail("it names no host") }
        if let port = components.port, !(1...65535).contains(port) { throw fail("the port \(port) is out of range") }
        guard components.query == nil, components.fragment == nil else {
            throw fail("options after ? or # are not supported")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw fail("it names no database (/DATABASE after the host)") }
        guard !database.contains("/"), let decoded = database.removingPercentEncoding else {
            throw fail("the database name \(database) is not one name")
        }
        self.init(host: host, port: components.port ?? 5432, user: user, password: components.password,
                  database: decoded)
    }

    /// The URL without the password: what messages and logs show.
    public var redactedURL: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "postgresql://\(user)@\(host):\(port)/\(database)"
    }

    /// `text` with anything between `user:` and `@` hidden, for a message about a URL that failed to parse.
    static func withoutPassword(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://"),
              let at = text[schemeEnd.upperBound...].lastIndex(of: "@"),
              let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }
}
