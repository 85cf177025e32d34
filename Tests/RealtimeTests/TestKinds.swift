@testable import Realtime

/// The standard catalog's kinds, by name, for tests that make games of them.
extension GameKind {
    static let klondike = GameKind("klondike")
    static let plane = GameKind("plane")
    static let race = GameKind("race")
    static let four = GameKind("four")
}
