import Core
import Logging
import Testing
@testable import Realtime

/// Records what the hub sends, per connection, instead of writing to sockets.
final class RecordingTransport: Transport {
    var sent: [ConnectionID: [String]] = [:]
    var closed: [ConnectionID: UInt16] = [:]

    func send(_ frame: OutFrame, to connection: ConnectionID) { sent[connection, default: []].append(frame.text) }
    func close(_ connection: ConnectionID, code: UInt16, reason: String) { closed[connection] = code }

    /// Takes and returns what a connection received so far, parsed (plain-text lines as strings).
    func take(_ connection: ConnectionID) -> [JSON] {
        defer { sent[connection] = [] }
        return (sent[connection] ?? []).map { (try? JSONText.parse($0)) ?? .string($0) }
    }
}

/// Storage stand-in whose commits the test releases by hand, to see what waits for them.
final class ManualSink: CommitSink {
    var batches: [StoreBatch] = []
    func submit(_ batch: StoreBatch) -> UInt64 {
        batches.append(batch)
        return UInt64(batches.count)
    }
}

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    // Only touched from the test's own thread.
    var now = 1_800_000_000.0
}

struct HubHarness {
    let transport = RecordingTransport()
    let clock = TestClock()
    let hub: Hub

    init(sink: (any CommitSink)? = nil) {
        let clock = self.clock
        hub = Hub(transport: transport, sink: sink, metrics: ServerMetrics(), logger: Logger(label: "test"),
                  clock: { clock.now })
    }

    func open(_ id: ConnectionID, query: [String: String] = [:]) { hub.connectionOpened(id, query: query) }
    func send(_ id: ConnectionID, _ text: String) { hub.connectionReceived(id, text: Array(text.utf8)) }

    /// Creates a Klondike game from connection `id`; returns (game, token).
    func createKlondike(_ id: ConnectionID, options: String = #"{"seed":42}"#) -> (String, String) {
        send(id, #"{"type":"create","kind":"klondike","options":\#(options)}"#)
        let created = transport.take(id).first { $0["type"] == "created" }!
        return (created["game"]!.stringValue!, created["token"]!.stringValue!)
    }
}

private func types(_ messages: [JSON]) -> [String] { messages.map { $0["type"]?.stringValue ?? "text" } }

@Suite struct HubTests {
    @Test func createAnswersCreatedJoinedSnapshotAck() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"seed":1},"id":"c1"}"#)
        let replies = h.transport.take(1)
        #expect(types(replies) == ["created", "joined", "snapshot", "ack"])
        #expect((replies[0]["token"]?.stringValue?.count ?? 0) >= 22)
        #expect(replies[1]["you"] == "p1")
        #expect(replies[1]["role"] == "player")
        #expect(replies[2]["state"]?["stock"]?.arrayValue?.count == 24)
        #expect(replies[3] == .object(["type": "ack", "id": "c1", "seq": 0]))
        #expect(!replies.contains { $0.encoded.contains("\"seed\"") })
    }

    @Test func aMoveReachesEveryMemberInOrderWithCauseAndAck() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        #expect(types(h.transport.take(2)) == ["joined", "snapshot"])
        h.send(1, #"{"type":"tap","target":"/stock","id":7}"#)
        let player = h.transport.take(1)
        #expect(types(player) == ["diff", "ack"])
        #expect(player[0]["cause"] == .object(["type": "tap", "target": "/stock", "by": "p1"]))
        #expect(player[1] == .object(["type": "ack", "id": 7, "seq": 1]))
        let spectator = h.transport.take(2)
        #expect(types(spectator) == ["diff"])
        #expect(spectator[0] == player[0])
    }

    @Test func aRepeatedIdIsAckedAgainWithoutADiff() {
        let h = HubHarness()
        h.open(1)
        _ = h.createKlondike(1)
        h.send(1, #"{"type":"tap","target":"/stock","id":"once"}"#)
        _ = h.transport.take(1)
        h.send(1, #"{"type":"tap","target":"/stock","id":"other"}"#)
        _ = h.transport.take(1)
        h.send(1, #"{"type":"tap","target":"/stock","id":"once"}"#)
        #expect(h.transport.take(1) == [.object(["type": "ack", "id": "once", "seq": 1])])
    }

    @Test func spectatorsMayHintAndShowButNotMove() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        _ = h.transport.take(2)
        h.send(2, #"{"type":"tap","target":"/stock","id":1}"#)
        #expect(h.transport.take(2) == [.object(["type": "error", "code": "forbidden", "message": "spectators cannot tap", "id": 1])])
        h.send(2, #"{"type":"hint","id":2}"#)
        #expect(types(h.transport.take(2)) == ["hint", "ack"])
        h.send(2, "show")
        let lines = h.transport.take(2)
        #expect(lines.count > 5)
        #expect(lines.allSatisfy { $0.stringValue != nil })
        #expect(h.transport.take(1).isEmpty)
    }

    @Test func checksRunInTheProtocolsOrder() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"alpha","step":5,"id":1}"#)
        #expect(h.transport.take(1).first?["code"] == "bad-request")
        h.send(1, #"{"type":"alpha","step":1,"id":2}"#)
        #expect(h.transport.take(1).first?["code"] == "not-joined")
        h.send(1, #"{"type":"show"}"#)
        #expect(h.transport.take(1).first?["code"] == "not-joined")
        h.send(1, #"{"type":"leave","id":3}"#)
        #expect(h.transport.take(1).first?["code"] == "not-joined")
        _ = h.createKlondike(1)
        h.send(1, #"{"type":"alpha","step":1}"#)
        #expect(h.transport.take(1).first?["code"] == "unknown-type")
        h.send(1, #"{"type":"tap","target":"/tableau/0"}"#)
        #expect(h.transport.take(1).first?["code"] == "illegal-move")
    }

    @Test func joinWithWrongTokenIsForbiddenAndLeavesTheConnectionWhereItWas() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, token) = h.createKlondike(1)
        let (other, _) = h.createKlondike(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"nope","id":1}"#)
        #expect(h.transport.take(2).first?["code"] == "forbidden")
        h.send(2, #"{"type":"join","game":"missing","token":"\#(token)","id":1}"#)
        #expect(h.transport.take(2).first?["code"] == "not-found")
        h.send(2, #"{"type":"tap","target":"/stock","id":2}"#)
        let stillThere = h.transport.take(2)
        #expect(stillThere.first?["game"]?.stringValue == other)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        let joined = h.transport.take(2)
        #expect(joined.first?["you"] == "p2")
    }

    @Test func sinceSendsOnlyTheMissingDiffs() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1)
        for _ in 0..<3 { h.send(1, #"{"type":"tap","target":"/stock"}"#) }
        h.send(2, #"{"type":"watch","game":"\#(game)","since":1}"#)
        let replies = h.transport.take(2)
        #expect(types(replies) == ["joined", "diff", "diff"])
        #expect(replies[1]["seq"] == 2)
        h.send(2, #"{"type":"watch","game":"\#(game)","since":99}"#)
        #expect(types(h.transport.take(2)) == ["joined", "snapshot"])
    }

    @Test func replayStartsFromTheDealThenEveryDiff() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"seed":8}}"#)
        let deal = h.transport.take(1).first { $0["type"] == "snapshot" }!["state"]!
        let game = h.hub.lobbyEntries()[0].game
        for _ in 0..<3 { h.send(1, #"{"type":"tap","target":"/stock"}"#) }
        h.send(2, #"{"type":"watch","game":"\#(game)","replay":true,"id":"r"}"#)
        let replies = h.transport.take(2)
        #expect(types(replies) == ["joined", "snapshot", "diff", "diff", "diff", "ack"])
        #expect(replies[1]["seq"] == 0)
        #expect(replies[1]["state"] == deal)
        h.send(2, "replay \(game)")
        #expect(types(h.transport.take(2)) == ["joined", "snapshot", "diff", "diff", "diff"])
    }

    @Test func diffsWaitForStorageAndAJoinerNeverGetsOneTwice() {
        let sink = ManualSink()
        let h = HubHarness(sink: sink)
        h.open(1)
        h.open(2)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"seed":3}}"#)
        #expect(h.transport.take(1).isEmpty)  // not even the token before the game is stored
        h.hub.committed(upTo: 1)
        let created = h.transport.take(1)
        #expect(types(created) == ["created", "joined", "snapshot"])
        let game = created[0]["game"]!.stringValue!
        h.send(1, #"{"type":"tap","target":"/stock","id":1}"#)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        #expect(h.transport.take(1).isEmpty)
        #expect(h.transport.take(2).isEmpty)
        #expect(sink.batches.last?.commands.first?.command == .object(["type": "tap", "target": "/stock"]))
        h.hub.committed(upTo: 2)
        #expect(types(h.transport.take(1)) == ["diff", "ack"])
        let joiner = h.transport.take(2)
        #expect(types(joiner) == ["joined", "snapshot"])
        #expect(joiner[1]["seq"] == 1)
    }

    @Test func aPlaneForgetsTheSelectionOfAPlayerWhoLeaves() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        h.send(1, #"{"type":"create","kind":"plane","options":{"seed":5}}"#)
        let game = h.transport.take(1)[0]["game"]!.stringValue!
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        h.send(1, #"{"type":"add"}"#)
        _ = h.transport.take(2)
        h.hub.connectionClosed(1)
        let diffs = h.transport.take(2)
        #expect(types(diffs) == ["diff"])
        #expect(diffs[0]["cause"] == .object(["type": "leave", "by": "p1"]))
        #expect(diffs[0]["ops"] == .array([.object(["op": "remove", "path": "/selections/p1"])]))
    }

    @Test func theHundredAndFirstFrameInASecondIsRateLimitedWithoutId() {
        let h = HubHarness()
        h.open(1)
        for i in 0..<101 { h.send(1, #"{"type":"list","id":\#(i)}"#) }
        let last = h.transport.take(1).last!
        #expect(last == .object(["type": "error", "code": "rate-limited", "message": "over 100 frames a second"]))
        h.clock.now += 0.05
        h.send(1, #"{"type":"list","id":"later"}"#)
        #expect(h.transport.take(1).last?["id"] == "later")
    }

    @Test func presenceIsMergedAndSentToEveryMemberOnTick() {
        let h = HubHarness()
        h.open(1)
        let (game, _) = h.createKlondike(1)
        for id in ConnectionID(2)...ConnectionID(6) {
            h.open(id)
            h.send(id, #"{"type":"watch","game":"\#(game)"}"#)
        }
        h.hub.tick()
        for id in ConnectionID(1)...ConnectionID(6) {
            let presence = h.transport.take(id).filter { $0["type"] == "presence" }
            #expect(presence == [.object(["type": "presence", "game": .string(game), "players": 1, "spectators": 5])])
        }
    }

    @Test func followersGetTheLobbyAtMostOnceASecond() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        h.send(2, "list follow")
        #expect(types(h.transport.take(2)) == ["lobby"])
        _ = h.createKlondike(1)
        h.hub.tick()
        #expect(types(h.transport.take(2)) == ["lobby"])
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.hub.tick()
        #expect(h.transport.take(2).isEmpty)
        h.clock.now += 1
        h.hub.tick()
        let lobby = h.transport.take(2)
        #expect(lobby.first?["games"]?.arrayValue?.first?["seq"] == 1)
        h.send(2, "list unfollow")
        _ = h.transport.take(2)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.clock.now += 2
        h.hub.tick()
        #expect(h.transport.take(2).isEmpty)
    }

    @Test func restoreReplaysStoredCommandsToTheSameState() throws {
        let store = try SQLiteGameStore.inMemory()
        let sink = StoreWritingSink(store: store)
        let first = HubHarness(sink: sink)
        first.open(1)
        first.send(1, #"{"type":"create","kind":"klondike","options":{"seed":11}}"#)
        first.hub.committed(upTo: .max)
        let game = first.transport.take(1)[0]["game"]!.stringValue!
        for i in 0..<5 { first.send(1, #"{"type":"tap","target":"/stock","id":\#(i)}"#) }
        first.send(1, #"{"type":"undo","id":"u"}"#)
        first.hub.committed(upTo: .max)
        first.send(1, "show")
        let before = first.transport.take(1).suffix(12)

        let second = HubHarness(sink: sink)
        try second.hub.restore(from: store)
        second.open(9)
        second.send(9, #"{"type":"watch","game":"\#(game)","since":0}"#)
        second.hub.committed(upTo: .max)
        #expect(types(second.transport.take(9)) == ["joined"] + Array(repeating: "diff", count: 6))
        second.send(9, "show")
        #expect(second.transport.take(9).suffix(12) == before)
    }
}

/// Writes batches straight to a store, so restore tests see what a server would have stored.
final class StoreWritingSink: CommitSink {
    let store: any GameStore
    var ticket: UInt64 = 0
    init(store: any GameStore) { self.store = store }
    func submit(_ batch: StoreBatch) -> UInt64 {
        try! store.write(batch)
        ticket += 1
        return ticket
    }
}
