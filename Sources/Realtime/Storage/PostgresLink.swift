import Foundation
import Logging
import PostgresNIO

/// One PostgreSQL connection, used through blocking calls from the store's threads (the commit
/// thread, the readers), never from an event-loop thread.
///
/// postgres-nio runs the connection on a SwiftNIO event loop: a statement is handed to the
/// loop, which sends it and collects the answer into a future; the calling thread blocks in
/// `EventLoopFuture.wait()` until the loop fulfils it. `wait()` refuses to run on an event-loop
/// thread, so the bridge cannot block the loop it waits for.
///
/// A lost connection is dropped, the call throws `StorageError.unreachable`, and a later call
/// connects again: the store rides out a restart of the server with no action of its own.
// @unchecked Sendable: `open` and `connections` are read and written only while `lock` is held,
// which `withSession` keeps for the whole call; the rest is immutable.
final class PostgresLink: @unchecked Sendable {
    private let configuration: PostgresStoreConfiguration
    private let eventLoop: any EventLoop
    private let logger: Logger
    private let name: String
    private let lock = NSLock()
    private var open: OpenConnection?
    /// Set by `close()`: the event loop is about to stop, so the link never connects again.
    private var closed = false
    /// Connections attempted so far: the id of the next one, and what tests read to see a reconnection.
    private(set) var connections = 0

    init(configuration: PostgresStoreConfiguration, eventLoop: any EventLoop, name: String) {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.name = name
        var logger = Logger(label: "boardcast.postgres")
        // postgres-nio logs each query at debug; the store reports what matters through its errors.
        logger.logLevel = .warning
        self.logger = logger
    }

    /// Runs `body` with this link's connection to itself, connecting first when there is none
    /// or the server closed it. A connection found closed before the first statement was sent
    /// (the server restarted while it was idle) is replaced and `body` runs again: nothing was
    /// done on it. Once a statement is sent, a lost connection throws: it may have been carried
    /// out (a write's one statement may have committed), so only the caller can decide.
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        var reused = open.map { !$0.connection.isClosed } ?? false
        while true {
            let session = PostgresSession(try connected(), link: self)
            do {
                return try body(session)
            } catch {
                guard session.lostConnection else { throw error }
                drop()
                guard reused, session.sentStatements == 0 else { throw error }
                reused = false
            }
        }
    }

    /// Closes the connection, waiting until it is closed; later calls throw.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        closed = true
        drop()
    }

    private func connected() throws -> OpenConnection {
        guard !closed else { throw StorageError.unreachable(store: configuration.redactedURL, detail: "the store is closed") }
        if let open, !open.connection.isClosed { return open }
        drop()
        var options = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.user,
            password: configuration.password, database: configuration.database, tls: .disable)
        options.options.connectTimeout = .milliseconds(Int64(configuration.connectTimeout * 1000))
        // Set at connection start, whatever the server's default: a commit returns only once it
        // is on disk (durability), and the server's view of sessions names them.
        options.options.additionalStartupParameters = [
            ("synchronous_commit", "on"), ("application_name", "boardcast-\(name)"),
        ]
        connections += 1
        do {
            let connection = try PostgresConnection.connect(
                on: eventLoop, configuration: options, id: connections, logger: logger
            ).wait()
            let opened = OpenConnection(connection)
            open = opened
            return opened
        } catch {
            throw classify(error)
        }
    }

    /// Waits for the close: postgres-nio requires a connection closed before it is released.
    private func drop() {
        if let open { try? (open.connection.close() as EventLoopFuture<Void>).wait() }
        open = nil
    }

    fileprivate var statementTimeout: TimeAmount { .milliseconds(Int64(configuration.statementTimeout * 1000)) }

    /// The store's error for a postgres-nio or NIO error: a server's refusal of a statement, or
    /// a connection that cannot be used (refused, lost, timed out).
    fileprivate func classify(_ error: any Error) -> StorageError {
        let store = configuration.redactedURL
        if let error = error as? StorageError { return error }
        if let error = error as? UnansweredStatement { return .unreachable(store: store, detail: error.description) }
        guard let error = error as? PSQLError else { return .unreachable(store: store, detail: "\(error)") }
        guard error.code == .server, let info = error.serverInfo else {
            let cause = error.underlying.map { ": \($0)" } ?? ""
            return .unreachable(store: store, detail: "\(error.code)\(cause)")
        }
        let state = info[.sqlState] ?? ""
        var detail = "\(info[.message] ?? "an error") (SQLSTATE \(state))"
        if let more = info[.detail] { detail += ": \(more)" }
        // Class 08 is a connection failure; 57P01-57P03 a server shutting down or starting up.
        if state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) {
            return .unreachable(store: store, detail: detail)
        }
        return .refused(store: store, detail: detail)
    }
}

/// A connection and the one statement waiting on it.
///
/// postgres-nio fulfils a statement's future when the server answers or the connection fails
/// under it, but a statement handed to a connection that has just closed is dropped with its
/// future never fulfilled, and a thread waiting on it would wait forever. So each statement is
/// waited for through a promise of the link's own, which the connection's close and the
/// statement timeout fail as well.
// @unchecked Sendable: `waiting` and `closed` are read and written only while `lock` is held
// (from the calling thread and from the event loop's close callback).
private final class OpenConnection: @unchecked Sendable {
    let connection: PostgresConnection
    private let lock = NSLock()
    private var waiting: EventLoopPromise<PostgresQueryResult>?
    private var closed = false

    init(_ connection: PostgresConnection) {
        self.connection = connection
        connection.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            lock.lock()
            closed = true
            let promise = waiting
            lock.unlock()
            promise?.fail(UnansweredStatement.connectionClosed)
        }
    }

    /// Whether the connection is known closed: a statement would never reach the server.
    var isKnownClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed || connection.isClosed
    }

    /// Runs one statement, blocking until it is answered, the connection closes, or `timeout` passes
    /// (which closes the connection: its state is unknown).
    func run(_ query: PostgresQuery, timeout: TimeAmount) throws -> PostgresQueryResult {
        let answer = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        lock.lock()
        let alreadyClosed = closed
        if !alreadyClosed { waiting = answer }
        lock.unlock()
        guard !alreadyClosed else {
            // Never handed to postgres-nio, which would drop it (and leak its future).
            answer.fail(UnansweredStatement.connectionClosed)
            return try answer.futureResult.wait()
        }
        defer {
            lock.lock()
            waiting = nil
            lock.unlock()
        }
        let connection = self.connection
        let timer = connection.eventLoop.scheduleTask(in: timeout) {
            answer.fail(UnansweredStatement.timedOut(timeout))
            _ = connection.close() as EventLoopFuture<Void>
        }
        defer { timer.cancel() }
        // A second completion of `answer` (the server's answer after a failure) is ignored by NIO.
        connection.query(query, logger: connection.logger).cascade(to: answer)
        return try answer.futureResult.wait()
    }
}

/// Why a statement got no answer from the server.
fileprivate enum UnansweredStatement: Error, CustomStringConvertible {
    case connectionClosed
    case timedOut(TimeAmount)

    var description: String {
        switch self {
        case .connectionClosed: return "the connection closed"
        case .timedOut(let timeout): return "no answer within \(Double(timeout.nanoseconds) / 1e9) s"
        }
    }
}

/// A link's connection as the caller of `PostgresLink.withSession` sees it: statements that
/// block until answered, and transactions. Not Sendable: it lives on the thread holding its link.
final class PostgresSession {
    private let open: OpenConnection
    private let link: PostgresLink
    /// How many statements this session has sent to the server.
    private(set) var sentStatements = 0
    /// A statement failed for want of a connection: the link must not use this one again.
    private(set) var lostConnection = false

    fileprivate init(_ open: OpenConnection, link: PostgresLink) {
        self.open = open
        self.link = link
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> PostgresQueryResult {
        guard !open.isKnownClosed else {
            lostConnection = true
            throw link.classify(UnansweredStatement.connectionClosed)
        }
        sentStatements += 1
        do {
            return try open.run(query, timeout: link.statementTimeout)
        } catch {
            let classified = link.classify(error)
            if case .unreachable = classified { lostConnection = true }
            throw classified
        }
    }

    /// Runs `body` between BEGIN and COMMIT; on an error, rolls back and rethrows. A COMMIT that
    /// fails with the connection lost leaves the outcome unknown: the error says the server is
    /// unreachable, and a caller reads back what is stored.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try query("BEGIN")
        let result: T
        do {
            result = try body()
        } catch {
            if !lostConnection {
                // End the failed transaction so the next call can use the connection; if even that
                // fails, the connection is marked lost and the link drops it. The first error is the news.
                _ = try? query("ROLLBACK")
            }
            throw error
        }
        try query("COMMIT")
        return result
    }
}
