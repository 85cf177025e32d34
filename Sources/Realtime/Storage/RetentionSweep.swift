/// When to delete games nobody touched for `--retain-days` (PROTOCOL section 14), decided
/// in plain Swift; the server runs each batch on a reader thread. Batches are bounded (a
/// transaction each), follow each other while a batch comes back full, then wait for the next
/// sweep: a backlog of old games is cleared steadily without holding the store for long.
public struct RetentionSweep: Sendable {
    /// Games untouched for this many seconds are deleted.
    public let retainSeconds: Double
    /// Games deleted per batch (one transaction).
    public let batch: Int
    /// Seconds between sweeps: a twentieth of the retention, within a second and an hour.
    public let interval: Double
    /// Seconds between two batches of one sweep.
    public let pause: Double

    private var nextAt: Double
    private var running = false

    /// `start`: now on the monotonic clock. The first sweep comes one interval later (at most a
    /// minute): start-up, and whatever measures it, comes first.
    public init(retainDays: Double, batch: Int = 500, pause: Double = 0.1, start: Double) {
        retainSeconds = retainDays * 86_400
        self.batch = max(1, batch)
        self.pause = pause
        interval = min(3600, max(1, retainSeconds / 20))
        nextAt = start + min(60, interval)
    }

    /// A batch to run now (games untouched before this Unix time), or nil. `monotonic`: now,
    /// for the schedule; `unixTime`: now, which the cut-off counts back from.
    public mutating func due(monotonic: Double, unixTime: Double) -> Double? {
        guard !running, monotonic >= nextAt else { return nil }
        running = true
        return unixTime - retainSeconds
    }

    /// A batch ended having deleted `deleted` games (nil: the store failed): the next one
    /// follows at once while batches come back full, else at the next sweep.
    public mutating func finished(deleted: Int?, monotonic: Double) {
        running = false
        if let deleted, deleted >= batch {
            nextAt = monotonic + pause
        } else {
            nextAt = monotonic + interval
        }
    }
}
