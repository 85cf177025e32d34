import Foundation

/// A value published to any number of `AsyncStream` subscribers, each of which gets every value
/// from its subscription on, in order (unbounded buffering: a slow reader misses nothing).
/// With `replaysLatest`, a new subscriber first gets the latest value.
final class Broadcast<Element: Sendable>: Sendable {
    private struct Inner {
        var subscribers: [UInt64: AsyncStream<Element>.Continuation] = [:]
        var next: UInt64 = 0
        var latest: Element?
        var finished = false
    }

    private let inner = Locked(Inner())
    private let replaysLatest: Bool

    init(replaysLatest: Bool = false) {
        self.replaysLatest = replaysLatest
    }

    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let id: UInt64? = inner.withLock { inner in
            // Under the lock, so no value published meanwhile is missed or seen twice.
            if replaysLatest, let latest = inner.latest { continuation.yield(latest) }
            if inner.finished {
                continuation.finish()
                return nil
            }
            let id = inner.next
            inner.next += 1
            inner.subscribers[id] = continuation
            return id
        }
        if let id {
            continuation.onTermination = { [weak self] _ in
                _ = self?.inner.withLock { $0.subscribers.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// Publishes from one writer at a time (the session's actor), so order is kept.
    func publish(_ value: Element) {
        let subscribers = inner.withLock { inner -> [AsyncStream<Element>.Continuation] in
            inner.latest = value
            return Array(inner.subscribers.values)
        }
        for s in subscribers { s.yield(value) }
    }

    func finish() {
        let subscribers = inner.withLock { inner -> [AsyncStream<Element>.Continuation] in
            inner.finished = true
            defer { inner.subscribers.removeAll() }
            return Array(inner.subscribers.values)
        }
        for s in subscribers { s.finish() }
    }
}
