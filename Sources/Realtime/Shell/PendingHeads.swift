import CLibWebSockets

/// New connections on their way to lws: each goes to lws once its first request line is in
/// and well-formed (`RequestLine`), since lws 4.1.6 would close a connection without a status
/// line on a path that decodes to a NUL, and answer a bad percent-escape with an HTML 403. A
/// bad line is answered 400 here; a line not in yet is waited for with a libev watcher
/// (`boardcast_head_watch`), and a connection that sends no whole line in `timeout` seconds is
/// closed. Only peeks, so lws reads the same bytes. Later requests on a kept-alive connection
/// are lws's alone. Runs on the service thread; owns its watchers and the peek buffer.
final class PendingHeads {
    private let loop: UnsafeMutableRawPointer
    private let ready: UnsafeMutableRawPointer
    /// By socket: its watch, when it was accepted, and its read low-water mark (1 unless part
    /// of a line came, then one byte more than came).
    private var waiting: [Int32: (watch: UnsafeMutableRawPointer, since: Double, lowWater: Int)] = [:]
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

    /// Looks at a new connection's first bytes: `adopt` gets it once its request line is in
    /// and well-formed; a bad line is answered 400 and closed; else it waits.
    func admit(_ fd: Int32, since: Double, lowWater: Int, adopt: (Int32) -> Void) {
        switch Listener.peek(fd, buffer: peekBuffer) {
        case .gone:
            Listener.closeSocket(fd)
        case .nothingYet:
            wait(fd, since: since, lowWater: lowWater)
        case .bytes(let bytes):
            switch RequestLine.check(bytes) {
            case .pass:
                if lowWater > 1 { Listener.setReadLowWater(fd, 1) }
                adopt(fd)
            case .incomplete:
                wait(fd, since: since, lowWater: bytes.count + 1)
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
            admit(fd, since: entry.since, lowWater: entry.lowWater, adopt: adopt)
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

    private func wait(_ fd: Int32, since: Double, lowWater: Int) {
        guard let watch = boardcast_head_watch_start(loop, ready, fd) else {
            Listener.closeSocket(fd)
            return
        }
        if lowWater > 1 { Listener.setReadLowWater(fd, lowWater) }
        waiting[fd] = (watch, since, lowWater)
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
