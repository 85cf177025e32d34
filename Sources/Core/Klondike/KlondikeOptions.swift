public struct KlondikeOptions: Sendable, Equatable {
    /// Cards per tap on the stock: 1 or 3.
    public var draw: Int
    public var deal: KlondikeDeal
    /// A secret the server draws at creation: the seeds of later resets that name no seed
    /// or deck come from a SplitMix64 stream started from it, so replaying the stored
    /// commands from the stored options deals the same games again.
    public var entropy: UInt64

    public init(draw: Int = 1, deal: KlondikeDeal, entropy: UInt64) {
        self.draw = draw
        self.deal = deal
        self.entropy = entropy
    }
}

public struct KlondikeResetOptions: Sendable, Equatable {
    /// nil keeps the current draw.
    public var draw: Int?
    /// nil deals from a seed of the game's entropy stream.
    public var deal: KlondikeDeal?

    public init(draw: Int? = nil, deal: KlondikeDeal? = nil) {
        self.draw = draw
        self.deal = deal
    }
}
