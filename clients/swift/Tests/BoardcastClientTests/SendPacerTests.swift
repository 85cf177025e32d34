import Testing

@testable import BoardcastClient

/// The server reads 100 frames a second from a connection and answers one over that with an
/// error without an id, which no command could be settled by: the pacer keeps under it.
@Suite struct SendPacerTests {
    func frames(_ n: Int, on connection: Int = 1) -> [SendPacer.Frame] {
        (0..<n).map { SendPacer.Frame(connection: connection, text: "f\($0)") }
    }

    @Test func aBurstGoesAtOnceThenRateASecondInOrder() {
        var pacer = SendPacer()
        var sent: [SendPacer.Frame] = []
        var wait: Double?
        for frame in frames(100) {
            let due = pacer.enqueue(frame, now: 0)
            sent += due.send
            wait = due.wait
        }
        #expect(sent.count == Int(SendPacer.burst))
        #expect(wait == 1 / SendPacer.rate)
        sent += pacer.due(now: 0.5).send
        #expect(sent.count == Int(SendPacer.burst + SendPacer.rate / 2))
        let last = pacer.due(now: 2)
        sent += last.send
        #expect(last.wait == nil)
        #expect(sent == frames(100), "every frame once, in order")
    }

    @Test func theServersBucketNeverRunsDry() {
        var pacer = SendPacer()
        var times: [Double] = []
        var now = 0.0
        var queued = frames(300)[...]
        while !queued.isEmpty || times.count < 300 {
            var due = queued.isEmpty ? pacer.due(now: now) : pacer.enqueue(queued.removeFirst(), now: now)
            while due.send.isEmpty, let wait = due.wait {
                now += wait
                due = pacer.due(now: now)
            }
            times += due.send.map { _ in now }
        }
        // The server's bucket (PROTOCOL section 14): 100 frames, refilled at 100 a second. Each
        // frame takes one; it must never run dry, and keeps room for pongs.
        var bucket = 100.0, last = 0.0, lowest = 100.0
        for t in times {
            bucket = min(100, bucket + (t - last) * 100) - 1
            last = t
            lowest = min(lowest, bucket)
        }
        #expect(lowest >= 20, "the server's bucket fell to \(lowest)")
    }

    @Test func aGoneConnectionsFramesAreDropped() {
        var pacer = SendPacer()
        for frame in frames(50, on: 1) { _ = pacer.enqueue(frame, now: 0) }
        pacer.forget(connection: 1)
        let next = pacer.enqueue(SendPacer.Frame(connection: 2, text: "join"), now: 1)
        #expect(next.send == [SendPacer.Frame(connection: 2, text: "join")])
    }
}
