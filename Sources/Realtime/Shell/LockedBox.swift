import Foundation

/// A value behind a pthread mutex. A pthread mutex rather than `Synchronization.Mutex`
/// because ThreadSanitizer on Linux cannot see the latter (futexes) and reports false races.
public final class LockedBox<Value>: @unchecked Sendable {
    // Safe: every access to `value` holds `mutex`.
    private var mutex = pthread_mutex_t()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body(&value)
    }

    public func get() -> Value { withLock { $0 } }
    public func set(_ newValue: Value) { withLock { $0 = newValue } }
}
