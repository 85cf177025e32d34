/// What happens to a connection whose control frames (pings, pongs) go on past the rate
/// limit they share with messages (PROTOCOL section 2: a bucket of 100 refilled at 100/s).
///
/// lws answers a ping with a pong itself, before the protocol hears of it, so a ping over the
/// limit cannot be refused unread the way a message is (with `rate-limited`). What the server
/// can do is stop reading: each control frame over the limit pauses reading the connection
/// for `pause` seconds (its frames wait in the kernel, which pushes back on the client, and
/// cost the server nothing), and a connection still flooding `cutoff` seconds after its flood
/// began is closed with 1008 (policy violation). A flood ends after `quiet` seconds without a
/// control frame over the limit. A client that pings now and then never meets any of this.
struct ControlFloodGuard: Equatable {
    static let pause = 1.0
    static let cutoff = 3.0
    /// Longer than `pause`: a paused flooder that resumes flooding is the same flood.
    static let quiet = 2.0

    enum Action: Equatable {
        /// Stop reading the connection until then.
        case pause(until: Double)
        /// Close it with 1008.
        case close
    }

    private var floodStart = -Double.infinity
    private var lastOver = -Double.infinity

    /// A control frame found the bucket empty at `now`.
    mutating func overLimit(now: Double) -> Action {
        if now - lastOver > ControlFloodGuard.quiet { floodStart = now }
        lastOver = now
        return now - floodStart >= ControlFloodGuard.cutoff ? .close : .pause(until: now + ControlFloodGuard.pause)
    }
}
