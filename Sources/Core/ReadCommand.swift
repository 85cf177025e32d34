/// A command read from a client's message, with the two JSON forms the server keeps of it.
public struct ReadCommand<Command: Sendable & Equatable>: Sendable, Equatable {
    public var command: Command
    /// What every member sees as the diff's `cause` (before `by` is added): no id, token, seed or deck.
    public var cause: JSON
    /// What storage keeps to replay it: the cause plus any secret part (a seed, a deck).
    public var stored: JSON

    public init(_ command: Command, cause: JSON, stored: JSON? = nil) {
        self.command = command
        self.cause = cause
        self.stored = stored ?? cause
    }
}
