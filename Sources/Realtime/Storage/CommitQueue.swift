import Foundation

/// Group commit off the socket thread.
///
/// The socket thread `submit`s each accepted command's batch and gets a ticket at
/// once; one writer thread takes everything pending, writes it in one transaction
/// (one fsync for all of it), then calls `onCommitted(highest ticket written)`.
/// The server sends a move's diff only once its ticket is reported, so a diff
/// never shows a move that a crash could take back.
///
/// A game the store refuses (its id taken, or, with a fence, another node owns it) is not a
/// failure: the rest of its batch is durable, and `onCommitted` carries the `WriteOutcome`
/// that names the refused games, for the owner to handle.
///
/// Failure stops the queue until its owner says it has handled it: when a write
/// throws (a full disk, a read-only directory), `onFailure` reports the tickets of that
/// batch, and every batch submitted after it is refused and reported the same way
/// (later commands may depend on the lost ones), until `resume()`. The server rebuilds
/// the games those batches touched from storage, then resumes; nothing is half-written.
///
/// `onCommitted` runs on the writer thread; `onFailure` too, or on the submitting thread
/// for a refused batch. Neither may call `flush()` or `close()` (they wait for that thread).
/// Shutdown order: stop submitting, `close()` the queue, then close the store.
public final class CommitQueue: Sendable {
    private let worker: CommitWorker

    /// A queue whose owner learns, with each committed ticket, which games of the written
    /// batches were refused.
    public init(
        store: any GameStore,
        onCommitted: @escaping @Sendable (UInt64, WriteOutcome) -> Void,
        onFailure: @escaping @Sendable (ClosedRange<UInt64>, any Error) -> Void
    ) {
        worker = CommitWorker(store: store, onCommitted: onCommitted, onFailure: onFailure)
        // The thread holds the worker, not the queue, so dropping the queue still closes it.
        let thread = Thread { [worker] in
            // Every move's ack waits for this thread, and it does little: ahead of busier threads
            // when the cores are saturated (a crowd arriving). Needs the privilege to raise
            // priority; without it the thread keeps the default, which is only slower.
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, -5)
            worker.run()
        }
        thread.name = "boardcast-commit"
        thread.start()
    }

    /// A queue whose owner never has games refused (it marks no game new and sets no fence).
    public convenience init(
        store: any GameStore,
        onCommitted: @escaping @Sendable (UInt64) -> Void,
        onFailure: @escaping @Sendable (ClosedRange<UInt64>, any Error) -> Void
    ) {
        self.init(store: store, onCommitted: { ticket, _ in onCommitted(ticket) }, onFailure: onFailure)
    }

    deinit {
        worker.close()
    }

    /// Queues a batch and returns its ticket (1, 2, ...). Never waits for the disk.
    /// After `close()`, or a failure not yet followed by `resume()`, the batch is not
    /// stored, and `onFailure` says so.
    @discardableResult
    public func submit(_ batch: StoreBatch) -> UInt64 {
        worker.submit(batch)
    }

    /// Blocks until everything submitted before the call is durable and reported
    /// through `onCommitted`, or the queue has failed (then `failure` says why).
    public func flush() {
        worker.flush()
    }

    /// Accepts batches again after a failure: the caller has handled every ticket reported failed.
    public func resume() {
        worker.resume()
    }

    /// Writes what is pending, then stops the writer thread. Idempotent.
    public func close() {
        worker.close()
    }

    /// The highest ticket known durable.
    public var durableTicket: UInt64 { worker.durableTicket }

    /// The error of the last failed write, until a later write succeeds.
    public var failure: (any Error)? { worker.failure }
}

public enum CommitQueueError: Error, CustomStringConvertible {
    /// A batch was submitted after `close()` or after an earlier write failed.
    case notAccepting(tickets: ClosedRange<UInt64>, after: String)

    public var description: String {
        switch self {
        case .notAccepting(let tickets, let after):
            let which = tickets.count == 1 ? "batch \(tickets.lowerBound)" : "batches \(tickets.lowerBound)-\(tickets.upperBound)"
            return "commit queue: \(which) not stored: the queue stopped after \(after)"
        }
    }
}

// @unchecked Sendable: every mutable field is read and written only while `condition` is locked;
// `store` and the callbacks are Sendable and immutable.
private final class CommitWorker: @unchecked Sendable {
    private let store: any GameStore
    private let onCommitted: @Sendable (UInt64, WriteOutcome) -> Void
    private let onFailure: @Sendable (ClosedRange<UInt64>, any Error) -> Void

    /// A pthread mutex and condition underneath, which ThreadSanitizer understands.
    private let condition = NSCondition()
    private var pending = StoreBatch()
    /// The tickets of the batches in `pending`.
    private var pendingFirst: UInt64 = 1
    private var lastIssued: UInt64 = 0
    /// The highest ticket whose batch is in `pending` or written; refused tickets never are.
    private var lastAccepted: UInt64 = 0
    private var lastTaken: UInt64 = 0
    private var lastDurable: UInt64 = 0
    /// Reported through either callback: what `flush` waits for, so that its return implies the callback ran.
    private var lastReported: UInt64 = 0
    /// Set when a write fails: submissions are refused until `resume()`.
    private var stopReason: String?
    private var lastError: (any Error)?
    private var closing = false
    private var finished = false
    private var writerIsWaiting = false

    init(
        store: any GameStore,
        onCommitted: @escaping @Sendable (UInt64, WriteOutcome) -> Void,
        onFailure: @escaping @Sendable (ClosedRange<UInt64>, any Error) -> Void
    ) {
        self.store = store
        self.onCommitted = onCommitted
        self.onFailure = onFailure
    }

    func submit(_ batch: StoreBatch) -> UInt64 {
        condition.lock()
        lastIssued += 1
        let ticket = lastIssued
        let refusal: CommitQueueError?
        if closing || stopReason != nil {
            refusal = .notAccepting(tickets: ticket...ticket, after: stopReason ?? "close()")
        } else {
            refusal = nil
            if lastAccepted == lastTaken { pendingFirst = ticket }
            lastAccepted = ticket
            pending.append(batch)
            if writerIsWaiting { condition.broadcast() }
        }
        condition.unlock()
        if let refusal {
            onFailure(ticket...ticket, refusal)
            condition.lock()
            lastReported = max(lastReported, ticket)
            condition.broadcast()
            condition.unlock()
        }
        return ticket
    }

    func resume() {
        condition.lock()
        stopReason = nil
        condition.unlock()
    }

    func flush() {
        condition.lock()
        let target = lastIssued
        while lastReported < target && !finished { condition.wait() }
        condition.unlock()
    }

    func close() {
        condition.lock()
        closing = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    var durableTicket: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return lastDurable
    }

    var failure: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return lastError
    }

    /// The writer thread's whole life.
    func run() {
        condition.lock()
        while true {
            while lastTaken == lastAccepted && !closing {
                writerIsWaiting = true
                condition.wait()
                writerIsWaiting = false
            }
            if lastTaken == lastAccepted { break }  // closing, and everything accepted is written
            let batch = pending
            let first = pendingFirst
            pending = StoreBatch()
            let ticket = lastAccepted
            lastTaken = ticket
            condition.unlock()

            var failed: (any Error)?
            var outcome = WriteOutcome()
            do {
                outcome = try store.write(batch)
            } catch {
                failed = error
            }

            condition.lock()
            if let failed {
                stopReason = "a failed write: \(failed)"
                lastError = failed
                // Batches accepted meanwhile may build on the lost ones: they go too.
                let through = lastAccepted
                pending = StoreBatch()
                lastTaken = through
                condition.unlock()
                onFailure(first...ticket, failed)
                if through > ticket {
                    onFailure((ticket + 1)...through, CommitQueueError.notAccepting(
                        tickets: (ticket + 1)...through, after: "a failed write: \(failed)"))
                }
                condition.lock()
                lastReported = max(lastReported, through)
            } else {
                lastDurable = ticket
                lastError = nil
                condition.unlock()
                onCommitted(ticket, outcome)
                condition.lock()
                lastReported = max(lastReported, ticket)
            }
            condition.broadcast()
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}
