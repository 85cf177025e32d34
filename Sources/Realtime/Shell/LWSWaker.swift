import CLibWebSockets

/// Wakes the service thread so it calls `LWSEvents.wokenUp()`: the one lws call
/// that is safe from any thread.
public final class LWSWaker: Sendable {
    /// The context pointer, set once it exists and cleared before it is destroyed;
    /// `lws_cancel_service` on it is thread-safe, and the lock keeps it from racing the destroy.
    private struct ContextHandle: @unchecked Sendable { let pointer: OpaquePointer }
    private let handle = LockedBox<ContextHandle?>(nil)

    func attach(_ context: OpaquePointer) { handle.set(ContextHandle(pointer: context)) }
    func detach() { handle.set(nil) }

    public func wake() {
        handle.withLock { if let context = $0 { lws_cancel_service(context.pointer) } }
    }
}
