import CLibWebSockets
import Foundation

/// An lws connection handle, opaque to everything but `LWSContext`'s files.
struct SocketHandle {
    let wsi: OpaquePointer
    /// The second read watcher on its socket (`boardcast_read_watch`), for reads that deliver no frame.
    var readWatch: UnsafeMutableRawPointer?
}

/// The one owner of libwebsockets: the context, its C tables, the event loop, the C
/// callback, and the system calls that write. Everything that decides (reassembly,
/// queues, backpressure, keepalive) is plain Swift in `ConnectionIO` and
/// `KeepaliveWheel`; this class carries out what they decide. All of it runs on the
/// thread that calls `runOnce()`, except `waker`, which uses lws's one thread-safe call.
///
/// Its parts: this file (its state, lifecycle, the loop iteration, new connections),
/// `LWSContext+Sending.swift` (queues and writes), `LWSContext+Callback.swift` (the C callbacks,
/// reason by reason) and `LWSContext+Limits.swift` (PROTOCOL section 14 carried out). Unsafe
/// pointers live in these files (lws's tables and the write buffers here, the writes in
/// `+Sending`, the callbacks' `user` and `in` arguments in `+Callback`), in `Listener` (socket
/// addresses) and in `OutFrame` (its buffer).
final class LWSContext {
    let config: LWSConfig
    weak var events: (any LWSEvents)?
    let waker = LWSWaker()

    private var context: OpaquePointer?
    private var tables: LWSTables?
    private(set) var eventLoop: UnsafeMutableRawPointer?
    private var listener: Listener?
    private var listenWatch: UnsafeMutableRawPointer?
    /// The one timer of `wake(after:)`, on the loop.
    private var wakeTimer: UnsafeMutableRawPointer?
    private var vhost: OpaquePointer?

    /// Every open WebSocket connection, by its number: a broadcast's ids are an index each.
    var connections = Slab<Connection>()
    var nextHTTPID: HTTPRequestID = 1
    /// HTTP requests whose answer comes later, and answers waiting for their socket to be writable.
    var pendingHTTP: [HTTPRequestID: OpaquePointer] = [:]
    var httpAnswers: [HTTPRequestID: HTTPResponse] = [:]
    /// Connections given frames during this loop iteration, written once it ends.
    var dirty: [Connection] = []
    /// Crowd broadcast recipients still to write, from `bulkHead` on.
    var bulk: [Connection] = []
    var bulkHead = 0
    /// Connections whose reads this round (nearly) filled their receive buffer: more may be waiting.
    var fullReads = 0
    private(set) var round: UInt32 = 0
    /// Who may upgrade, and the open connections of each client address.
    var upgrades: UpgradeGate
    /// The client of the upgrade between its filter callback and its `ESTABLISHED` (the same call into lws).
    var admitting: (wsi: OpaquePointer, client: ClientAddress, user: SignedUser?)?
    /// Connections not read until then: they flooded control frames (`ControlFloodGuard`).
    var paused: [(connection: Connection, until: Double)] = []
    /// The control-frame floods of connections that went over the limit (most never do): kept
    /// here, not in every connection, and dropped when the connection closes.
    var floods: [ConnectionID: ControlFloodGuard] = [:]
    /// New connections whose first request head has not come yet.
    private var heads: PendingHeads?
    /// Sockets of connections closed for a flood, held open unread a little longer.
    var lingering = LingeringSockets()

    private(set) var stopping = false

    static let coalesceCapacity = 256 * 1024
    let coalesceBuffer = UnsafeMutableRawPointer.allocate(
        byteCount: OutFrame.headroom + LWSContext.coalesceCapacity, alignment: 16)
    /// A ping's payload, with room for lws's header in front. Never empty: lws 4.1.6 does
    /// not report an empty pong to the protocol callback, so the answer would go unseen.
    let pingBuffer: UnsafeMutableRawPointer = {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: OutFrame.headroom + 4, alignment: 16)
        (buffer + OutFrame.headroom).copyMemory(from: Array("ping".utf8), byteCount: 4)
        return buffer
    }()

    var boundPort: Int { listener?.port ?? config.port }

    /// The libev loop lws runs on: the Redis link runs on it too.
    var loop: UnsafeMutableRawPointer? { eventLoop }

    init(config: LWSConfig) {
        // Frames are built in Protocol/ with room for lws's header in front; lws needs LWS_PRE of it.
        precondition(OutFrame.headroom >= boardcast_lws_pre(), "OutFrame.headroom is below LWS_PRE")
        self.config = config
        upgrades = UpgradeGate(limits: config.clientLimits, auth: config.auth)
    }

    deinit {
        shutdown()
        coalesceBuffer.deallocate()
        pingBuffer.deallocate()
    }

    // MARK: Lifecycle

    func start() throws {
        lws_set_log_level(Int32(LLL_ERR), nil)
        let listener = try Listener(host: config.host, port: config.port, reusePort: config.reusePort)
        let tables = LWSTables(webRoot: URL(fileURLWithPath: config.webRoot).standardizedFileURL.path,
                               folders: config.folders.map { ($0.mountPoint, URL(fileURLWithPath: $0.folder).standardizedFileURL.path) },
                               rxBufferSize: config.rxBufferSize, callback: boardcastLWSCallback)
        guard let loop = boardcast_ev_loop_new() else { throw LWSError.cannotStart("libev could not create an event loop") }
        tables.foreignLoops.pointee = loop

        var info = lws_context_creation_info()
        // The server accepts and hands sockets over (`Listener`), so lws listens on nothing.
        info.port = CONTEXT_PORT_NO_LISTEN_SERVER
        info.protocols = UnsafePointer(tables.protocols)
        info.pvo = UnsafePointer(tables.protocolOptions)
        info.mounts = UnsafePointer(tables.mounts)
        info.retry_and_idle_policy = UnsafePointer(tables.retryPolicy)
        info.token_limits = UnsafePointer(tables.tokenLimits)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.fd_limit_per_thread = 20_480
        // Room for any request head `RequestHead` lets through (lws's default, 4,096 bytes, would
        // drop some without a status line). lws allocates it per connection only while it
        // parses a request's headers and answers it, and frees it after (a WebSocket holds none).
        info.max_http_header_data2 = UInt32(RequestHead.lwsHeaderSpace)
        info.foreign_loops = tables.foreignLoops
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
            | UInt64(LWS_SERVER_OPTION_LIBEV)
            | UInt64(LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE)
        guard let context = lws_create_context(&info) else {
            boardcast_ev_loop_destroy(loop)
            throw LWSError.cannotStart("libwebsockets could not create its context")
        }
        guard let vhost = lws_get_vhost_by_name(context, "default") else {
            lws_context_destroy(context)
            boardcast_ev_loop_destroy(loop)
            throw LWSError.cannotStart("libwebsockets made no default vhost")
        }
        self.context = context
        self.tables = tables
        self.eventLoop = loop
        self.vhost = vhost
        boardcast_read_target_set(loop, boardcastReadFired, Unmanaged.passUnretained(self).toOpaque())
        self.listener = listener
        listenWatch = boardcast_listen_watch_start(loop, listener.descriptor)
        heads = PendingHeads(loop: loop)
        waker.attach(context)
    }

    /// One loop iteration: wait for events and handle them, accept a bounded number of
    /// new connections, then write what the iteration queued.
    func runOnce() {
        guard let eventLoop else { return }
        fullReads = 0
        round &+= 1
        // With a crowd's writes still to do, look at new events without sleeping, then go on writing.
        if bulkHead < bulk.count { boardcast_ev_run_nowait(eventLoop) } else { boardcast_ev_run_once(eventLoop) }
        // A read that filled the receive buffer means more is waiting (a pipelined burst): read
        // it now (up to 32 more passes, 16 KiB a connection), before writing, so the burst's
        // frames share one write per connection. This is what lets the per-connection buffer
        // stay small (idle memory) without losing bursts.
        var extra = 0
        while fullReads > 0 && extra < 32 {
            fullReads = 0
            extra += 1
            round &+= 1
            boardcast_ev_run_nowait(eventLoop)
        }
        var now = 0.0
        if let heads, !heads.isEmpty, let vhost {
            now = Date().timeIntervalSince1970
            heads.admitReady(now: now) { fd in _ = lws_adopt_socket_vhost(vhost, fd) }  // on failure lws closes it
        }
        if let wakeTimer, boardcast_wake_timer_take(wakeTimer) != 0 { events?.wakeDue() }
        if let listenWatch, let listener, boardcast_listen_watch_take(listenWatch) != 0, !stopping {
            if now == 0 { now = Date().timeIntervalSince1970 }
            // Any left waiting keep the socket readable, so the next iteration takes the next bite.
            _ = listener.accept(limit: config.acceptsPerIteration) { fd in admitSocket(fd, since: now, lowWater: 1) }
        }
        if !paused.isEmpty || !lingering.isEmpty {
            let now = Date().timeIntervalSince1970
            resumePaused(now: now)
            lingering.closeDue(now: now)
        }
        flush()
    }

    /// Stops accepting and closes every connection with 1001 (going away).
    func beginStopping(connections: [Connection]) {
        guard !stopping else { return }
        stopping = true
        if let eventLoop, let listenWatch { boardcast_listen_watch_stop(eventLoop, listenWatch) }
        listenWatch = nil
        listener = nil
        heads?.close()
        for connection in connections { close(connection, code: 1001, reason: "server shutting down") }
    }

    /// Destroys the context, then the loop, then the tables lws read: the one teardown path.
    func shutdown() {
        waker.detach()
        if let eventLoop, let listenWatch { boardcast_listen_watch_stop(eventLoop, listenWatch) }
        listenWatch = nil
        listener = nil
        heads?.close()
        heads = nil
        lingering.closeAll()
        if let eventLoop, let wakeTimer { boardcast_wake_timer_free(eventLoop, wakeTimer) }
        wakeTimer = nil
        if let context { lws_context_destroy(context) }
        context = nil
        vhost = nil
        if let eventLoop {
            boardcast_read_target_free(eventLoop)
            boardcast_ev_loop_destroy(eventLoop)
        }
        eventLoop = nil
        tables = nil
    }

    /// The open connection with this number, if it is still open.
    func connection(_ id: ConnectionID) -> Connection? { connections[id] }

    /// `wakeDue` once, `seconds` from now, on the service thread (each call replaces the last).
    func wake(after seconds: Double) {
        guard let eventLoop else { return }
        if wakeTimer == nil { wakeTimer = boardcast_wake_timer_new() }
        if let wakeTimer { boardcast_wake_timer_set(eventLoop, wakeTimer, max(0, seconds)) }
    }

    // MARK: The first request head of each connection

    /// A new connection goes to lws once its first request head is in and within limits (`PendingHeads`).
    private func admitSocket(_ fd: Int32, since: Double, lowWater: Int) {
        guard let vhost, let heads, !stopping else {
            Listener.closeSocket(fd)
            return
        }
        heads.admit(fd, since: since, lowWater: lowWater) { fd in _ = lws_adopt_socket_vhost(vhost, fd) }  // on failure lws closes it
    }
}
