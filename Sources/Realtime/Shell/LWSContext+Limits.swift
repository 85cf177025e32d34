// LWSContext carrying out PROTOCOL section 14: who may upgrade; control-frame floods paused, then closed.
import CLibWebSockets
import Foundation

extension LWSContext {
    /// lws's filter callback of a WebSocket upgrade, before it answers 101: the client's address,
    /// its page's origin and its address's open connections decide (`UpgradeGate`). A refusal
    /// is answered here with a status line and a short text, and the connection closed.
    func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let peer = Listener.peerAddress(lws_get_socket_fd(wsi)) ?? .unknown
        let trusted = upgrades.limits.trustedProxies
        let forwardedFor = trusted.isEmpty || !trusted.trusts(peer) ? nil : LWSHeaders.header(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        let origin = upgrades.limits.origins.allowsEveryOrigin ? nil : LWSHeaders.header(wsi, WSI_TOKEN_ORIGIN)
        let authorization = upgrades.auth == nil ? nil : LWSHeaders.header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION)
        let request = UpgradeRequest(path: LWSHeaders.header(wsi, WSI_TOKEN_GET_URI), peer: peer, forwardedFor: forwardedFor,
                                     origin: origin, authorization: authorization)
        switch upgrades.decide(request, now: Date().timeIntervalSince1970, stopping: stopping) {
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

    /// A ping or pong from the client: it counts against the connection's rate limit. One
    /// over the limit pauses reading the connection, and a flood that goes on closes it with
    /// 1008 (`ControlFloodGuard`).
    func controlFrame(_ connection: Connection, wsi: OpaquePointer) {
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
    func resumePaused(now: Double) {
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
