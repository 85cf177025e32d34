/// Overrides for the `add` command; every field left nil is chosen at random.
public struct RectangleSpec: Sendable, Equatable {
    public var x: Double?
    public var y: Double?
    public var width: Double?
    public var height: Double?
    public var r: Int?
    public var g: Int?
    public var b: Int?
    public var alpha: Int?

    public init(
        x: Double? = nil, y: Double? = nil, width: Double? = nil, height: Double? = nil,
        r: Int? = nil, g: Int? = nil, b: Int? = nil, alpha: Int? = nil
    ) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.r = r
        self.g = g
        self.b = b
        self.alpha = alpha
    }
}
