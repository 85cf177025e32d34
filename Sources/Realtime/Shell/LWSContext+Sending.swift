// LWSContext's writes: frames queued per connection, written as each loop iteration ends.
import CLibWebSockets

extension LWSContext {
    /// A write of at most this much is made without first asking the kernel whether the socket
    /// has room: at worst lws keeps that much of it for a slow reader, on top of its capped queue.
    private static let unpolledWriteLimit = 4096

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

    func requestWritable(_ connection: Connection) {
        guard let socket = connection.io.socket, !connection.io.isClosed, !connection.io.writableRequested else { return }
        connection.io.writableRequested = true
        lws_callback_on_writable(socket.wsi)
    }

    /// Writes what this loop iteration queued, straight away: one `send()` per
    /// connection, with no writable-callback round trip (with epoll that round trip
    /// costs two `epoll_ctl` calls per delivery). A connection whose socket is full
    /// waits for the writable callback instead, so its frames stay in its capped queue.
    func flush() {
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
    func write(_ connection: Connection, wsi: OpaquePointer) -> Int32 {
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
}
