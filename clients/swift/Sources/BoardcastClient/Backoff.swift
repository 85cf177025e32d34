/// The wait before each reconnection try (PROTOCOL section 21: the first try within 1 s, then
/// at most 5 s apart, forever).
///
/// A cap starts at `initial` and grows by `factor` up to `maximum`; of it a random half to whole
/// is waited ("equal jitter"), so that clients dropped together by a server restart do not all
/// come back in the same instant. The protocol's bounds hold whatever the settings say.
public struct Backoff: Sendable, Equatable {
    /// The first try comes within this many seconds of a drop, whatever the settings.
    public static let firstTryWithin: Double = 1
    /// Later tries come at most this many seconds apart, whatever the settings.
    public static let triesAtMostApart: Double = 5

    public var initial: Double
    public var maximum: Double
    public var factor: Double

    public init(initial: Double = 0.5, maximum: Double = 5, factor: Double = 2) {
        self.initial = initial
        self.maximum = maximum
        self.factor = factor
    }

    /// The wait in seconds before try `attempt` (0: the first after a drop); `random` in [0, 1).
    public func delay(attempt: Int, random: Double) -> Double {
        let cap = min(maximum, initial * pow2(factor, min(attempt, 40)))
        var delay = cap * (0.5 + 0.5 * random)
        if !delay.isFinite || delay < 0 { delay = 0 }
        return min(delay, attempt == 0 ? Self.firstTryWithin : Self.triesAtMostApart)
    }

    private func pow2(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(0, exponent) { result *= base }
        return result
    }
}
