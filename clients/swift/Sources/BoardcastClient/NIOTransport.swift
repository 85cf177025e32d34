#if !canImport(Darwin)
import Foundation
import Logging
import NIOCore
import NIOWebSocket
import WSClient

/// The transport off Apple platforms: hummingbird-project/swift-websocket's `WebSocketClient`
/// (SwiftNIO), which does the HTTP upgrade, masking, fragmentation, ping answers and the close
/// handshake. Each connection runs the client's structured handler in a task of its own and
/// bridges it to the `WebSocketConnection` streams.
public struct NIOTransport: WebSocketTransport {
    /// Largest frame and message accepted: the server's messages are at most 64 KiB
    /// (PROTOCOL section 2), a snapshot of a big race a little more; leave room.
    public var maxMessageSize: Int

    public init(maxMessageSize: Int = 1 << 22) {
        self.maxMessageSize = maxMessageSize
    }

    public func connect(to url: URL) -> any WebSocketConnection {
        NIOConnection(url: url, maxMessageSize: maxMessageSize)
    }
}

final class NIOConnection: WebSocketConnection, @unchecked Sendable {
    enum Outbound: Sendable {
        case text(String)
        case close
    }

    let events: AsyncStream<TransportEvent>
    private let eventSink: AsyncStream<TransportEvent>.Continuation
    private let outbound: AsyncStream<Outbound>
    private let outboundSink: AsyncStream<Outbound>.Continuation
    // Set once in init, read-only after: the reason for @unchecked Sendable.
    private var task: Task<Void, Never>?

    init(url: URL, maxMessageSize: Int) {
        (events, eventSink) = AsyncStream.makeStream(of: TransportEvent.self)
        (outbound, outboundSink) = AsyncStream.makeStream(of: Outbound.self)
        let eventSink = self.eventSink
        let outbound = self.outbound
        let logger = Logger(label: "boardcast.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
        var configuration = WebSocketClientConfiguration()
        configuration.maxFrameSize = maxMessageSize
        // The server pings every --ping-interval and we answer; no pings of our own are needed.
        configuration.autoPing = .disabled
        configuration.closeTimeout = .seconds(2)
        task = Task {
            var reason = "closed"
            do {
                let close = try await WebSocketClient.connect(url: url.absoluteString, configuration: configuration, logger: logger) {
                    inbound, writer, _ in
                    eventSink.yield(.opened)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await item in outbound {
                                switch item {
                                case .text(let text):
                                    try await writer.write(.text(text))
                                case .close:
                                    try await writer.close(.normalClosure, reason: nil)
                                    return
                                }
                            }
                        }
                        for try await message in inbound.messages(maxSize: maxMessageSize) {
                            if case .text(let text) = message { eventSink.yield(.text(text)) }
                        }
                        group.cancelAll()
                    }
                }
                if let close { reason = "closed (\(close.closeCode))" }
            } catch {
                reason = "\(error)"
            }
            eventSink.yield(.closed(reason))
            eventSink.finish()
        }
    }

    func send(_ text: String) {
        outboundSink.yield(.text(text))
    }

    func close() {
        outboundSink.yield(.close)
        outboundSink.finish()
        // Do not wait for a server that does not answer the close: let go after a moment.
        let task = self.task
        Task {
            try? await Task.sleep(for: .seconds(2))
            task?.cancel()
        }
    }
}
#endif
