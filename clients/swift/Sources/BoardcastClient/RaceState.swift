/// The state of a race (PROTOCOL section 13): several players on the same Klondike deal.
///
/// A seated player sees rivals' tables with every card but the foundations as `"??"`.
public struct RaceState: Codable, Sendable, Equatable {
    /// 2 to 8
    public var seats: Int
    /// `waiting`, `playing` or `finished`
    public var status: String
    /// each seat's table, by seat (`p1`, `p2`, ...)
    public var tables: [String: KlondikeState]
    /// the seats in the order their tables were won
    public var finished: [String]
}
