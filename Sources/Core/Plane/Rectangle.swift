/// One rectangle on the plane. The plane keeps every rectangle fully inside itself.
public struct Rectangle: Sendable, Equatable {
    public let id: RectangleID
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var color: RGB
    /// Opacity in tenths, 1...10.
    public var alpha: Int

    public init(id: RectangleID, x: Double, y: Double, width: Double, height: Double, color: RGB, alpha: Int) {
        self.id = id
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.color = color
        self.alpha = alpha
    }

    public static let alphaRange = 1...10

    /// Edges count as inside, so a tap exactly on a border hits the rectangle.
    public func contains(_ p: PlanePoint) -> Bool {
        x <= p.x && p.x <= x + width && y <= p.y && p.y <= y + height
    }

    /// The document form the protocol shows under `/rectangles/ID`.
    public var json: JSON {
        .object([
            (key: "x", value: .double(x)), (key: "y", value: .double(y)),
            (key: "width", value: .double(width)), (key: "height", value: .double(height)),
            (key: "r", value: .int(color.r)), (key: "g", value: .int(color.g)), (key: "b", value: .int(color.b)),
            (key: "alpha", value: .int(alpha)),
        ])
    }
}
