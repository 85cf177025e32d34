/// Paces a session's frames under the server's read limit. The server reads at most 100 frames a
/// second from a connection and answers a frame over that with an error that has no `id`
/// (PROTOCOL sections 8 and 14), so a command sent over the limit would never be answered. A
/// bucket of `burst` frames refilled at `rate` a second keeps a connection under it, pongs
/// included; a frame over the bucket waits its turn, in order.
///
/// A value that decides: given the time, it says which frames go now and how long until the
/// next may. The session's driver sends them and comes back after the wait.
struct SendPacer: Sendable {
    static let rate = 80.0
    static let burst = 40.0

    struct Frame: Sendable, Equatable {
        let connection: Int
        let text: String
    }

    private var tokens = SendPacer.burst
    private var refilledAt: Double?
    private var waiting: [Frame] = []

    /// Queues `frame`; returns what goes now.
    mutating func enqueue(_ frame: Frame, now: Double) -> (send: [Frame], wait: Double?) {
        waiting.append(frame)
        return due(now: now)
    }

    /// The frames whose turn has come, in order, and how long until the next one's, if any waits.
    mutating func due(now: Double) -> (send: [Frame], wait: Double?) {
        if let at = refilledAt { tokens = min(Self.burst, tokens + (now - at) * Self.rate) }
        refilledAt = now
        var send: [Frame] = []
        // (A hair under one: the refill after exactly the wait asked may fall short by a rounding.)
        while !waiting.isEmpty, tokens >= 1 - 1e-9 {
            send.append(waiting.removeFirst())
            tokens -= 1
        }
        return (send, waiting.isEmpty ? nil : max(1 - tokens, 0) / Self.rate)
    }

    /// Frames of a connection that is gone are dropped: the follower sends its commands again
    /// after the re-join.
    mutating func forget(connection: Int) {
        waiting.removeAll { $0.connection == connection }
    }
}
