import Foundation
import Logging

public struct ServerOptions: Sendable {
    public var host: String
    public var port: Int
    /// A directory for the SQLite store, or `:memory:` to keep nothing.
    public var data: String
    public var web: String
    public var pingInterval: Int

    public init(host: String, port: Int, data: String, web: String, pingInterval: Int) {
        self.host = host
        self.port = port
        self.data = data
        self.web = web
        self.pingInterval = pingInterval
    }
}

/// The whole server: lws on the calling thread, the hub, storage's writer thread,
/// and a ticker. Other threads reach the service thread only through `inbox` + `wake`.
public final class BoardcastServer {
    private enum InboxItem: Sendable {
        case committed(UInt64)
        case tick
        case stop
        case storageFailed(String)
    }

    private let options: ServerOptions
    private let logger: Logger
    private let metrics = ServerMetrics()
    private let lws: LWSServer
    private var hub: Hub!
    private let store: SQLiteGameStore?
    private var commits: CommitQueue?
    private let inbox = LockedBox<[InboxItem]>([])
    private var ticker: DispatchSourceTimer?
    private var stopping = false
    /// Set when storage failed: the process should exit non-zero.
    public private(set) var failure: String?

    public init(options: ServerOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        lws = LWSServer(config: LWSServerConfig(host: options.host, port: options.port, webRoot: options.web,
                                                pingInterval: options.pingInterval))
        store = options.data == ":memory:" ? nil : try SQLiteGameStore(directory: options.data)
        if let store {
            let inbox = self.inbox
            let waker = lws.waker
            let wake: @Sendable () -> Void = { waker.wake() }
            commits = CommitQueue(
                store: store,
                onCommitted: { ticket in
                    inbox.withLock { $0.append(.committed(ticket)) }
                    wake()
                },
                onFailure: { error in
                    inbox.withLock { $0.append(.storageFailed("\(error)")) }
                    wake()
                })
        }
        hub = Hub(transport: lws, sink: commits.map(CommitQueueSink.init), metrics: metrics, logger: logger)
        lws.delegate = self
        if let store {
            let started = ContinuousClock.now
            try hub.restore(from: store)
            commits?.flush()
            drainInbox()
            logger.info("games restored", metadata: ["games": "\(hub.gameCount)", "took": "\(ContinuousClock.now - started)"])
        }
    }

    /// Listens, prints `listening on http://HOST:PORT`, and serves until `requestStop()`.
    public func run() throws {
        try lws.start()
        let line = "listening on http://\(options.host):\(lws.boundPort)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let inbox = self.inbox
        let waker = lws.waker
        timer.setEventHandler { @Sendable in
            inbox.withLock { $0.append(.tick) }
            waker.wake()
        }
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
        timer.resume()
        ticker = timer
        lws.run()
        timer.cancel()
        commits?.close()
        do {
            try store?.close()
        } catch {
            logger.error("closing the game database failed", metadata: ["error": "\(error)"])
        }
        lws.destroy()
        logger.info("server stopped")
    }

    /// Asks the server to close every connection with 1001, flush storage and return from `run`.
    public func requestStop() { stopper.stop() }

    /// A handle other threads (signal handlers) may keep to stop the server.
    public var stopper: Stopper {
        let inbox = self.inbox
        let waker = lws.waker
        return Stopper {
            inbox.withLock { $0.append(.stop) }
            waker.wake()
        }
    }

    public struct Stopper: Sendable {
        let action: @Sendable () -> Void
        public func stop() { action() }
    }

    private func stop() {
        guard !stopping else { return }
        stopping = true
        logger.info("shutting down")
        // Accepted moves go out (and are stored) before the connections close.
        commits?.flush()
        drainCommitted()
        lws.stop()
    }

    private func drainCommitted() {
        if let ticket = commits?.durableTicket { hub.committed(upTo: ticket) }
    }
}

extension BoardcastServer: LWSServerDelegate {
    public func connectionOpened(_ id: ConnectionID, query: [String: String]) { hub.connectionOpened(id, query: query) }
    public func connectionReceived(_ id: ConnectionID, text: [UInt8]) { hub.connectionReceived(id, text: text) }
    public func connectionReceivedBinary(_ id: ConnectionID) { hub.connectionReceivedBinary(id) }
    public func connectionClosed(_ id: ConnectionID) { hub.connectionClosed(id) }

    public func httpRequest(path: String) -> HTTPResponse {
        switch path {
        case "/healthz":
            return stopping
                ? HTTPResponse(status: 503, contentType: "text/plain", body: "stopping\n")
                : HTTPResponse(status: 200, contentType: "text/plain", body: "ok\n")
        case "/metrics":
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4", body: metrics.render())
        case "/api/games", "/api/games/":
            return HTTPResponse(status: 200, contentType: "application/json", body: hub.lobbyJSON())
        default:
            return HTTPResponse(status: 404, contentType: "text/plain", body: "not found\n")
        }
    }

    public func drainInbox() {
        let items = inbox.withLock { items -> [InboxItem] in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
        var highest: UInt64 = 0
        var ticked = false
        for item in items {
            switch item {
            case .committed(let ticket): highest = max(highest, ticket)
            case .tick: ticked = true
            case .stop: stop()
            case .storageFailed(let why):
                logger.critical("storage failed; stopping so no accepted move is lost", metadata: ["error": "\(why)"])
                failure = why
                stop()
            }
        }
        if highest > 0 { hub.committed(upTo: highest) }
        if ticked { hub.tick() }
    }
}

/// Adapts storage's group-commit queue to what the hub needs.
private final class CommitQueueSink: CommitSink {
    let queue: CommitQueue
    init(_ queue: CommitQueue) { self.queue = queue }
    func submit(_ batch: StoreBatch) -> UInt64 { queue.submit(batch) }
}
