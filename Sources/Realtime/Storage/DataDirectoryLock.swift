#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a file in the data directory, held while a store is open.
///
/// Two servers writing one database would each number moves from their own memory
/// and interleave seqs; SQLite's own locks serialise transactions but cannot see that.
/// The kernel drops the lock when the process dies, so a `kill -9` never leaves it stale.
///
/// The lock belongs to the open file, not to this descriptor: a process spawned by another
/// thread holds a copy of the descriptor until its `exec` closes it (`O_CLOEXEC`), so closing
/// ours alone could leave the directory locked for that moment. Every way out unlocks first.
final class DataDirectoryLock: Sendable {
    let path: String
    let descriptor: Int32

    init(path: String, directory: String) throws {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StorageError.cannotOpen(path: path, detail: "cannot create the lock file: \(Self.lastError())")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { throw StorageError.inUse(path: directory) }
            throw StorageError.cannotOpen(path: path, detail: "cannot lock: \(String(cString: strerror(code)))")
        }
        self.descriptor = descriptor
    }

    /// Lets another store open the directory; closing the descriptor in `deinit` does the same.
    func release() {
        _ = flock(descriptor, LOCK_UN)
    }

    deinit {
        release()
        close(descriptor)
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
