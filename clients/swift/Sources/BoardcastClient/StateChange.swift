/// One change of a followed game's state, in `seq` order.
public struct StateChange: Sendable, Equatable {
    public enum Via: String, Sendable {
        case snapshot
        case diff
    }

    /// The seq of `state`.
    public let seq: Int
    /// The state at `seq`.
    public let state: JSONValue
    /// The state before (nil for a first snapshot).
    public let previous: JSONValue?
    public let via: Via
    /// The diff's `cause` (PROTOCOL section 4): the command that made it, with `by`; nil for a snapshot.
    public let cause: JSONValue?
    /// The diff's RFC 6902 operations; nil for a snapshot.
    public let ops: JSONValue?

    public init(seq: Int, state: JSONValue, previous: JSONValue?, via: Via, cause: JSONValue?, ops: JSONValue?) {
        self.seq = seq
        self.state = state
        self.previous = previous
        self.via = via
        self.cause = cause
        self.ops = ops
    }
}

/// Where a session is with its connection.
public enum SessionStatus: String, Sendable {
    /// opening a connection
    case connecting
    /// signing in and joining (or watching, or creating)
    case joining
    /// joined: commands go out at once
    case ready
    /// the connection dropped: waiting for the next try
    case reconnecting
    /// let go of the socket by `suspend()` (an iOS app in the background)
    case suspended
    /// closed for good
    case closed
}
