// LWSContext's C callbacks, reason by reason: the raw pointers lws and libev hand over stay in this file.
import CLibWebSockets
import Foundation

extension LWSContext {
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
}

/// libev calls this when a WebSocket's socket is readable (`boardcast_read_watch`): `context` is the
/// `LWSContext`, `owner` the `Connection`, both alive while the watcher runs (it stops on `CLOSED`).
func boardcastReadFired(context: UnsafeMutableRawPointer?, owner: UnsafeMutableRawPointer?) {
    guard let context, let owner else { return }
    Unmanaged<LWSContext>.fromOpaque(context).takeUnretainedValue()
        .readable(Unmanaged<Connection>.fromOpaque(owner).takeUnretainedValue())
}

/// lws calls this plain C function for every event; it finds the Swift owner through the context's user pointer.
func boardcastLWSCallback(wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
                          input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let owner = lws_context_user(context) else {
        return wsi.map { lws_callback_http_dummy($0, reason, user, input, length) } ?? 0
    }
    let server = Unmanaged<LWSContext>.fromOpaque(owner).takeUnretainedValue()
    return server.handle(wsi: wsi, reason: reason, user: user, input: input, length: length)
}
