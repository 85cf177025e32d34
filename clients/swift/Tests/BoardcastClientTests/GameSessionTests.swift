import Foundation
import Testing

@testable import BoardcastClient

/// A fake transport whose connections the test answers as the server would.
final class FakeTransport: WebSocketTransport, @unchecked Sendable {
    let accepted: AsyncStream<FakeConnection>
    private let sink: AsyncStream<FakeConnection>.Continuation

    init() {
        (accepted, sink) = AsyncStream.makeStream(of: FakeConnection.self)
    }

    func connect(to url: URL) -> any WebSocketConnection {
        let c = FakeConnection()
        sink.yield(c)
        return c
    }
}

final class FakeConnection: WebSocketConnection, @unchecked Sendable {
    let events: AsyncStream<TransportEvent>
    private let eventSink: AsyncStream<TransportEvent>.Continuation
    let sent: AsyncStream<String>
    private let sentSink: AsyncStream<String>.Continuation

    init() {
        (events, eventSink) = AsyncStream.makeStream(of: TransportEvent.self)
        (sent, sentSink) = AsyncStream.makeStream(of: String.self)
    }

    func send(_ text: String) { sentSink.yield(text) }

    func close() {
        eventSink.yield(.closed("closed by the client"))
        eventSink.finish()
        sentSink.finish()
    }

    // The server's side
    func open() { eventSink.yield(.opened) }
    func reply(_ text: String) { eventSink.yield(.text(text)) }
    func drop() {
        eventSink.yield(.closed("reset"))
        eventSink.finish()
        sentSink.finish()
    }
}

/// Reads what a connection sent, one message at a time.
struct Inbox {
    var iterator: AsyncStream<String>.Iterator
    init(_ c: FakeConnection) { iterator = c.sent.makeAsyncIterator() }
    mutating func next() async throws -> JSONValue {
        let text = try #require(await iterator.next())
        return try JSONValue(parsing: text)
    }
}

@Suite(.timeLimit(.minutes(1))) struct GameSessionTests {
    let fast = GameFollower.Settings(backoff: Backoff(initial: 0.01, maximum: 0.05))

    @Test func createPlayRideOutADropAndResendTheSameId() async throws {
        let server = FakeTransport()
        let client = BoardcastClient(url: URL(string: "http://fake/ws")!, transport: server, settings: fast)
        #expect(client.url.absoluteString == "ws://fake/ws")
        let session = client.creating(kind: "four", options: ["bots": ["p2": 1]])
        let changes = session.changes
        var accepted = server.accepted.makeAsyncIterator()

        let c1 = try #require(await accepted.next())
        var inbox1 = Inbox(c1)
        c1.open()
        let create = try await inbox1.next()
        #expect(create["type"] == "create")
        c1.reply(#"{"type":"created","game":"g1","token":"secret"}"#)
        c1.reply(#"{"type":"joined","game":"g1","kind":"four","role":"player","seq":1,"you":"p1"}"#)
        c1.reply(#"{"type":"snapshot","game":"g1","kind":"four","seq":1,"state":\#(fourState)}"#)
        c1.reply(#"{"type":"ack","id":"\#(create["id"]!.stringValue!)","seq":1}"#)
        try await session.ready()
        #expect(session.game == "g1")
        #expect(session.token == "secret")
        #expect(session.you == "p1")
        #expect(session.seq == 1)
        #expect(try session.decodedState(FourInARowState.self)?.turn == "p1")

        async let tapped = session.tap("/columns/3", basedOn: 1)
        let tap = try await inbox1.next()
        #expect(tap["type"] == "tap")
        c1.drop()

        let c2 = try #require(await accepted.next())
        var inbox2 = Inbox(c2)
        c2.open()
        let join = try await inbox2.next()
        #expect(join["type"] == "join")
        #expect(join["since"] == 1)
        #expect(join["seat"] == "p1")
        #expect(join["token"] == "secret")
        c2.reply(diff(2, column: 3))
        c2.reply(#"{"type":"ack","id":"\#(join["id"]!.stringValue!)","seq":2}"#)
        let again = try await inbox2.next()
        #expect(again == tap, "the same command, the same id")
        c2.reply(#"{"type":"ack","id":"\#(tap["id"]!.stringValue!)","seq":2}"#)
        let result = try await tapped
        #expect(result.seq == 2)
        #expect(result.id == tap["id"]?.stringValue)
        #expect(session.seq == 2)

        var seen: [Int] = []
        for await change in changes {
            seen.append(change.seq)
            if change.seq == 2 { break }
        }
        #expect(seen == [1, 2])
        await client.close()
        #expect(session.status == .closed)
        await #expect(throws: BoardcastError.self) { try await session.tap("/columns/0") }
    }

    @Test func aRefusedWatchFailsReady() async throws {
        let server = FakeTransport()
        let client = BoardcastClient(url: URL(string: "ws://fake/ws")!, transport: server, settings: fast)
        var accepted = server.accepted.makeAsyncIterator()
        async let watched = client.watch(game: "nosuch")
        let c1 = try #require(await accepted.next())
        var inbox = Inbox(c1)
        c1.open()
        let watch = try await inbox.next()
        c1.reply(#"{"type":"error","id":"\#(watch["id"]!.stringValue!)","code":"not-found","message":"no game nosuch"}"#)
        do {
            _ = try await watched
            Issue.record("watch should have failed")
        } catch let error as BoardcastError {
            #expect(error.code == "not-found")
        }
    }

    @Test func aTokenProviderSignsInEachConnection() async throws {
        let server = FakeTransport()
        let calls = Locked(0)
        let client = BoardcastClient(
            url: URL(string: "ws://fake/ws")!,
            token: { calls.withLock { $0 += 1; return "jwt\($0)" } }, transport: server, settings: fast)
        let session = client.joining(game: "g1", token: nil, seat: "p2")
        var accepted = server.accepted.makeAsyncIterator()
        for n in 1...2 {
            let c = try #require(await accepted.next())
            var inbox = Inbox(c)
            c.open()
            let auth = try await inbox.next()
            #expect(auth["type"] == "auth")
            #expect(auth["jwt"] == .string("jwt\(n)"))
            c.reply(#"{"type":"authed","user":"u1","name":"Ada","expires":"2030-01-01T00:00:00Z"}"#)
            c.reply(#"{"type":"ack","id":"\#(auth["id"]!.stringValue!)"}"#)
            let join = try await inbox.next()
            #expect(join["type"] == "join")
            #expect(join["seat"] == "p2")
            c.reply(#"{"type":"snapshot","game":"g1","kind":"four","seq":\#(n),"state":\#(fourState)}"#)
            c.reply(#"{"type":"ack","id":"\#(join["id"]!.stringValue!)","seq":\#(n)}"#)
            try await session.ready()
            if n == 1 { c.drop() }
        }
        await session.close()
    }

    @Test func hintAndShowAnswerWithWhatCameBeforeTheirAck() async throws {
        let server = FakeTransport()
        let client = BoardcastClient(url: URL(string: "ws://fake/ws")!, transport: server, settings: fast)
        var accepted = server.accepted.makeAsyncIterator()
        async let watched = client.watch(game: "g1")
        let c = try #require(await accepted.next())
        var inbox = Inbox(c)
        c.open()
        let watch = try await inbox.next()
        c.reply(#"{"type":"snapshot","game":"g1","kind":"four","seq":0,"state":\#(fourState)}"#)
        c.reply(#"{"type":"ack","id":"\#(watch["id"]!.stringValue!)","seq":0}"#)
        let session = try await watched
        async let hint = session.hint()
        let ask = try await inbox.next()
        #expect(ask["type"] == "hint")
        c.reply(#"{"type":"hint","game":"g1","from":null,"to":"/columns/3"}"#)
        c.reply(#"{"type":"ack","id":"\#(ask["id"]!.stringValue!)","seq":0}"#)
        #expect(try await hint?["to"] == "/columns/3")
        async let lines = session.show()
        let show = try await inbox.next()
        #expect(show["type"] == "show")
        c.reply(". . . . . . .")
        c.reply("X . . . . . .")
        c.reply(#"{"type":"ack","id":"\#(show["id"]!.stringValue!)","seq":0}"#)
        #expect(try await lines == [". . . . . . .", "X . . . . . ."])
        await client.close()
    }

    @Test func theLobbyOnceAndFollowedAcrossADrop() async throws {
        let server = FakeTransport()
        let client = BoardcastClient(url: URL(string: "ws://fake/ws")!, transport: server, settings: fast)
        var accepted = server.accepted.makeAsyncIterator()
        async let once = client.games()
        let c = try #require(await accepted.next())
        var inbox = Inbox(c)
        c.open()
        let list = try await inbox.next()
        #expect(list["type"] == "list")
        c.reply(#"{"type":"lobby","games":[{"game":"g1","kind":"four","status":"playing","seq":3,"players":1,"spectators":0}]}"#)
        c.reply(#"{"type":"ack","id":"\#(list["id"]!.stringValue!)"}"#)
        #expect(try await once.map { $0["game"] } == ["g1"])

        var lobby = client.lobby().makeAsyncIterator()
        let f1 = try #require(await accepted.next())
        var inbox1 = Inbox(f1)
        f1.open()
        #expect(try await inbox1.next()["follow"] == true)
        f1.reply(#"{"type":"lobby","games":[]}"#)
        #expect(await lobby.next()?.isEmpty == true)
        f1.drop()
        let f2 = try #require(await accepted.next())
        var inbox2 = Inbox(f2)
        f2.open()
        #expect(try await inbox2.next()["follow"] == true, "follows again after the drop")
        f2.reply(#"{"type":"lobby","games":[{"game":"g2"}]}"#)
        #expect(await lobby.next()?.first?["game"] == "g2")
        await client.close()
        #expect(await lobby.next() == nil, "the stream ends with the client")
    }

    @Test func suspendLetsGoOfTheSocketAndResumeCatchesUp() async throws {
        let server = FakeTransport()
        let client = BoardcastClient(url: URL(string: "ws://fake/ws")!, transport: server, settings: fast)
        var accepted = server.accepted.makeAsyncIterator()
        async let joined = client.join(game: "g1", token: "t")
        let c1 = try #require(await accepted.next())
        var inbox1 = Inbox(c1)
        c1.open()
        let join = try await inbox1.next()
        #expect(join["since"] == nil)
        c1.reply(#"{"type":"joined","game":"g1","kind":"four","role":"player","seq":4,"you":"p2"}"#)
        c1.reply(#"{"type":"snapshot","game":"g1","kind":"four","seq":4,"state":\#(fourState)}"#)
        c1.reply(#"{"type":"ack","id":"\#(join["id"]!.stringValue!)","seq":4}"#)
        let session = try await joined
        await session.suspend()
        #expect(session.status == .suspended)
        #expect(await inbox1.iterator.next() == nil, "the socket was closed")
        try await Task.sleep(for: .milliseconds(200))  // many backoff periods: nothing reconnects
        await session.resume()
        let c2 = try #require(await accepted.next())
        var inbox2 = Inbox(c2)
        c2.open()
        let rejoin = try await inbox2.next()
        #expect(rejoin["since"] == 4)
        #expect(rejoin["seat"] == "p2")
        c2.reply(diff(5, column: 0))
        c2.reply(#"{"type":"ack","id":"\#(rejoin["id"]!.stringValue!)","seq":5}"#)
        _ = try await session.until { $0["moves"] == 5 }
        #expect(session.seq == 5)
        for await status in session.statuses where status == .ready { break }  // the diff comes before the ack
        await session.leave()
        #expect(session.status == .closed)
    }

    @Test func joinedGivesTheGamesOptionsAndTheServersClockAndTheEndSaysWhy() async throws {
        let server = FakeTransport()
        let client = BoardcastClient(url: URL(string: "ws://fake/ws")!, transport: server, settings: fast)
        var accepted = server.accepted.makeAsyncIterator()
        async let joined = client.join(game: "g1", token: "t")
        let c1 = try #require(await accepted.next())
        var inbox1 = Inbox(c1)
        c1.open()
        let join = try await inbox1.next()
        // The server's clock is an hour ahead of this device's.
        let now = ISO8601DateFormatter.string(
            from: Date().addingTimeInterval(3600), timeZone: TimeZone(identifier: "UTC")!,
            formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        c1.reply(#"{"type":"joined","game":"g1","kind":"four","role":"player","seq":4,"you":"p2","now":"\#(now)","clock":{"initial":300,"increment":5}}"#)
        c1.reply(#"{"type":"snapshot","game":"g1","kind":"four","seq":4,"state":\#(fourState)}"#)
        c1.reply(#"{"type":"ack","id":"\#(join["id"]!.stringValue!)","seq":4}"#)
        let session = try await joined
        #expect(session.joined?["clock"]?["initial"] == 300)
        let ahead = try #require(session.serverNow()).timeIntervalSinceNow
        #expect(abs(ahead - 3600) < 5, "the server's now, as learnt from joined: \(ahead)")
        #expect(session.end == nil)
        c1.reply(#"{"type":"left","game":"g1","reason":"replaced"}"#)
        for await _ in session.statuses {}  // the streams end when the session does
        #expect(session.end?.reason == "replaced")
    }
}
