import CLibWebSockets

/// A WebSocket connection, numbered by the server for its whole life.
public typealias ConnectionID = UInt64

/// One outgoing text frame, encoded once and shared by every receiver.
///
/// The bytes sit behind `LWS_PRE` bytes of headroom because `lws_write` writes
/// the frame header in place in front of the payload. Sharing one buffer among
/// many connections is safe because every writer is the single service thread and
/// the header it writes is the same for each (same length, same opcode).
public final class OutFrame: @unchecked Sendable {
    static let headroom = boardcast_lws_pre()

    let storage: UnsafeMutableRawPointer
    public let count: Int

    public init(_ text: String) {
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

    var payload: UnsafeMutableRawPointer { storage + OutFrame.headroom }

    /// The payload as text, for tests and logs.
    public var text: String {
        String(decoding: UnsafeRawBufferPointer(start: payload, count: count), as: UTF8.self)
    }
}

/// What the protocol logic asks of the socket layer. Implemented by `LWSServer`
/// on the service thread, and by a recorder in tests.
public protocol Transport: AnyObject {
    func send(_ frame: OutFrame, to connection: ConnectionID)
    /// Sends what is queued, then a close frame with this code.
    func close(_ connection: ConnectionID, code: UInt16, reason: String)
}
