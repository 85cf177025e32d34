/// Sockets lws is about to close, kept open a little longer, unread. lws sends the close frame
/// and ends its side at once; closing the socket with a flood unread in it would make the kernel
/// reset the connection, and a client that had not yet read the close frame would lose it.
/// Held, a socket costs nothing (its window is full, the client cannot send). Each is a
/// duplicate of lws's descriptor, so lws closing its own changes nothing here.
struct LingeringSockets {
    private var held: [(fd: Int32, until: Double)] = []
    static let seconds = 2.0

    var isEmpty: Bool { held.isEmpty }

    mutating func hold(_ fd: Int32, now: Double) {
        guard let copy = Listener.duplicate(fd) else { return }
        held.append((copy, now + Self.seconds))
    }

    /// Closes those held long enough.
    mutating func closeDue(now: Double) {
        held.removeAll { entry in
            guard entry.until <= now else { return false }
            Listener.closeSocket(entry.fd)
            return true
        }
    }

    mutating func closeAll() {
        for entry in held { Listener.closeSocket(entry.fd) }
        held = []
    }
}
