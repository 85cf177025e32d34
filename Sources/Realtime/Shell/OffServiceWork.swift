import Core
import Foundation

/// What the service thread hands to other threads and hears back through its inbox:
/// commits, storage reads, solves, the stop signal.
enum ServiceInboxItem: Sendable {
    case event(HubEvent)
    case committed(UInt64, [String: WriteRefusal])
    case stop
    case integrity([String])
    /// A retention batch deleted these games (nil: the store failed).
    case deleted([String]?)
    case usage(StorageUsage?)
    /// The store probe saw the store stop (a problem) or start (nil) answering.
    case storeHealth(String?)
}

/// The threads that do what must never run on the service thread: storage reads (loads,
/// history pages, lookups, listings, claims) on a concurrent queue, solves on one worker per
/// core but the service thread's, and the pool of proven seeds at the lowest priority. Each
/// result goes to the service thread's inbox, and `waker` wakes it.
final class OffServiceWork: Sendable {
    private let inbox: LockedBox<[ServiceInboxItem]>
    private let waker: LWSWaker
    private let solverBudget: Int
    private let prover: (any SeedProver)?
    private let readers = DispatchQueue(label: "boardcast-read", attributes: .concurrent)
    /// A hard search takes up to its budget, so solves wait for one of these slots.
    private let solvers = DispatchQueue(label: "boardcast-solve", attributes: .concurrent)
    private let solverSlots = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    init(inbox: LockedBox<[ServiceInboxItem]>, waker: LWSWaker, solverBudget: Int, prover: (any SeedProver)?) {
        self.prover = prover
        self.inbox = inbox
        self.waker = waker
        self.solverBudget = solverBudget
    }

    /// Runs `work` on a reader and posts what it returns.
    func read(_ work: @escaping @Sendable () -> ServiceInboxItem) {
        let inbox = self.inbox
        let waker = self.waker
        readers.async {
            let item = work()
            inbox.withLock { $0.append(item) }
            waker.wake()
        }
    }

    /// Runs `work` on a reader; nothing comes back.
    func run(_ work: @escaping @Sendable () -> Void) { readers.async(execute: work) }

    func solve(_ job: SolveJob) {
        let inbox = self.inbox
        let waker = self.waker
        let budget = solverBudget
        let prover = self.prover
        let post: @Sendable (SolveResult) -> Void = { result in
            inbox.withLock { $0.append(.event(.solved(result))) }
            waker.wake()
        }
        if case .refill = job {
            // Filling the pool is for later: a thread of its own at the lowest priority, never
            // taking a core from the service thread or from someone's hint. (Not a Dispatch
            // worker: its niceness would stay with the worker for whatever runs on it next.)
            let filler = Thread {
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                post(SolverWork.run(job, budget: budget, prover: prover))
            }
            filler.name = "boardcast-pool"
            filler.start()
            return
        }
        let slots = solverSlots
        solvers.async {
            slots.wait()
            let result = SolverWork.run(job, budget: budget, prover: prover)
            slots.signal()
            post(result)
        }
    }
}
