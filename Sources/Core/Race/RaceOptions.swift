/// How a race is set up: how many tables, and the one Klondike deal they all start from.
public struct RaceOptions: Sendable, Equatable {
    /// Tables, one per seat `p1`...`pN`: 2 to 8.
    public var seats: Int
    /// Cards per tap on the stock: 1 or 3.
    public var draw: Int
    public var deal: KlondikeDeal
    /// A secret the server draws at creation: the seeds of resets that name no seed or deck
    /// come from a SplitMix64 stream started from it, so replaying the stored commands from
    /// the stored options deals the same races again.
    public var entropy: UInt64

    public static let seatRange = 2...8

    public init(seats: Int = 2, draw: Int = 1, deal: KlondikeDeal, entropy: UInt64) {
        self.seats = seats
        self.draw = draw
        self.deal = deal
        self.entropy = entropy
    }
}
