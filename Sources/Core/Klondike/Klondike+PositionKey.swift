extension Klondike {
    /// This position's key for caches of solver answers (see `KlondikePositionKey`).
    public var positionKey: KlondikePositionKey { KlondikePositionKey(self) }
}
