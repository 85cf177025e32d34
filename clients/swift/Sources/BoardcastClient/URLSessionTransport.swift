#if canImport(Darwin)
import Foundation

/// The transport on Apple platforms: `URLSessionWebSocketTask`, which the system keeps working
/// with the device's proxies, VPNs and network changes, and which needs no dependency.
public struct URLSessionTransport: WebSocketTransport {
    public var configuration: URLSessionConfiguration

    public init(configuration: URLSessionConfiguration = .default) {
        self.configuration = configuration
    }

    public func connect(to url: URL) -> any WebSocketConnection {
        URLSessionConnection(url: url, configuration: configuration)
    }
}

final class URLSessionConnection: NSObject, WebSocketConnection, URLSessionWebSocketDelegate, @unchecked Sendable {
    let events: AsyncStream<TransportEvent>
    private let sink: AsyncStream<TransportEvent>.Continuation
    // Set once in init, read-only after: the reason for @unchecked Sendable.
    private var session: URLSession!
    private var task: URLSessionWebSocketTask!

    init(url: URL, configuration: URLSessionConfiguration) {
        (events, sink) = AsyncStream.makeStream(of: TransportEvent.self)
        super.init()
        // The delegate queue is serial, so opened, frames and closed arrive in order.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        task = session.webSocketTask(with: url)
        task.maximumMessageSize = 1 << 22
        task.resume()
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        sink.yield(.opened)
        receive()
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        finish("closed (\(closeCode.rawValue))")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish(error.map { "\($0.localizedDescription)" } ?? "closed")
    }

    private func receive() {
        task.receive { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.string(let text)):
                self.sink.yield(.text(text))
                self.receive()
            case .success:
                self.receive()  // binary frames are not part of the protocol
            case .failure(let error):
                self.finish(error.localizedDescription)
            }
        }
    }

    private func finish(_ reason: String) {
        // AsyncStream ignores what is yielded after finish(): a second `closed` is dropped.
        sink.yield(.closed(reason))
        sink.finish()
        session.invalidateAndCancel()  // the session holds its delegate strongly until then
    }

    func send(_ text: String) {
        task.send(.string(text)) { _ in }  // a failed send shows up as the connection closing
    }

    func close() {
        task.cancel(with: .normalClosure, reason: nil)
        finish("closed by the client")
    }
}
#endif
