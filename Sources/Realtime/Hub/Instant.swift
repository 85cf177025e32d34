/// The one clock of the realtime layer: a reading taken once by the shell per event and
/// passed explicitly to every part that needs time. Intervals, deadlines, leases and rate
/// limits use `monotonic` (it never jumps); `unixTime` is only for what a person reads or
/// what outlives the process (a game's `created`/`updated`, a command's time, a chat line).
struct Instant: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// Seconds on a monotonic clock (the process's own origin).
    var monotonic: Double
    /// Seconds since the Unix epoch, read together with `monotonic`.
    var unixTime: Double

    init(monotonic: Double, unixTime: Double) {
        self.monotonic = monotonic
        self.unixTime = unixTime
    }

    /// This instant `seconds` later on both clocks.
    static func + (instant: Instant, seconds: Double) -> Instant {
        Instant(monotonic: instant.monotonic + seconds, unixTime: instant.unixTime + seconds)
    }

    public static func += (instant: inout Instant, seconds: Double) { instant = instant + seconds }

    /// Seconds from `earlier` to this instant, on the monotonic clock.
    func since(_ earlier: Instant) -> Double { monotonic - earlier.monotonic }

    static func < (a: Instant, b: Instant) -> Bool { a.monotonic < b.monotonic }

    /// Before any real reading: what "never happened" compares as.
    static let distantPast = Instant(monotonic: -.infinity, unixTime: -.infinity)

    var description: String { "t+\(monotonic)s" }
}
