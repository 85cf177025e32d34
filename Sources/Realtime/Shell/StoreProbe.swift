import Foundation

/// Looks at a store over the network every half second, on a thread of its own, and reports
/// each change of its health: a node that cannot reach its store says so on `/healthz` and
/// refuses moves within 2 s (PROTOCOL 11.1), instead of when a write times out 10 s later, and
/// an outage shorter than that time-out is seen at all.
final class StoreProbe: Sendable {
    static let interval = 0.5
    private let store: any GameStore
    private let report: @Sendable (String?) -> Void
    private let stopped = LockedBox(false)

    /// `report`: the problem (nil once the store answers again), called on the probe's thread.
    init(store: any GameStore, report: @escaping @Sendable (String?) -> Void) {
        self.store = store
        self.report = report
    }

    /// A probe already running, whose reports reach the service thread's inbox.
    static func started(store: any GameStore, inbox: LockedBox<[ServiceInboxItem]>, waker: LWSWaker) -> StoreProbe {
        let probe = StoreProbe(store: store) { problem in
            inbox.withLock { $0.append(.storeHealth(problem)) }
            waker.wake()
        }
        probe.start()
        return probe
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "boardcast-probe"
        thread.start()
    }

    func stop() { stopped.set(true) }

    private func run() {
        var last: String?
        while !stopped.get() {
            let problem: String?
            do {
                try store.probe()
                problem = nil
            } catch {
                problem = "\(error)"
            }
            // The first answer is reported only if it is a problem; after that, every change.
            if problem != last {
                last = problem
                report(problem)
            }
            Thread.sleep(forTimeInterval: Self.interval)
        }
    }
}
