import CLibWebSockets
import Foundation

/// An HTTP answer for the dynamic paths (`/healthz`, `/metrics`, `/api/...`).
public struct HTTPResponse: Sendable {
    public var status: UInt32
    public var contentType: String
    public var body: [UInt8]

    public init(status: UInt32, contentType: String, body: String) {
        self.status = status
        self.contentType = contentType
        self.body = Array(body.utf8)
    }
}

/// What the socket layer reports. Every call comes on the service thread.
public protocol LWSServerDelegate: AnyObject {
    func connectionOpened(_ id: ConnectionID, query: [String: String])
    func connectionReceived(_ id: ConnectionID, text: [UInt8])
    func connectionReceivedBinary(_ id: ConnectionID)
    func connectionClosed(_ id: ConnectionID)
    func httpRequest(path: String) -> HTTPResponse
    /// Work posted from other threads with `LWSServer.post`.
    func drainInbox()
}

public struct LWSServerConfig: Sendable {
    public var host: String
    public var port: Int
    public var webRoot: String
    public var pingInterval: Int
    public var maxMessageBytes: Int = 64 * 1024
    /// A connection whose unsent frames pass this is dropped: one slow client never holds up the others.
    public var maxQueuedBytes: Int = 8 * 1024 * 1024
    public var maxQueuedFrames: Int = 20_000

    public init(host: String, port: Int, webRoot: String, pingInterval: Int) {
        self.host = host
        self.port = port
        self.webRoot = webRoot
        self.pingInterval = pingInterval
    }
}

public enum LWSServerError: Error, CustomStringConvertible {
    case cannotStart(String)
    public var description: String {
        switch self {
        case .cannotStart(let why): return why
        }
    }
}

/// The one place that touches libwebsockets: the context, its C tables, the
/// callback, and per-connection send queues. Everything here runs on the thread
/// that calls `run()`, except `wake()`, which uses the one thread-safe lws call.
public final class LWSServer {

    private let config: LWSServerConfig
    public weak var delegate: (any LWSServerDelegate)?

    private var context: OpaquePointer?
    /// Wakes the service thread from other threads.
    public let waker = LWSWaker()
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var mounts: UnsafeMutablePointer<lws_http_mount>?
    private var mountCount = 0
    private var pvos: UnsafeMutablePointer<lws_protocol_vhost_options>?
    private var pvoCount = 0
    private var retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>?
    /// The libev loop lws runs on (epoll); created here, destroyed after the context.
    private var eventLoop: UnsafeMutableRawPointer?
    private var foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>?

    private var connections: [ConnectionID: LWSConnection] = [:]
    private var nextConnectionID: ConnectionID = 1
    private var stopping = false
    public private(set) var boundPort: Int = 0

    public init(config: LWSServerConfig) {
        self.config = config
    }

    deinit {
        if let context { lws_context_destroy(context) }
        if let eventLoop { boardcast_ev_loop_destroy(eventLoop) }
        freeTables()
        coalesceBuffer.deallocate()
    }

    // MARK: Lifecycle

    public func start() throws {
        lws_set_log_level(Int32(LLL_ERR), nil)
        let gameProtocol = cString("boardcast.v1")
        protocols = .allocate(capacity: 2)
        protocols!.initialize(repeating: lws_protocols(), count: 2)
        protocols![0].name = UnsafePointer(gameProtocol)
        protocols![0].callback = boardcastLWSCallback
        protocols![0].per_session_data_size = MemoryLayout<ConnectionID>.size
        // lws allocates this per connection and reads at most this much per wake-up:
        // 2 KiB trades idle memory (about 4.2 KB a connection; 2.6 KB at 1 KiB) against
        // pipelined bursts, whose moves share one write per spectator only when they are
        // read together (0.76 M deliveries/s; 0.48 M at 1 KiB). See BENCHMARKS.md.
        protocols![0].rx_buffer_size = 2048

        // Plain clients (websocat, `new WebSocket(url)`) offer no subprotocol: bind them to ours.
        pvoCount = 2
        pvos = .allocate(capacity: pvoCount)
        pvos!.initialize(repeating: lws_protocol_vhost_options(), count: pvoCount)
        pvos![1].name = UnsafePointer(cString("default"))
        pvos![1].value = UnsafePointer(cString("1"))
        pvos![0].name = UnsafePointer(gameProtocol)
        pvos![0].value = UnsafePointer(cString(""))
        pvos![0].options = UnsafePointer(pvos! + 1)

        let webRoot = URL(fileURLWithPath: config.webRoot).standardizedFileURL.path
        let mimeTypes = makeMimeTypes()
        let dynamicPaths = ["/healthz", "/metrics", "/api"]
        mountCount = dynamicPaths.count + 1
        mounts = .allocate(capacity: mountCount)
        mounts!.initialize(repeating: lws_http_mount(), count: mountCount)
        for (i, path) in dynamicPaths.enumerated() {
            mounts![i].mountpoint = UnsafePointer(cString(path))
            mounts![i].mountpoint_len = UInt8(path.utf8.count)
            mounts![i].origin = UnsafePointer(gameProtocol)
            mounts![i].origin_protocol = UInt8(LWSMPRO_CALLBACK.rawValue)
            mounts![i].mount_next = UnsafePointer(mounts! + i + 1)
        }
        let fileMount = mounts! + dynamicPaths.count
        fileMount.pointee.mountpoint = UnsafePointer(cString("/"))
        fileMount.pointee.mountpoint_len = 1
        fileMount.pointee.origin = UnsafePointer(cString(webRoot))
        fileMount.pointee.def = UnsafePointer(cString("index.html"))
        fileMount.pointee.origin_protocol = UInt8(LWSMPRO_FILE.rawValue)
        fileMount.pointee.extra_mimetypes = UnsafePointer(mimeTypes)
        fileMount.pointee.cache_max_age = 0

        retryPolicy = .allocate(capacity: 1)
        retryPolicy!.initialize(to: lws_retry_bo_t())
        retryPolicy!.pointee.secs_since_valid_ping = UInt16(clamping: config.pingInterval)
        // Dropped if the ping is not answered by the time the next one would go out.
        retryPolicy!.pointee.secs_since_valid_hangup = UInt16(clamping: config.pingInterval * 2)

        var info = lws_context_creation_info()
        info.port = Int32(config.port)
        info.protocols = UnsafePointer(protocols)
        info.pvo = UnsafePointer(pvos)
        info.mounts = UnsafePointer(mounts)
        info.retry_and_idle_policy = UnsafePointer(retryPolicy)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.fd_limit_per_thread = 20_480
        eventLoop = boardcast_ev_loop_new()
        guard eventLoop != nil else { throw LWSServerError.cannotStart("libev could not create an event loop") }
        foreignLoops = .allocate(capacity: 1)
        foreignLoops!.initialize(to: eventLoop)
        info.foreign_loops = foreignLoops
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8)
            | UInt64(LWS_SERVER_OPTION_LIBEV)
            | UInt64(LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE)
        if !config.host.isEmpty && config.host != "0.0.0.0" && config.host != "::" {
            info.iface = UnsafePointer(cString(config.host))
        }
        if config.host.contains(".") {
            // Debian's IPv6-enabled build otherwise listens on [::] even for an IPv4 address.
            info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
        }
        guard let context = lws_create_context(&info) else {
            throw LWSServerError.cannotStart("could not listen on \(config.host):\(config.port) (address in use or not available?)")
        }
        self.context = context
        waker.attach(context)
        if let vhost = lws_get_vhost_by_name(context, "default") {
            boundPort = Int(lws_get_vhost_listen_port(vhost))
        } else {
            boundPort = config.port
        }
    }

    /// Serves until `stop()` has closed every connection. Call on the thread that owns lws.
    public func run() {
        guard context != nil, let eventLoop else { return }
        while !(stopping && connections.isEmpty) {
            boardcast_ev_run_once(eventLoop)
            flushDirty()
            if stopping && Date() > stopDeadline { break }
        }
    }

    private var stopDeadline = Date.distantFuture

    /// Closes every connection with 1001 (going away); `run` returns once they are gone.
    public func stop() {
        guard !stopping else { return }
        stopping = true
        stopDeadline = Date().addingTimeInterval(3)
        for id in connections.keys { close(id, code: 1001, reason: "server shutting down") }
    }

    public func destroy() {
        waker.detach()
        if let context { lws_context_destroy(context) }
        context = nil
        if let eventLoop { boardcast_ev_loop_destroy(eventLoop) }
        eventLoop = nil
        freeTables()
    }

    // MARK: Sending

    public func send(_ frame: OutFrame, to id: ConnectionID) {
        guard let connection = connections[id], connection.closing == nil else { return }
        connection.queue.append(frame)
        connection.queuedBytes += frame.count
        if connection.queuedBytes > config.maxQueuedBytes || connection.queue.count > config.maxQueuedFrames {
            connection.dropQueue()
            connection.closing = (1008, "too slow: send queue full")
            lws_set_timeout(connection.wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
            return
        }
        if !connection.isDirty && !connection.writableRequested {
            connection.isDirty = true
            dirty.append(connection)
        }
    }

    public func close(_ id: ConnectionID, code: UInt16, reason: String) {
        guard let connection = connections[id], connection.closing == nil else { return }
        connection.closing = (code, reason)
        connection.requestWritable()
    }

    // MARK: The callback, reason by reason

    fileprivate func handle(wsi: OpaquePointer, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                            input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // The game protocol lives at /ws only.
            if stopping { return 1 }
            return header(wsi, WSI_TOKEN_GET_URI) == "/ws" ? 0 : 1

        case LWS_CALLBACK_ESTABLISHED:
            guard let user else { return -1 }
            let id = nextConnectionID
            nextConnectionID += 1
            user.storeBytes(of: id, as: ConnectionID.self)
            connections[id] = LWSConnection(wsi: wsi)
            delegate?.connectionOpened(id, query: queryArguments(wsi))
            return 0

        case LWS_CALLBACK_RECEIVE:
            guard let id = connectionID(user), let connection = connections[id] else { return -1 }
            return receive(connection, id: id, wsi: wsi, input: input, length: length)

        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let id = connectionID(user), let connection = connections[id] else { return 0 }
            return writeNext(connection, wsi: wsi)

        case LWS_CALLBACK_CLOSED:
            guard let id = connectionID(user), let connection = connections.removeValue(forKey: id) else { return 0 }
            connection.isClosed = true
            delegate?.connectionClosed(id)
            return 0

        case LWS_CALLBACK_HTTP:
            // lws files the path under the method's own header: GET_URI, HEAD_URI, ...
            let headPath = header(wsi, WSI_TOKEN_HEAD_URI)
            guard let path = header(wsi, WSI_TOKEN_GET_URI) ?? headPath else {
                return writeHTTP(HTTPResponse(status: 405, contentType: "text/plain", body: "GET or HEAD only\n"), wsi: wsi)
            }
            let response = delegate?.httpRequest(path: path)
                ?? HTTPResponse(status: 503, contentType: "text/plain", body: "unavailable\n")
            return writeHTTP(response, wsi: wsi, withBody: headPath == nil)

        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            delegate?.drainInbox()
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    private func receive(_ connection: LWSConnection, id: ConnectionID, wsi: OpaquePointer,
                         input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        let messageEnds = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        if connection.discardedBytes != nil {
            return discardOversized(connection, wsi: wsi, length: length, messageEnds: messageEnds)
        }
        if lws_is_first_fragment(wsi) != 0 {
            connection.rx.removeAll(keepingCapacity: connection.rx.capacity <= 64 * 1024)
            connection.rxIsBinary = lws_frame_is_binary(wsi) != 0
        }
        let total = connection.rx.count + length + Int(lws_remaining_packet_payload(wsi))
        if total > config.maxMessageBytes {
            connection.rx.removeAll()
            connection.discardedBytes = 0
            return discardOversized(connection, wsi: wsi, length: length, messageEnds: messageEnds)
        }
        if let input, length > 0 {
            connection.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        guard messageEnds else { return 0 }
        if connection.rxIsBinary {
            delegate?.connectionReceivedBinary(id)
        } else {
            delegate?.connectionReceived(id, text: connection.rx)
        }
        connection.rx.removeAll(keepingCapacity: true)
        return 0
    }

    /// An oversized message is read to its end and thrown away before the 1009 close:
    /// closing a socket that still holds unread input makes the kernel send a reset,
    /// and the client would lose the close frame. Past 1 MiB more it closes at once.
    private func discardOversized(_ connection: LWSConnection, wsi: OpaquePointer, length: Int, messageEnds: Bool) -> Int32 {
        let discarded = (connection.discardedBytes ?? 0) + length
        connection.discardedBytes = discarded
        guard messageEnds || discarded > 1024 * 1024 else { return 0 }
        var reason = Array("message over 64 KiB".utf8)
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, &reason, reason.count)
        return -1
    }

    private func writeNext(_ connection: LWSConnection, wsi: OpaquePointer) -> Int32 {
        connection.writableRequested = false
        if connection.hasPending {
            if writeQueued(connection, wsi: wsi) < 0 { return -1 }
        } else if let (code, text) = connection.closing {
            var reason = Array(text.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), &reason, reason.count)
            return -1
        }
        if connection.hasPending || connection.closing != nil { connection.requestWritable() }
        return 0
    }

    /// Writes the next queued frame, or several at once.
    private func writeQueued(_ connection: LWSConnection, wsi: OpaquePointer) -> Int32 {
        if connection.pendingCount >= 2 { return writeCoalesced(connection, wsi: wsi) }
        guard let frame = connection.popFront() else { return 0 }
        return lws_write(wsi, frame.payload.assumingMemoryBound(to: UInt8.self), frame.count, LWS_WRITE_TEXT)
            < frame.count ? -1 : 0
    }

    /// Connections given frames during this loop iteration, written once it ends.
    private var dirty: [LWSConnection] = []

    /// Writes what this loop iteration queued, straight away: one `send()` per
    /// connection, with no writable-callback round trip (with epoll that round trip
    /// costs two `epoll_ctl` calls per delivery). A connection whose socket is full
    /// waits for the writable callback instead, so its frames stay in its capped queue.
    private func flushDirty() {
        guard !dirty.isEmpty else { return }
        let batch = dirty
        dirty.removeAll(keepingCapacity: true)
        for connection in batch {
            connection.isDirty = false
            guard !connection.isClosed, connection.closing == nil, !connection.writableRequested,
                  connection.hasPending else { continue }
            if lws_send_pipe_choked(connection.wsi) != 0 {
                connection.requestWritable()
                continue
            }
            if writeQueued(connection, wsi: connection.wsi) < 0 {
                connection.dropQueue()
                lws_set_timeout(connection.wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
                continue
            }
            if connection.hasPending { connection.requestWritable() }
        }
    }

    /// Several queued frames in one `send()`: the system call per frame is what fan-out
    /// costs, so a connection that fell behind catches up with one write. The frames are
    /// framed here and written raw (`LWS_WRITE_HTTP` is lws's `LWS_WRITE_RAW`). Safe
    /// because no extension (compression) is negotiated and every frame is a whole
    /// message, so a server frame is just a header and the payload.
    private func writeCoalesced(_ connection: LWSConnection, wsi: OpaquePointer) -> Int32 {
        var used = 0
        let base = coalesceBuffer + OutFrame.headroom
        while let frame = connection.peekFront(), used + frame.count + 10 <= LWSServer.coalesceCapacity || used == 0 {
            if used + frame.count + 10 > LWSServer.coalesceCapacity {
                // A frame bigger than the buffer goes alone, the ordinary way.
                _ = connection.popFront()
                return lws_write(wsi, frame.payload.assumingMemoryBound(to: UInt8.self), frame.count, LWS_WRITE_TEXT)
                    < frame.count ? -1 : 0
            }
            _ = connection.popFront()
            used += WebSocketFrameHeader.write(textLength: frame.count, into: base + used)
            (base + used).copyMemory(from: frame.payload, byteCount: frame.count)
            used += frame.count
        }
        return lws_write(wsi, base.assumingMemoryBound(to: UInt8.self), used, LWS_WRITE_HTTP) < used ? -1 : 0
    }

    private static let coalesceCapacity = 256 * 1024
    private let coalesceBuffer = UnsafeMutableRawPointer.allocate(
        byteCount: OutFrame.headroom + LWSServer.coalesceCapacity, alignment: 16)

    private func writeHTTP(_ response: HTTPResponse, wsi: OpaquePointer, withBody: Bool = true) -> Int32 {
        let pre = OutFrame.headroom
        let headerSpace = 2048
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: pre + headerSpace + response.body.count)
        defer { buffer.deallocate() }
        let start = buffer + pre
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let end = start + headerSpace
        let failed = response.contentType.withCString { type in
            lws_add_http_common_headers(wsi, response.status, type, lws_filepos_t(response.body.count), &cursor, end) != 0
        }
        if failed || lws_finalize_write_http_header(wsi, start, &cursor, end) != 0 { return -1 }
        if withBody && !response.body.isEmpty {
            let body = buffer + pre + headerSpace
            response.body.withUnsafeBufferPointer { body.update(from: $0.baseAddress!, count: $0.count) }
            if lws_write(wsi, body, response.body.count, LWS_WRITE_HTTP_FINAL) < response.body.count { return -1 }
        }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    // MARK: Helpers

    private func connectionID(_ user: UnsafeMutableRawPointer?) -> ConnectionID? {
        guard let user else { return nil }
        let id = user.load(as: ConnectionID.self)
        return id == 0 ? nil : id
    }

    private func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func queryArguments(_ wsi: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 512)
        var index: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) > 0 {
            let pair = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let eq = pair.firstIndex(of: "=") {
                result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            } else {
                result[pair] = ""
            }
            index += 1
        }
        return result
    }

    private func cString(_ s: String) -> UnsafeMutablePointer<CChar> {
        let p = strdup(s)!
        cStrings.append(p)
        return p
    }

    private func makeMimeTypes() -> UnsafeMutablePointer<lws_protocol_vhost_options> {
        let types: [(String, String)] = [
            (".js", "text/javascript"), (".mjs", "text/javascript"), (".css", "text/css"),
            (".html", "text/html"), (".svg", "image/svg+xml"), (".json", "application/json"),
            (".webmanifest", "application/manifest+json"), (".png", "image/png"), (".ico", "image/x-icon"),
            (".txt", "text/plain"), ("*", "application/octet-stream"),
        ]
        let list = UnsafeMutablePointer<lws_protocol_vhost_options>.allocate(capacity: types.count)
        list.initialize(repeating: lws_protocol_vhost_options(), count: types.count)
        for (i, (ext, type)) in types.enumerated() {
            list[i].name = UnsafePointer(cString(ext))
            list[i].value = UnsafePointer(cString(type))
            if i + 1 < types.count { list[i].next = UnsafePointer(list + i + 1) }
        }
        mimeList = list
        mimeCount = types.count
        return list
    }

    private var mimeList: UnsafeMutablePointer<lws_protocol_vhost_options>?
    private var mimeCount = 0

    private func freeTables() {
        for p in cStrings { free(p) }
        cStrings.removeAll()
        protocols?.deinitialize(count: 2).deallocate()
        protocols = nil
        mounts?.deinitialize(count: mountCount).deallocate()
        mounts = nil
        pvos?.deinitialize(count: pvoCount).deallocate()
        pvos = nil
        mimeList?.deinitialize(count: mimeCount).deallocate()
        mimeList = nil
        retryPolicy?.deinitialize(count: 1).deallocate()
        retryPolicy = nil
        foreignLoops?.deinitialize(count: 1).deallocate()
        foreignLoops = nil
    }
}

extension LWSServer: Transport {}

/// Wakes the service thread so it calls `delegate.drainInbox()`: the one lws call
/// that is safe from any thread.
public final class LWSWaker: Sendable {
    /// The context pointer, set once it exists and cleared before it is destroyed;
    /// `lws_cancel_service` on it is thread-safe, and the lock keeps it from racing the destroy.
    private struct ContextHandle: @unchecked Sendable { let pointer: OpaquePointer }
    private let handle = LockedBox<ContextHandle?>(nil)

    func attach(_ context: OpaquePointer) { handle.set(ContextHandle(pointer: context)) }
    func detach() { handle.set(nil) }

    public func wake() {
        handle.withLock { if let context = $0 { lws_cancel_service(context.pointer) } }
    }
}

/// Per-connection state of the socket layer: what is left to send and the message being received.
private final class LWSConnection {
    let wsi: OpaquePointer
    var queue: [OutFrame] = []
    var head = 0
    var queuedBytes = 0
    var closing: (code: UInt16, reason: String)?
    var rx: [UInt8] = []
    var rxIsBinary = false
    /// Set while an oversized message is being read and thrown away.
    var discardedBytes: Int?

    init(wsi: OpaquePointer) { self.wsi = wsi }

    var hasPending: Bool { head < queue.count }
    /// Asking lws again while a request is outstanding costs a poll change each time: ask once.
    var writableRequested = false
    /// In the server's list of connections to write at the end of this loop iteration.
    var isDirty = false
    /// lws has closed it; a leftover reference must not touch `wsi`.
    var isClosed = false

    func requestWritable() {
        guard !writableRequested else { return }
        writableRequested = true
        lws_callback_on_writable(wsi)
    }
    var pendingCount: Int { queue.count - head }
    func peekFront() -> OutFrame? { head < queue.count ? queue[head] : nil }

    func dropQueue() {
        queue.removeAll()
        head = 0
        queuedBytes = 0
    }

    func popFront() -> OutFrame? {
        guard head < queue.count else { return nil }
        let frame = queue[head]
        head += 1
        queuedBytes -= frame.count
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return frame
    }
}

/// The header of an unmasked, final text frame (RFC 6455 section 5.2), as a server sends it.
enum WebSocketFrameHeader {
    /// Writes the header for a payload of `textLength` bytes; returns its size (2, 4 or 10).
    static func write(textLength: Int, into out: UnsafeMutableRawPointer) -> Int {
        let bytes = out.assumingMemoryBound(to: UInt8.self)
        bytes[0] = 0x81  // FIN + text
        if textLength < 126 {
            bytes[1] = UInt8(textLength)
            return 2
        }
        if textLength <= 0xFFFF {
            bytes[1] = 126
            bytes[2] = UInt8(textLength >> 8)
            bytes[3] = UInt8(textLength & 0xFF)
            return 4
        }
        bytes[1] = 127
        for i in 0..<8 { bytes[2 + i] = UInt8((UInt64(textLength) >> (8 * UInt64(7 - i))) & 0xFF) }
        return 10
    }
}

/// lws calls this plain C function for every event; it finds the Swift server through the context's user pointer.
private func boardcastLWSCallback(wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                                  input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return wsi.map { lws_callback_http_dummy($0, reason, user, input, length) } ?? 0
    }
    let server = Unmanaged<LWSServer>.fromOpaque(owner).takeUnretainedValue()
    return server.handle(wsi: wsi, reason: reason, user: user, input: input, length: length)
}
