import Foundation

/// What a WebSocket connection reports, in order.
public enum TransportEvent: Sendable, Equatable {
    /// the upgrade succeeded: frames may be sent
    case opened
    /// a text frame
    case text(String)
    /// the connection is gone (closed, refused, reset); nothing follows it
    case closed(String)
}

/// One WebSocket connection. `events` ends after `.closed`.
public protocol WebSocketConnection: Sendable {
    var events: AsyncStream<TransportEvent> { get }
    /// Queues a text frame (in order; dropped if the connection is not open).
    func send(_ text: String)
    /// Closes the connection (a close frame when it can, else it just lets go).
    func close()
}

/// Opens WebSocket connections. The library's only contact with the network: tests pass a fake,
/// an app may pass its own (a proxy, a custom TLS setup).
public protocol WebSocketTransport: Sendable {
    func connect(to url: URL) -> any WebSocketConnection
}

/// The platform's transport: URLSessionWebSocketTask on Apple platforms, swift-websocket's
/// NIO client elsewhere (see README: the transport choice).
public func defaultTransport() -> any WebSocketTransport {
    #if canImport(Darwin)
    return URLSessionTransport()
    #else
    return NIOTransport()
    #endif
}
