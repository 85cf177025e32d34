import CLibWebSockets
import Foundation

/// An lws connection handle, opaque to everything but this file.
struct SocketHandle {
    fileprivate let wsi: OpaquePointer
    /// The second read watcher on its socket (`boardcast_read_watch`), for reads that deliver no frame.
    fileprivate var readWatch: UnsafeMutableRawPointer?
}

/// The one owner of libwebsockets: the context, its C tables, the event loop, the C
/// callback, and the system calls that write. Everything that decides (reassembly,
/// queues, backpressure, keepalive) is plain Swift in `ConnectionIO` and
/// `KeepaliveWheel`; this class carries out what they decide. All of it runs on the
/// thread that calls `runOnce()`, except `waker`, which uses lws's one thread-safe call.
///
/// Unsafe pointers live here (lws's tables, the callback's `user` and `in` arguments,
/// write buffers), in `Listener` (socket addresses) and in `OutFrame` (its buffer).
final class LWSContext {
    private let config: LWSConfig
    weak var events: (any LWSEvents)?
    let waker = LWSWaker()

    private var context: OpaquePointer?
    private var tables: LWSTables?
    private var eventLoop: UnsafeMutableRawPointer?
    private var listener: Listener?
    private var listenWatch: UnsafeMutableRawPointer?
    /// The one timer of `wake(after:)`, on the loop.
    private var wakeTimer: UnsafeMutableRawPointer?
    private var vhost: OpaquePointer?

    /// Every open WebSocket connection, by its number: a broadcast's ids are an index each.
    private var connections = Slab<Connection>()
    private var nextHTTPID: HTTPRequestID = 1
    /// HTTP requests whose answer comes later, and answers waiting for their socket to be writable.
    private var pendingHTTP: [HTTPRequestID: OpaquePointer] = [:]
    private var httpAnswers: [HTTPRequestID: HTTPResponse] = [:]
    /// Connections given frames during this loop iteration, written once it ends.
    private var dirty: [Connection] = []
    /// Crowd broadcast recipients still to write, from `bulkHead` on.
    private var bulk: [Connection] = []
    private var bulkHead = 0
    /// Connections whose reads this round (nearly) filled their receive buffer: more may be waiting.
    private var fullReads = 0
    private var round: UInt32 = 0
    /// Who may upgrade, and the open connections of each client address.
    private var upgrades: UpgradeGate
    /// The client of the upgrade between its filter callback and its `ESTABLISHED` (the same call into lws).
    private var admitting: (wsi: OpaquePointer, client: ClientAddress, user: SignedUser?)?
    /// Connections not read until then: they flooded control frames (`ControlFloodGuard`).
    private var paused: [(connection: Connection, until: Double)] = []
    /// The control-frame floods of connections that went over the limit (most never do): kept
    /// here, not in every connection, and dropped when the connection closes.
    private var floods: [ConnectionID: ControlFloodGuard] = [:]
    /// New connections whose first request head has not come yet.
    private var heads: PendingHeads?
    /// Sockets of connections closed for a flood, held open unread a little longer.
    private var lingering = LingeringSockets()

    private(set) var stopping = false

    private static let coalesceCapacity = 256 * 1024
    /// A write of at most this much is made without first asking the kernel whether the socket
    /// has room: at worst lws keeps that much of it for a slow reader, on top of its capped queue.
    private static let unpolledWriteLimit = 4096
    private let coalesceBuffer = UnsafeMutableRawPointer.allocate(
        byteCount: OutFrame.headroom + LWSContext.coalesceCapacity, alignment: 16)
    /// A ping's payload, with room for lws's header in front. Never empty: lws 4.1.6 does
    /// not report an empty pong to the protocol callback, so the answer would go unseen.
    private let pingBuffer: UnsafeMutableRawPointer = {
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

    // MARK: Sending

    /// Queues a frame. `bulk`: part of a broadcast to a crowd, written in bites between
    /// loop iterations, so replies to others go first and a crowd never starves the loop.
    func send(_ frame: OutFrame, to connection: Connection, bulk isBulk: Bool = false) {
        switch connection.io.enqueue(frame, limits: config.limits) {
        case .queued:
            if !connection.io.isDirty && !connection.io.writableRequested {
                connection.io.isDirty = true
                if isBulk { bulk.append(connection) } else { dirty.append(connection) }
            }
        case .overflow:
            kill(connection)
        case .ignored:
            break
        }
    }

    /// Sends what is queued, then a close frame with this code.
    func close(_ connection: Connection, code: UInt16, reason: String) {
        guard connection.io.beginClosing(code: code, reason: reason) else { return }
        requestWritable(connection)
    }

    /// Drops a connection without a close frame (a dead or hopeless peer).
    func kill(_ connection: Connection) {
        guard let socket = connection.io.socket, !connection.io.isClosed else { return }
        connection.io.dropQueue()
        lws_set_timeout(socket.wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
    }

    func ping(_ connection: Connection) {
        connection.io.pingDue = true
        requestWritable(connection)
    }

    /// An answer to an HTTP request that `LWSEvents.httpRequest` deferred.
    func respond(_ id: HTTPRequestID, _ response: HTTPResponse) {
        guard let wsi = pendingHTTP[id] else { return }
        httpAnswers[id] = response
        lws_callback_on_writable(wsi)
    }

    private func requestWritable(_ connection: Connection) {
        guard let socket = connection.io.socket, !connection.io.isClosed, !connection.io.writableRequested else { return }
        connection.io.writableRequested = true
        lws_callback_on_writable(socket.wsi)
    }

    /// Writes what this loop iteration queued, straight away: one `send()` per
    /// connection, with no writable-callback round trip (with epoll that round trip
    /// costs two `epoll_ctl` calls per delivery). A connection whose socket is full
    /// waits for the writable callback instead, so its frames stay in its capped queue.
    private func flush() {
        if !dirty.isEmpty {
            let batch = dirty
            dirty.removeAll(keepingCapacity: true)
            for connection in batch { writeNow(connection) }
        }
        guard bulkHead < bulk.count else { return }
        let end = min(bulk.count, bulkHead + config.bulkWritesPerIteration)
        for index in bulkHead..<end { writeNow(bulk[index]) }
        bulkHead = end
        if bulkHead == bulk.count {
            bulk.removeAll(keepingCapacity: bulk.count <= 4096)
            bulkHead = 0
        }
    }

    private func writeNow(_ connection: Connection) {
        connection.io.isDirty = false
        guard let socket = connection.io.socket, !connection.io.isClosed, connection.io.closing == nil,
              !connection.io.writableRequested, connection.io.hasPending else { return }
        // lws refuses a new write while it still holds part of an earlier one (a flag, no
        // system call). Whether the socket itself is full takes a `poll()` per delivery, a
        // tenth of a delivery's cost in S1's profile: a small write skips it, and if the
        // socket is full lws keeps those few bytes and sends them when it can.
        if lws_partial_buffered(socket.wsi) != 0
            || (connection.io.queuedBytes > LWSContext.unpolledWriteLimit && lws_send_pipe_choked(socket.wsi) != 0) {
            requestWritable(connection)
            return
        }
        if write(connection, wsi: socket.wsi) < 0 {
            kill(connection)
            return
        }
        if connection.io.hasPending { requestWritable(connection) }
    }

    /// Writes the next queued frame, or several at once: the frames are framed here and
    /// written raw (`LWS_WRITE_HTTP` is lws's raw write). Safe because no extension
    /// (compression) is negotiated and every frame is a whole message, so a server frame
    /// is just a header and the payload.
    private func write(_ connection: Connection, wsi: OpaquePointer) -> Int32 {
        switch connection.io.takeWrite(capacity: LWSContext.coalesceCapacity) {
        case .none:
            return 0
        case .one(let frame):
            let written = frame.withPayload { lws_write(wsi, $0.assumingMemoryBound(to: UInt8.self), frame.count, LWS_WRITE_TEXT) }
            return LWSCall.status(wrote: written, of: frame.count)
        case .many(let frames):
            let base = coalesceBuffer + OutFrame.headroom
            var used = 0
            for frame in frames {
                for byte in WebSocketFrame.textHeader(length: frame.count) {
                    base.storeBytes(of: byte, toByteOffset: used, as: UInt8.self)
                    used += 1
                }
                frame.withPayload { (base + used).copyMemory(from: $0, byteCount: frame.count) }
                used += frame.count
            }
            return LWSCall.status(wrote: lws_write(wsi, base.assumingMemoryBound(to: UInt8.self), used, LWS_WRITE_HTTP), of: used)
        }
    }

    // MARK: The callback, reason by reason

    /// What the per-session data of an lws connection holds: a WebSocket connection's
    /// retained `Connection`, or an HTTP request's id.
    private struct SessionSlot {
        var kind: UInt64  // 0 empty, 1 WebSocket, 2 HTTP request
        var value: UInt64
    }

    private static let slotSize = MemoryLayout<SessionSlot>.size

    fileprivate func handle(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                            input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return filterUpgrade(wsi)

        case LWS_CALLBACK_ESTABLISHED:
            guard let user else { return -1 }
            let id = connections.insert { Connection(id: $0) }
            guard let connection = connections[id] else { return -1 }
            connection.io.socket = SocketHandle(wsi: wsi)
            // The filter callback decided who the client is, in this same call into lws.
            let client = admitting?.wsi == wsi ? admitting?.client ?? .unknown : .unknown
            let signedIn = admitting?.wsi == wsi ? admitting?.user : nil
            admitting = nil
            upgrades.opened(client)
            connection.io.client = client
            if let eventLoop {
                connection.io.socket?.readWatch = boardcast_read_watch_start(
                    eventLoop, lws_get_socket_fd(wsi), Unmanaged.passUnretained(connection).toOpaque())
            }
            // Retained here, released on CLOSED: lws holds the only reference meanwhile.
            let pointer = UInt64(UInt(bitPattern: Unmanaged.passRetained(connection).toOpaque()))
            user.storeBytes(of: SessionSlot(kind: 1, value: pointer), as: SessionSlot.self)
            events?.opened(connection, query: LWSHeaders.queryArguments(wsi), user: signedIn)
            return 0

        case LWS_CALLBACK_RECEIVE:
            guard let connection = connection(user) else { return -1 }
            connection.io.heardFrom = true
            connection.io.deliveredSinceRead = true
            // lws reads at most the receive buffer per wake-up; a round that took most of it
            // (payload plus client frame headers) likely left more in the socket.
            if connection.io.round != round {
                connection.io.round = round
                connection.io.roundBytes = 0
            }
            let before = connection.io.roundBytes
            connection.io.roundBytes += length + 6
            if before < config.rxBufferSize * 3 / 4 && connection.io.roundBytes >= config.rxBufferSize * 3 / 4 { fullReads += 1 }
            let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            switch connection.io.receive(bytes, first: lws_is_first_fragment(wsi) != 0,
                                         finalFrame: lws_is_final_fragment(wsi) != 0,
                                         remaining: Int(lws_remaining_packet_payload(wsi)),
                                         binary: lws_frame_is_binary(wsi) != 0, limits: config.limits) {
            case .partial:
                return 0
            case .text(let text):
                events?.received(connection, text: text)
                return 0
            case .binary:
                events?.receivedBinary(connection)
                return 0
            case .tooLarge:
                // Read to the end first: closing a socket with unread input makes the kernel reset
                // it, and the client would lose the close frame.
                var reason = Array("message over 64 KiB".utf8)
                lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, &reason, reason.count)
                return -1
            }

        case LWS_CALLBACK_RECEIVE_PONG:
            // Reported only with a payload: lws 4.1.6 says nothing of an empty pong.
            guard let connection = connection(user) else { return 0 }
            connection.io.heardFrom = true
            connection.io.deliveredSinceRead = true
            controlFrame(connection, wsi: wsi)
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = connection(user) else { return 0 }
            return writable(connection, wsi: wsi)

        case LWS_CALLBACK_CLOSED:
            guard let user else { return 0 }
            let slot = user.load(as: SessionSlot.self)
            guard slot.kind == 1, let raw = UnsafeRawPointer(bitPattern: UInt(slot.value)) else { return 0 }
            user.storeBytes(of: SessionSlot(kind: 0, value: 0), as: SessionSlot.self)
            let connection = Unmanaged<Connection>.fromOpaque(raw).takeRetainedValue()
            // Before lws closes the socket: its number may come back for another connection.
            if let watch = connection.io.socket?.readWatch, let eventLoop { boardcast_read_watch_stop(eventLoop, watch) }
            if connection.io.lingers { lingering.hold(lws_get_socket_fd(wsi), now: Date().timeIntervalSince1970) }
            if !floods.isEmpty { floods[connection.id] = nil }
            connection.io.isClosed = true
            connection.io.socket = nil
            upgrades.closed(connection.io.client)
            events?.closed(connection)
            connections.remove(connection.id)
            return 0

        case LWS_CALLBACK_HTTP:
            // lws files the path under the method's own header: GET_URI, HEAD_URI, ...
            let headPath = LWSHeaders.header(wsi, WSI_TOKEN_HEAD_URI)
            guard let path = LWSHeaders.header(wsi, WSI_TOKEN_GET_URI) ?? headPath else {
                return LWSHTTPWrites.response(.text(405, "GET or HEAD only\n"), wsi: wsi)
            }
            let id = nextHTTPID
            nextHTTPID += 1
            let query = LWSHeaders.queryString(wsi)
            guard let response = events?.httpRequest(id, path: path, query: query) else {
                guard let user else { return -1 }
                user.storeBytes(of: SessionSlot(kind: 2, value: id | (headPath == nil ? 0 : 1 << 63)), as: SessionSlot.self)
                pendingHTTP[id] = wsi
                return 0
            }
            return LWSHTTPWrites.response(response, wsi: wsi, withBody: headPath == nil)

        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let slot = httpSlot(user) else { return lws_callback_http_dummy(wsi, reason, user, input, length) }
            let id = slot.value & ~(1 << 63)
            guard let response = httpAnswers.removeValue(forKey: id) else { return 0 }
            pendingHTTP[id] = nil
            user?.storeBytes(of: SessionSlot(kind: 0, value: 0), as: SessionSlot.self)
            return LWSHTTPWrites.response(response, wsi: wsi, withBody: slot.value & (1 << 63) == 0)

        case LWS_CALLBACK_CLOSED_HTTP:
            if let slot = httpSlot(user) {
                let id = slot.value & ~(1 << 63)
                pendingHTTP[id] = nil
                httpAnswers[id] = nil
                user?.storeBytes(of: SessionSlot(kind: 0, value: 0), as: SessionSlot.self)
            }
            return lws_callback_http_dummy(wsi, reason, user, input, length)

        case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
            // Every request but an upgrade, dynamic or static, once lws parsed it; a path lws cut
            // at the token limit was longer than the server reads.
            guard length <= RequestLine.maxPathBytes else {
                _ = LWSHTTPWrites.refusal(RequestLine.pathTooLong, wsi: wsi)
                return 1
            }
            return 0

        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            events?.wokenUp()
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// The HTTP request an lws connection waits to answer (its id, and the top bit for HEAD).
    private func httpSlot(_ user: UnsafeMutableRawPointer?) -> SessionSlot? {
        guard let slot = user?.load(as: SessionSlot.self), slot.kind == 2 else { return nil }
        return slot
    }

    private func connection(_ user: UnsafeMutableRawPointer?) -> Connection? {
        guard let user else { return nil }
        let slot = user.load(as: SessionSlot.self)
        guard slot.kind == 1, let raw = UnsafeRawPointer(bitPattern: UInt(slot.value)) else { return nil }
        return Unmanaged<Connection>.fromOpaque(raw).takeUnretainedValue()
    }

    /// A ping if one is due, then queued frames, then the close frame once nothing is left.
    private func writable(_ connection: Connection, wsi: OpaquePointer) -> Int32 {
        connection.io.writableRequested = false
        if connection.io.pingDue {
            connection.io.pingDue = false
            let written = lws_write(wsi, (pingBuffer + OutFrame.headroom).assumingMemoryBound(to: UInt8.self), 4, LWS_WRITE_PING)
            if LWSCall.status(wrote: written, of: 4) < 0 { return -1 }
        } else if connection.io.hasPending {
            if write(connection, wsi: wsi) < 0 { return -1 }
        } else if let (code, text) = connection.io.closing {
            var reason = Array(text.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &reason, reason.count)
            return -1
        }
        if connection.io.hasPending || connection.io.closing != nil || connection.io.pingDue { requestWritable(connection) }
        return 0
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

    // MARK: Limits (PROTOCOL section 14)

    /// lws's filter callback of a WebSocket upgrade, before it answers 101: the client's address,
    /// its page's origin and its address's open connections decide (`UpgradeGate`). A refusal
    /// is answered here with a status line and a short text, and the connection closed.
    private func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let peer = Listener.peerAddress(lws_get_socket_fd(wsi)) ?? .unknown
        let trusted = upgrades.limits.trustedProxies
        let forwardedFor = trusted.isEmpty || !trusted.trusts(peer) ? nil : LWSHeaders.header(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        let origin = upgrades.limits.origins.allowsEveryOrigin ? nil : LWSHeaders.header(wsi, WSI_TOKEN_ORIGIN)
        let authorization = upgrades.auth == nil ? nil : LWSHeaders.header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION)
        switch upgrades.decide(path: LWSHeaders.header(wsi, WSI_TOKEN_GET_URI), peer: peer, forwardedFor: forwardedFor,
                               origin: origin, authorization: authorization, now: Date().timeIntervalSince1970,
                               stopping: stopping) {
        case .admit(let client, let user):
            admitting = (wsi, client, user)
            return 0
        case .refuse(let response, let limit):
            if let limit { events?.refused(limit) }
            // The connection is already in lws's WebSocket role here; its HTTP writes go out as
            // they are, and lws closes it once this returns non-zero.
            _ = LWSHTTPWrites.refusal(response, wsi: wsi)
            return 1
        }
    }

    /// The connection's socket was readable (`boardcast_read_watch`). lws 4.1.6 answers pings
    /// itself and reports neither them nor empty pongs to the protocol, so a read that
    /// delivered no frame (no message piece, no pong) since the previous one read control
    /// frames only: it counts as one. (A read that ends inside a frame header counts too: one
    /// token, rarely.) This watcher runs after lws's own for the same event (libev invokes the
    /// watchers of one socket in the order they were started); were it the other way round,
    /// each read would be judged one event late, with the same counts.
    fileprivate func readable(_ connection: Connection) {
        guard let socket = connection.io.socket, !connection.io.isClosed else { return }
        if connection.io.deliveredSinceRead {
            connection.io.deliveredSinceRead = false
            return
        }
        controlFrame(connection, wsi: socket.wsi)
    }

    /// A ping or pong from the client: it counts against the connection's rate limit. One
    /// over the limit pauses reading the connection, and a flood that goes on closes it with
    /// 1008 (`ControlFloodGuard`).
    private func controlFrame(_ connection: Connection, wsi: OpaquePointer) {
        guard connection.io.closing == nil, events?.receivedControl(connection) == false else { return }
        let now = Date().timeIntervalSince1970
        switch floods[connection.id, default: ControlFloodGuard()].overLimit(now: now) {
        case .pause(let until):
            pauseReading(connection, wsi: wsi, until: until)
        case .close:
            events?.refused(.controlFrames)
            // Not read again: while pings keep arriving, lws answers each before any write of
            // the protocol's, and the close frame would wait for the flood to stop.
            pauseReading(connection, wsi: wsi, until: .infinity)
            connection.io.lingers = true
            close(connection, code: 1008, reason: "control frames over the rate limit")
        }
    }

    private func pauseReading(_ connection: Connection, wsi: OpaquePointer, until: Double) {
        guard !connection.io.readPaused else { return }
        connection.io.readPaused = true
        lws_rx_flow_control(wsi, 0)
        if let watch = connection.io.socket?.readWatch, let eventLoop { boardcast_read_watch_pause(eventLoop, watch) }
        paused.append((connection, until))
    }

    /// Reads again from connections whose pause is over.
    private func resumePaused(now: Double) {
        paused.removeAll { entry in
            guard entry.until <= now || entry.connection.io.isClosed else { return false }
            entry.connection.io.readPaused = false
            if let socket = entry.connection.io.socket, !entry.connection.io.isClosed {
                lws_rx_flow_control(socket.wsi, 1)
                if let watch = socket.readWatch, let eventLoop { boardcast_read_watch_resume(eventLoop, watch) }
            }
            return true
        }
    }

}

/// libev calls this when a WebSocket's socket is readable (`boardcast_read_watch`): `context` is the
/// `LWSContext`, `owner` the `Connection`, both alive while the watcher runs (it stops on `CLOSED`).
private func boardcastReadFired(context: UnsafeMutableRawPointer?, owner: UnsafeMutableRawPointer?) {
    guard let context, let owner else { return }
    Unmanaged<LWSContext>.fromOpaque(context).takeUnretainedValue()
        .readable(Unmanaged<Connection>.fromOpaque(owner).takeUnretainedValue())
}

/// lws calls this plain C function for every event; it finds the Swift owner through the context's user pointer.
private func boardcastLWSCallback(wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                                  input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return wsi.map { lws_callback_http_dummy($0, reason, user, input, length) } ?? 0
    }
    let server = Unmanaged<LWSContext>.fromOpaque(owner).takeUnretainedValue()
    return server.handle(wsi: wsi, reason: reason, user: user, input: input, length: length)
}
