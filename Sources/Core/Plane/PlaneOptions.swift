/// How a plane is created: its size and the seed of everything random in it.
public struct PlaneOptions: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var seed: UInt64

    public init(width: Double = 1024, height: Double = 768, seed: UInt64) {
        self.width = width
        self.height = height
        self.seed = seed
    }

    /// The largest side a plane may have; keeps every stored coordinate a modest number.
    public static let maxSide = 100_000.0
}
