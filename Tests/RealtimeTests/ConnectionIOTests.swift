import Core
import Testing
@testable import Realtime

/// The socket side's decisions, without sockets: reassembly and the size cap, the send
/// queue and its caps, which frames share one write, and the keepalive wheel.
@Suite struct ConnectionIOTests {
    private var limits: ConnectionIO.Limits {
        var limits = ConnectionIO.Limits()
        limits.maxMessageBytes = 10
        limits.maxQueuedBytes = 100
        limits.maxQueuedFrames = 3
        limits.maxDiscardedBytes = 20
        return limits
    }

    private func feed(_ io: inout ConnectionIO, _ text: String, first: Bool, final: Bool, remaining: Int = 0,
                      binary: Bool = false) -> ConnectionIO.Received {
        Array(text.utf8).withUnsafeBytes {
            io.receive($0, first: first, finalFrame: final, remaining: remaining, binary: binary, limits: limits)
        }
    }

    @Test func fragmentsMakeOneMessage() {
        var io = ConnectionIO()
        #expect(feed(&io, "ab", first: true, final: false) == .partial)
        #expect(feed(&io, "cd", first: false, final: false, remaining: 2) == .partial)
        #expect(feed(&io, "ef", first: false, final: true) == .text(Array("abcdef".utf8)))
        #expect(feed(&io, "x", first: true, final: true) == .text(Array("x".utf8)))
        #expect(feed(&io, "b", first: true, final: true, binary: true) == .binary)
    }

    @Test func anOversizedMessageIsReadToItsEndThenRefused() {
        var io = ConnectionIO()
        // Known too big from the first piece (what is left of the frame counts), but read to its end first.
        #expect(feed(&io, "12345", first: true, final: true, remaining: 6) == .partial)
        #expect(feed(&io, "123456", first: false, final: true) == .tooLarge)
        var flood = ConnectionIO()
        #expect(feed(&flood, "123456789", first: true, final: false, remaining: 1) == .partial)
        #expect(feed(&flood, "1234567890", first: false, final: false) == .partial)
        // Past the discard cap it gives up at once.
        #expect(feed(&flood, "1234567890123", first: false, final: false) == .tooLarge)
    }

    @Test func theQueueDropsASlowConnectionAtEitherCap() {
        var io = ConnectionIO()
        let frame = OutFrame("0123456789")
        for _ in 0..<3 { #expect(io.enqueue(frame, limits: limits) == .queued) }
        #expect(io.enqueue(frame, limits: limits) == .overflow)
        #expect(!io.hasPending)
        #expect(io.enqueue(frame, limits: limits) == .ignored, "closing: nothing more is queued")
        var big = ConnectionIO()
        #expect(big.enqueue(OutFrame(String(repeating: "x", count: 101)), limits: limits) == .overflow)
    }

    @Test func queuedFramesShareOneWriteUpToItsCapacity() {
        var io = ConnectionIO()
        var roomy = limits
        roomy.maxQueuedFrames = 100
        roomy.maxQueuedBytes = 10_000
        for i in 0..<5 { _ = io.enqueue(OutFrame("frame \(i)"), limits: roomy) }
        // Each frame is 7 bytes plus at most a 10-byte header.
        guard case .many(let first) = io.takeWrite(capacity: 40) else { Issue.record("not coalesced"); return }
        #expect(first.map(\.text) == ["frame 0", "frame 1"])
        guard case .many(let rest) = io.takeWrite(capacity: 1000) else { Issue.record("not coalesced"); return }
        #expect(rest.map(\.text) == ["frame 2", "frame 3", "frame 4"])
        guard case .none = io.takeWrite(capacity: 1000) else { Issue.record("empty queue wrote"); return }
        _ = io.enqueue(OutFrame(String(repeating: "y", count: 50)), limits: roomy)
        _ = io.enqueue(OutFrame("z"), limits: roomy)
        guard case .one(let alone) = io.takeWrite(capacity: 40) else { Issue.record("a big frame goes alone"); return }
        #expect(alone.count == 50)
        #expect(io.queuedBytes == 1)
    }

    @Test func frameHeadersFollowRFC6455() {
        #expect(WebSocketFrame.textHeader(length: 5) == [0x81, 5])
        #expect(WebSocketFrame.textHeader(length: 126) == [0x81, 126, 0, 126])
        #expect(WebSocketFrame.textHeader(length: 70_000) == [0x81, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70])
    }
}

@Suite struct KeepaliveWheelTests {
    @Test func aConnectionIsPingedEveryIntervalAndDroppedWhenSilent() {
        var wheel = KeepaliveWheel(intervalSeconds: 3)
        let talkative = Connection(id: 1)
        let silent = Connection(id: 2)
        _ = wheel.advance(to: 100.2)
        wheel.add(talkative, now: 100.2)
        wheel.add(silent, now: 100.5)
        #expect(wheel.advance(to: 102.9).ping.isEmpty)
        let first = wheel.advance(to: 103.1)
        #expect(Set(first.ping.map(\.id)) == [1, 2])
        talkative.io.heardFrom = true  // its pong came back
        let second = wheel.advance(to: 106.0)
        #expect(second.ping.map(\.id) == [1])
        #expect(second.dead.map(\.id) == [2])
    }

    @Test func addAndRemoveAreConstantTimeAndKeepSlotsConsistent() {
        var wheel = KeepaliveWheel(intervalSeconds: 2)
        let connections = (1...1000).map { Connection(id: ConnectionID($0)) }
        for (i, connection) in connections.enumerated() { wheel.add(connection, now: Double(i % 2)) }
        for connection in connections where connection.id.slot % 3 == 0 { wheel.remove(connection) }
        #expect(wheel.count == 1000 - 333)
        #expect(Set(wheel.all.map(\.id)) == Set(connections.filter { $0.id.slot % 3 != 0 }.map(\.id)))
        wheel.remove(connections[0])
        wheel.remove(connections[0])
        #expect(wheel.count == 1000 - 334)
    }

    @Test func aLongPauseVisitsEachSlotOnce() {
        var wheel = KeepaliveWheel(intervalSeconds: 5)
        _ = wheel.advance(to: 0)
        for id in 1...10 { wheel.add(Connection(id: ConnectionID(id)), now: Double(id % 5)) }
        #expect(wheel.advance(to: 1000).ping.count == 10)
    }
}
