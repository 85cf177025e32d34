/// The socket side of one connection, in plain Swift so it is testable without
/// sockets: the message being received (reassembly and the size cap), the frames
/// waiting to be sent (queue, backpressure cap, which frames share one write), and
/// the keepalive bookkeeping. `LWSContext` does the system calls with what this decides.
public struct ConnectionIO {
    public struct Limits: Sendable {
        public var maxMessageBytes = 64 * 1024
        /// A connection whose unsent frames pass either cap is dropped: one slow client never holds up the others.
        public var maxQueuedBytes = 8 * 1024 * 1024
        public var maxQueuedFrames = 20_000
        /// An oversized message is read to its end (at most this much more) before the 1009 close.
        public var maxDiscardedBytes = 1024 * 1024

        public init() {}
    }

    /// The lws connection this stands for; nil in tests.
    var socket: SocketHandle?

    // MARK: Sending

    private var queue: [OutFrame] = []
    private var head = 0
    private(set) var queuedBytes = 0
    /// Set once the connection is to be closed with this code, after what is queued.
    private(set) var closing: (code: UInt16, reason: String)?
    /// In the shell's list of connections to write at the end of this loop iteration.
    var isDirty = false
    /// Asking lws again while a request is outstanding costs a poll change each time: ask once.
    var writableRequested = false
    /// lws has closed it; a leftover reference must not touch the socket.
    var isClosed = false

    public enum Enqueued: Equatable {
        case queued
        /// Over a cap: the queue was dropped and the connection must close with 1008.
        case overflow
        /// Closing or closed: the frame was dropped.
        case ignored
    }

    mutating func enqueue(_ frame: OutFrame, limits: Limits) -> Enqueued {
        guard closing == nil, !isClosed else { return .ignored }
        queue.append(frame)
        queuedBytes += frame.count
        guard queuedBytes <= limits.maxQueuedBytes, queue.count - head <= limits.maxQueuedFrames else {
            dropQueue()
            closing = (1008, "too slow: send queue full")
            return .overflow
        }
        return .queued
    }

    /// Marks the connection for closing after what is queued; false if it already was.
    mutating func beginClosing(code: UInt16, reason: String) -> Bool {
        guard closing == nil, !isClosed else { return false }
        closing = (code, reason)
        return true
    }

    var hasPending: Bool { head < queue.count }
    var pendingCount: Int { queue.count - head }

    /// What one write sends.
    enum Write {
        case none
        /// The usual case in fan-out: one frame, written by lws with its header.
        case one(OutFrame)
        /// Several frames in one system call (the system call per frame is what fan-out costs).
        case many([OutFrame])
    }

    /// The frames the next write sends: as many as fit in `capacity` bytes with their
    /// headers, or one frame alone when it is larger than that.
    mutating func takeWrite(capacity: Int) -> Write {
        guard head < queue.count else { return .none }
        let first = queue[head]
        popFront()
        guard head < queue.count, first.count + WebSocketFrame.maxHeaderSize <= capacity else { return .one(first) }
        var batch = [first]
        var used = first.count + WebSocketFrame.maxHeaderSize
        while head < queue.count {
            let size = queue[head].count + WebSocketFrame.maxHeaderSize
            guard used + size <= capacity else { break }
            batch.append(queue[head])
            used += size
            popFront()
        }
        return batch.count == 1 ? .one(first) : .many(batch)
    }

    mutating func dropQueue() {
        queue.removeAll()
        head = 0
        queuedBytes = 0
    }

    private mutating func popFront() {
        queuedBytes -= queue[head].count
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: queue.count <= 64)
            head = 0
        } else if head >= 64 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    // MARK: Receiving

    private var rx: [UInt8] = []
    private var rxIsBinary = false
    /// Set while an oversized message is read and thrown away.
    private var discarded: Int?

    public enum Received: Equatable {
        /// More of the message is still to come.
        case partial
        case text([UInt8])
        case binary
        /// Over the size cap: close with 1009 (once the rest was read, or at once past the discard cap).
        case tooLarge
    }

    /// Takes one piece of a message as lws hands it over. `remaining` is what is left of
    /// the current frame after this piece; the message ends with a final frame's last piece.
    mutating func receive(_ bytes: UnsafeRawBufferPointer, first: Bool, finalFrame: Bool, remaining: Int,
                          binary: Bool, limits: Limits) -> Received {
        let messageEnds = finalFrame && remaining == 0
        if let discarded {
            let total = discarded + bytes.count
            self.discarded = total
            return messageEnds || total > limits.maxDiscardedBytes ? .tooLarge : .partial
        }
        if first {
            rx.removeAll(keepingCapacity: rx.capacity <= 4096)
            rxIsBinary = binary
        }
        guard rx.count + bytes.count + remaining <= limits.maxMessageBytes else {
            rx = []
            discarded = bytes.count
            return messageEnds ? .tooLarge : .partial
        }
        rx.append(contentsOf: bytes)
        guard messageEnds else { return .partial }
        defer { rx.removeAll(keepingCapacity: rx.capacity <= 4096) }
        return rxIsBinary ? .binary : .text(rx)
    }

    /// Bytes received in the shell's current loop round (to tell a burst from a trickle).
    var round: UInt32 = 0
    var roundBytes = 0

    // MARK: Keepalive

    /// Something (a frame or a pong) arrived since the last keepalive visit.
    var heardFrom = true
    /// A ping went out at the last visit and nothing has been heard since.
    var pingUnanswered = false
    /// A ping is to be written at the next writable callback.
    var pingDue = false
    /// Its place in the keepalive wheel.
    var wheelSlot = -1
    var wheelIndex = -1

    // MARK: Limits

    /// The client's address, decided at the upgrade (the peer, or who a trusted proxy forwarded for).
    var client = ClientAddress.unknown
    /// Reading it is paused: it flooded control frames (`ControlFloodGuard`).
    var readPaused = false
    /// Closed for a flood: its socket is held open a little after lws lets it go (`LWSContext.linger`).
    var lingers = false
    /// A message piece or a pong arrived since its socket was last readable.
    var deliveredSinceRead = true

    public init() {}
}

/// The RFC 6455 framing facts the coalesced writes need.
enum WebSocketFrame {
    /// A server frame's header: 2, 4 or 10 bytes (unmasked).
    static let maxHeaderSize = 10

    /// The header of an unmasked, final text frame (section 5.2) for a payload of `length` bytes.
    static func textHeader(length: Int) -> [UInt8] {
        if length < 126 { return [0x81, UInt8(length)] }
        if length <= 0xFFFF { return [0x81, 126, UInt8(length >> 8), UInt8(length & 0xFF)] }
        return [0x81, 127] + (0..<8).map { UInt8((UInt64(length) >> (8 * UInt64(7 - $0))) & 0xFF) }
    }
}
