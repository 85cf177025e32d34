/// Names a position for a cache of hints: equal for positions whose hint is the same.
public struct PositionKey: Hashable, Sendable {
    public var kind: String
    public var bytes: [UInt8]

    public init(kind: String, bytes: [UInt8]) {
        self.kind = kind
        self.bytes = bytes
    }
}
