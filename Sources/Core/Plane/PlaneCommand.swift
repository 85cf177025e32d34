/// A gesture or command on a plane, already parsed from the wire.
public enum PlaneCommand: Sendable, Equatable {
    case tap(PlanePoint)
    case doubleTap(PlanePoint)
    case drag(from: PlanePoint, to: PlanePoint)
    case reset
    case add(RectangleSpec)
    /// nil: a random colour.
    case color(RGB?)
    case alpha(step: Int)
    /// Issued by the server when a player leaves or disconnects: drops that player's selection.
    case leave
}
