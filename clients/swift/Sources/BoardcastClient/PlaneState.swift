/// The state of a plane (PROTOCOL section 6): a shared drawing plane of rectangles.
public struct PlaneState: Codable, Sendable, Equatable {
    public struct Rectangle: Codable, Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
        /// colour channels 0...255
        public var r: Int
        public var g: Int
        public var b: Int
        /// 1...10 (out of 10)
        public var alpha: Int

        /// Whether a point is inside (edges included, as the server decides a tap).
        public func contains(x px: Double, y py: Double) -> Bool {
            x <= px && px <= x + width && y <= py && py <= y + height
        }
    }

    public var width: Double
    public var height: Double
    /// by id (`a1b-2c3-d4e`)
    public var rectangles: [String: Rectangle]
    /// ids bottom to top
    public var order: [String]
    /// each player's selected rectangle; a player with none has no key
    public var selections: [String: String]

    /// The topmost rectangle containing a point (what a tap there selects).
    public func topmost(x: Double, y: Double) -> String? {
        order.last { id in rectangles[id]?.contains(x: x, y: y) ?? false }
    }
}
