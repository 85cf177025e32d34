import Foundation

/// How many random samples (seeds, games) a search-over-values suite draws: all of them, or one
/// in `BOARDCAST_SAMPLE_DIVISOR`. scripts/test sets it for the AddressSanitizer run, where the same
/// code paths at a quarter of the draws cost a quarter of the time; the plain run draws them all.
enum SampleCount {
    static let divisor = max(1, Int(ProcessInfo.processInfo.environment["BOARDCAST_SAMPLE_DIVISOR"] ?? "") ?? 1)

    /// `n` samples, divided down (at least one).
    static func of(_ n: Int) -> Int { max(1, n / divisor) }
}
