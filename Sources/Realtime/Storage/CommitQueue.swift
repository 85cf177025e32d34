import Foundation

/// Group commit off the socket thread.
///
/// The socket thread `submit`s each accepted command's batch and gets a ticket at
/// once; one writer thread takes everything pending, writes it in one transaction
/// (one fsync for all of it), then calls `onCommitted(highest ticket written)`.
/// The server sends a move's diff only once its ticket is reported, so a diff
/// never shows a move that a crash could take back.
///
/// Failure is fail-stop: if a write throws, `onFailure` is called once on the
/// writer thread and nothing more is written, ever (later commands would depend
/// on the ones that failed). Tickets from then on are never reported; the server
/// is expected to log the error and stop, so that no accepted move is silently lost.
///
/// `onCommitted` runs on the writer thread; `onFailure` too, or on the submitting thread
/// for a refused batch. Neither may call `flush()` or `close()` (they wait for that thread).
/// Shutdown order: stop submitting, `close()` the queue, then close the store.
public final class CommitQueue: Sendable {
    private let worker: CommitWorker

    public init(
        store: any GameStore,
        onCommitted: @escaping @Sendable (UInt64) -> Void,
        onFailure: @escaping @Sendable (any Error) -> Void
    ) {
        worker = CommitWorker(store: store, onCommitted: onCommitted, onFailure: onFailure)
        // The thread holds the worker, not the queue, so dropping the queue still closes it.
        let thread = Thread { [worker] in worker.run() }
        thread.name = "boardcast-commit"
        thread.start()
    }

    deinit {
        worker.close()
    }

    /// Queues a batch and returns its ticket (1, 2, ...). Never waits for the disk.
    /// After `close()` or a failure the batch is not stored, and `onFailure` says so.
    @discardableResult
    public func submit(_ batch: StoreBatch) -> UInt64 {
        worker.submit(batch)
    }

    /// Blocks until everything submitted before the call is durable and reported
    /// through `onCommitted`, or the queue has failed (then `failure` says why).
    public func flush() {
        worker.flush()
    }

    /// Writes what is pending, then stops the writer thread. Idempotent.
    public func close() {
        worker.close()
    }

    /// The highest ticket known durable.
    public var durableTicket: UInt64 { worker.durableTicket }

    /// The error that stopped the queue, if any.
    public var failure: (any Error)? { worker.failure }
}

public enum CommitQueueError: Error, CustomStringConvertible {
    /// A batch was submitted after `close()` or after an earlier write failed.
    case notAccepting(ticket: UInt64, after: String)

    public var description: String {
        switch self {
        case .notAccepting(let ticket, let after):
            return "commit queue: batch \(ticket) was not stored: the queue stopped after \(after)"
        }
    }
}

// @unchecked Sendable: every mutable field is read and written only while `condition` is locked;
// `store` and the callbacks are Sendable and immutable.
private final class CommitWorker: @unchecked Sendable {
    private let store: any GameStore
    private let onCommitted: @Sendable (UInt64) -> Void
    private let onFailure: @Sendable (any Error) -> Void

    /// A pthread mutex and condition underneath, which ThreadSanitizer understands.
    private let condition = NSCondition()
    private var pending = StoreBatch()
    private var lastIssued: UInt64 = 0
    /// The highest ticket whose batch is in `pending` or written; refused tickets never are.
    private var lastAccepted: UInt64 = 0
    private var lastTaken: UInt64 = 0
    private var lastDurable: UInt64 = 0
    /// Reported through `onCommitted`: what `flush` waits for, so that its return implies the callback ran.
    private var lastReported: UInt64 = 0
    /// Set when a write fails, before `onFailure` runs: from then on submissions are refused.
    private var stopReason: String?
    /// Set once `onFailure` has returned, so that `flush` returning implies the callback ran.
    private var writeError: (any Error)?
    private var closing = false
    private var finished = false
    private var writerIsWaiting = false

    init(
        store: any GameStore,
        onCommitted: @escaping @Sendable (UInt64) -> Void,
        onFailure: @escaping @Sendable (any Error) -> Void
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
            refusal = .notAccepting(ticket: ticket, after: stopReason ?? "close()")
        } else {
            refusal = nil
            lastAccepted = ticket
            pending.append(batch)
            if writerIsWaiting { condition.broadcast() }
        }
        condition.unlock()
        if let refusal { onFailure(refusal) }
        return ticket
    }

    func flush() {
        condition.lock()
        let target = lastAccepted
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
        return writeError
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
            pending = StoreBatch()
            let ticket = lastAccepted
            lastTaken = ticket
            condition.unlock()

            do {
                try store.write(batch)
            } catch {
                condition.lock()
                stopReason = "a failed write: \(error)"
                condition.unlock()
                onFailure(error)
                condition.lock()
                writeError = error
                break
            }

            condition.lock()
            lastDurable = ticket
            condition.unlock()
            onCommitted(ticket)
            condition.lock()
            lastReported = ticket
            condition.broadcast()
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}
