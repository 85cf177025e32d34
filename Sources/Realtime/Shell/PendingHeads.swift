import CLibWebSockets

/// New connections on their way to lws: each goes to lws once its first request head (request
/// line and header fields) is in and within limits (`RequestHead`), since lws 4.1.6 would close
/// a connection without a status line on a path that decodes to a NUL or on headers that
/// overflow its header space or field table, and answer a bad percent-escape with an HTML 403. A
/// bad line is answered 400 here, headers over the limits 431; a head not in yet is waited for
/// with a libev watcher (`boardcast_head_watch`), and a connection that sends no whole head in
/// `timeout` seconds is closed. Only peeks, so lws reads the same bytes. Later requests on a
/// kept-alive connection are lws's alone. Runs on the service thread; owns its watchers and the
/// peek buffer.
final class PendingHeads {
    private let loop: UnsafeMutableRawPointer
    private let ready: UnsafeMutableRawPointer
    /// By socket: its watch, when it was accepted, what was read of its head, and its read
    /// low-water mark (1 unless part of a head came, then one byte more than came).
    private var waiting: [Int32: (watch: UnsafeMutableRawPointer, since: Double, head: RequestHead, lowWater: Int)] = [:]
    private var lastSweep = 0.0
    private let timeout: Double
    private let peekBuffer = UnsafeMutableRawPointer.allocate(byteCount: Listener.peekCapacity, alignment: 16)

    init?(loop: UnsafeMutableRawPointer, timeout: Double = 10) {
        guard let ready = boardcast_head_list_new() else { return nil }
        self.loop = loop
        self.ready = ready
        self.timeout = timeout
    }

    /// Call `close()` first: the watchers are on the loop, which may be gone by now.
    deinit {
        boardcast_head_list_free(ready)
        peekBuffer.deallocate()
    }

    var isEmpty: Bool { waiting.isEmpty }

    /// Looks at a new connection's first bytes: `adopt` gets it once its request head is in
    /// and within limits; a bad line is answered 400, headers over the limits 431, and closed;
    /// else it waits. `head` is what was read of them before.
    func admit(_ fd: Int32, since: Double, head: RequestHead = RequestHead(), lowWater: Int, adopt: (Int32) -> Void) {
        switch Listener.peek(fd, buffer: peekBuffer) {
        case .gone:
            Listener.closeSocket(fd)
        case .nothingYet:
            wait(fd, since: since, head: head, lowWater: lowWater)
        case .bytes(let count):
            var head = head
            switch head.read(UnsafeRawBufferPointer(start: peekBuffer, count: count)) {
            case .pass:
                if lowWater > 1 { Listener.setReadLowWater(fd, 1) }
                adopt(fd)
            case .incomplete:
                wait(fd, since: since, head: head, lowWater: count + 1)
            case .refuse(let response):
                Listener.refuse(fd, answer: response.closingBytes, buffer: peekBuffer)
            }
        }
    }

    /// After a loop iteration: looks again at every waiting connection that became readable,
    /// and, once a second, closes those past `timeout`.
    func admitReady(now: Double, adopt: (Int32) -> Void) {
        while let watch = boardcast_head_take(ready) {
            let fd = boardcast_head_watch_fd(watch)
            boardcast_head_watch_free(loop, watch)
            guard let entry = waiting.removeValue(forKey: fd) else { continue }
            admit(fd, since: entry.since, head: entry.head, lowWater: entry.lowWater, adopt: adopt)
        }
        if now - lastSweep >= 1 { expire(now: now) }
    }

    /// Closes every waiting connection (the server stops).
    func close() {
        while boardcast_head_take(ready) != nil {}
        for (fd, entry) in waiting {
            boardcast_head_watch_free(loop, entry.watch)
            Listener.closeSocket(fd)
        }
        waiting = [:]
    }

    private func wait(_ fd: Int32, since: Double, head: RequestHead, lowWater: Int) {
        guard let watch = boardcast_head_watch_start(loop, ready, fd) else {
            Listener.closeSocket(fd)
            return
        }
        if lowWater > 1 { Listener.setReadLowWater(fd, lowWater) }
        waiting[fd] = (watch, since, head, lowWater)
    }

    private func expire(now: Double) {
        lastSweep = now
        for (fd, entry) in waiting where now - entry.since > timeout {
            boardcast_head_watch_free(loop, entry.watch)
            waiting[fd] = nil
            Listener.closeSocket(fd)
        }
    }
}
