import Foundation

/// One outgoing text frame, encoded once and shared by every receiver.
///
/// The bytes sit behind `headroom` bytes (at least libwebsockets' `LWS_PRE`, which the shell
/// checks at start-up) because `lws_write` writes the frame header in place in front of the
/// payload. The deciding parts build frames without knowing the socket library. Sharing one buffer among many
/// connections is safe because every writer is the single service thread and the
/// header it writes is the same for each (same length, same opcode). The buffer is
/// the one unsafe allocation outside lws's owner; it never leaves this type except
/// through `withPayload`.
public final class OutFrame: @unchecked Sendable, Equatable {
    /// Room for a WebSocket frame header in front of the payload: at least `LWS_PRE`.
    static let headroom = 32

    private let storage: UnsafeMutableRawPointer
    public let count: Int
    /// What the frame is, for a cluster node that passes it on (set by its encoder; never parsed back).
    let kind: FrameKind

    public convenience init(_ text: String) { self.init(text, kind: .plain) }

    init(_ text: String, kind: FrameKind) {
        self.kind = kind
        var text = text
        let count = text.utf8.count
        self.count = count
        storage = UnsafeMutableRawPointer.allocate(byteCount: OutFrame.headroom + max(count, 1), alignment: 16)
        text.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                (storage + OutFrame.headroom).copyMemory(from: base, byteCount: count)
            }
        }
    }

    deinit { storage.deallocate() }

    /// The payload, with `headroom` writable bytes in front of it (for lws's frame header).
    func withPayload<T>(_ body: (UnsafeMutableRawPointer) -> T) -> T { body(storage + OutFrame.headroom) }

    /// The payload's bytes (what a cluster node publishes).
    var bytes: [UInt8] { withPayload { Array(UnsafeRawBufferPointer(start: $0, count: count)) } }

    /// A frame of these bytes (what a cluster node received), encoded once for every receiver.
    convenience init(bytes: [UInt8], kind: FrameKind = .plain) {
        self.init(String(decoding: bytes, as: UTF8.self), kind: kind)
    }

    /// Frames are equal when their bytes are (tests compare actions).
    public static func == (a: OutFrame, b: OutFrame) -> Bool {
        a === b || (a.count == b.count && a.withPayload { pa in b.withPayload { pb in memcmp(pa, pb, a.count) == 0 } })
    }

    /// The payload as text, for tests, logs and storage.
    public var text: String {
        withPayload { String(decoding: UnsafeRawBufferPointer(start: $0, count: count), as: UTF8.self) }
    }
}

/// What a frame is, as far as a cluster node that passes an owner's replies on must know:
/// typed by the encoder that made the frame, so nothing reads the bytes back.
enum FrameKind: Sendable, Equatable {
    case plain
    /// The owner took the connection into a game (a seated player's seat is its player id).
    case joined(game: String, kind: GameKind, role: Role)
    case diff(seq: Int)
    /// An `ack` or an `error`: the last message of a reply.
    case answer
    /// The connection left its game.
    case left(game: String)
}
