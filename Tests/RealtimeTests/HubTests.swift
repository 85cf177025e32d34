import Core
import Foundation
import Testing
@testable import Realtime

private func types(_ messages: [JSON]) -> [String] { messages.map { $0["type"]?.stringValue ?? "text" } }

/// The hub as a state machine: events in, actions out, no sockets, disks or clocks.
@Suite struct HubTests {
    @Test func createAnswersCreatedJoinedSnapshotAck() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"seed":1},"id":"c1"}"#)
        let replies = h.take(1)
        #expect(types(replies) == ["created", "joined", "snapshot", "ack"])
        #expect((replies[0]["token"]?.stringValue?.count ?? 0) >= 22)
        #expect(replies[1]["you"] == "p1")
        #expect(replies[1]["role"] == "player")
        #expect(replies[2]["state"]?["stock"]?.arrayValue?.count == 24)
        #expect(replies[3] == .object(["type": "ack", "id": "c1", "seq": 0]))
        #expect(!replies.contains { $0.encoded.contains("\"seed\"") })
    }

    @Test func aMoveIsOneBroadcastActionToEveryMemberThenTheAck() throws {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        #expect(types(h.take(2)) == ["joined", "snapshot"])
        h.send(1, #"{"type":"tap","target":"/stock","id":7}"#)
        // One store, then one frame to each audience (players, spectators: chat keeps them apart), then the ack.
        let kinds = h.actions.compactMap { action -> String? in
            switch action {
            case .store: return "store"
            case .broadcast(_, let to, _): return "broadcast \(to.map(\.slot).sorted())"
            case .send(_, let to): return "send \(to.slot)"
            default: return nil
            }
        }
        #expect(kinds == ["store", "broadcast [1]", "broadcast [2]", "send 1"])
        let player = h.take(1)
        #expect(types(player) == ["diff", "ack"])
        #expect(player[0]["cause"] == .object(["type": "tap", "target": "/stock", "by": "p1"]))
        #expect(player[1] == .object(["type": "ack", "id": 7, "seq": 1]))
        #expect(h.take(2) == [player[0]])
        let row = try #require(h.batches.last?.commands.first)
        #expect(row.diff == player[0].encoded)
    }

    @Test func aRepeatedIdIsAckedAgainWithoutADiff() {
        let h = HubHarness()
        h.open(1)
        _ = h.createKlondike(1)
        h.send(1, #"{"type":"tap","target":"/stock","id":"once"}"#)
        h.send(1, #"{"type":"tap","target":"/stock","id":"other"}"#)
        _ = h.take(1)
        h.send(1, #"{"type":"tap","target":"/stock","id":"once"}"#)
        #expect(h.take(1) == [.object(["type": "ack", "id": "once", "seq": 1])])
    }

    @Test func anIdOlderThanTheWindowIsAnsweredFromStorage() {
        var config = Hub.Config(games: .standard)
        config.windowSize = 4
        let h = HubHarness(config: config)
        h.open(1)
        _ = h.createKlondike(1)
        for i in 0..<10 { h.send(1, #"{"type":"tap","target":"/stock","id":\#(i)}"#) }
        _ = h.take(1)
        h.send(1, #"{"type":"tap","target":"/stock","id":2}"#)
        #expect(h.actions.contains { if case .read(.command) = $0 { return true } else { return false } })
        #expect(h.take(1) == [.object(["type": "ack", "id": 2, "seq": 3])])
        #expect(h.batches.count == 11, "not applied again")
    }

    @Test func spectatorsMayHintAndShowButNotMove() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        _ = h.take(2)
        h.send(2, #"{"type":"tap","target":"/stock","id":1}"#)
        #expect(h.take(2) == [.object(["type": "error", "code": "forbidden", "message": "spectators cannot tap", "id": 1])])
        h.send(2, #"{"type":"hint","id":2}"#)
        #expect(h.types(2) == ["hint", "ack"])
        h.send(2, "show")
        let lines = h.take(2)
        #expect(lines.count > 5)
        #expect(lines.allSatisfy { $0.stringValue != nil })
        #expect(h.take(1).isEmpty)
    }

    @Test func checksRunInTheProtocolsOrder() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"alpha","step":5,"id":1}"#)
        #expect(h.take(1).first?["code"] == "bad-request")
        h.send(1, #"{"type":"alpha","step":1,"id":2}"#)
        #expect(h.take(1).first?["code"] == "not-joined")
        h.send(1, #"{"type":"show"}"#)
        #expect(h.take(1).first?["code"] == "not-joined")
        h.send(1, #"{"type":"leave","id":3}"#)
        #expect(h.take(1).first?["code"] == "not-joined")
        _ = h.createKlondike(1)
        h.send(1, #"{"type":"alpha","step":1}"#)
        #expect(h.take(1).first?["code"] == "unknown-type")
        // A malformed field comes first, even for a type Klondike lacks.
        h.send(1, #"{"type":"alpha","step":5}"#)
        #expect(h.take(1).first?["code"] == "bad-request")
        // In JSON a target is a JSON Pointer: `stock` without its `/` is malformed.
        h.send(1, #"{"type":"tap","target":"stock"}"#)
        #expect(h.take(1).first?["code"] == "bad-request")
        h.send(1, "tap stock")
        #expect(h.types(1) == ["diff"])
        h.send(1, #"{"type":"tap","target":"/tableau/0"}"#)
        #expect(h.take(1).first?["code"] == "illegal-move")
    }

    @Test func joinWithWrongTokenIsForbiddenAndLeavesTheConnectionWhereItWas() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, token) = h.createKlondike(1)
        let (other, _) = h.createKlondike(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"nope","id":1}"#)
        #expect(h.take(2).first?["code"] == "forbidden")
        h.send(2, #"{"type":"join","game":"missing","token":"\#(token)","id":1}"#)
        #expect(h.take(2).first?["code"] == "not-found")
        h.send(2, #"{"type":"tap","target":"/stock","id":2}"#)
        #expect(h.take(2).first?["game"]?.stringValue == other)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(h.take(2).first?["you"] == "p2")
    }

    @Test func sinceSendsOnlyTheMissingDiffs() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1)
        for _ in 0..<3 { h.send(1, #"{"type":"tap","target":"/stock"}"#) }
        h.send(2, #"{"type":"watch","game":"\#(game)","since":1}"#)
        let replies = h.take(2)
        #expect(types(replies) == ["joined", "diff", "diff"])
        #expect(replies[1]["seq"] == 2)
        h.send(2, #"{"type":"watch","game":"\#(game)","since":99}"#)
        #expect(h.types(2) == ["joined", "snapshot"])
    }

    /// A hub keeping 5 diffs in memory, connections 1 and 2 open, and a Klondike game of
    /// connection 1's with `taps` diffs.
    private func gameBeyondAWindowOfFive(taps: Int, pageSize: Int = 256) -> (HubHarness, String) {
        var config = Hub.Config(games: .standard)
        config.windowSize = 5
        config.historyPageSize = pageSize
        let h = HubHarness(config: config)
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1)
        for _ in 0..<taps { h.send(1, #"{"type":"tap","target":"/stock"}"#) }
        return (h, game)
    }

    @Test func storedDiffsOfACatchUpGoOutTypedWithTheirSeq() {
        // Another node's member is answered with these frames: it drops a diff it has by its
        // seq, which a frame sent as plain text would not carry.
        let (h, game) = gameBeyondAWindowOfFive(taps: 12)
        h.autoRead = false
        h.send(2, #"{"type":"watch","game":"\#(game)","since":2,"id":"w"}"#)
        var kinds: [FrameKind] = []
        while !h.pendingReads.isEmpty {
            h.finishReads()
            for case .send(let frame, let id) in h.actions where id == 2 { kinds.append(frame.kind) }
        }
        #expect(kinds.filter { if case .diff = $0 { true } else { false } } == (3...12).map { FrameKind.diff(seq: $0) },
                "\(kinds)")
    }

    @Test func aSinceOlderThanTheWindowIsReadFromStorageInPagesInOrder() {
        let (h, game) = gameBeyondAWindowOfFive(taps: 20, pageSize: 3)
        let live = h.take(1).filter { $0["type"] == "diff" }
        h.autoRead = false
        h.send(2, #"{"type":"watch","game":"\#(game)","since":2,"id":"w"}"#)
        h.send(2, #"{"type":"hint","id":"h"}"#)  // held: answered after the catch-up, in order
        h.send(1, #"{"type":"tap","target":"/stock"}"#)  // the game moves on meanwhile
        #expect(h.types(2) == ["joined"])
        var pages = 0
        while !h.pendingReads.isEmpty {
            pages += 1
            h.finishReads()
        }
        #expect(pages >= 4)
        let replies = h.take(2)
        let diffs = replies.filter { $0["type"] == "diff" }
        #expect(diffs.map { $0["seq"]!.intValue! } == Array(3...21))
        #expect(Array(diffs.prefix(18)) == Array(live.dropFirst(2)))
        #expect(types(replies).suffix(3) == ["ack", "hint", "ack"])
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        #expect(h.take(2).map { $0["seq"] } == [22])
    }

    @Test func replayStartsFromTheDealThenEveryDiff() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"seed":8}}"#)
        let created = h.take(1)
        let deal = created.first { $0["type"] == "snapshot" }!["state"]!
        let game = created[0]["game"]!.stringValue!
        for _ in 0..<3 { h.send(1, #"{"type":"tap","target":"/stock"}"#) }
        h.send(2, #"{"type":"watch","game":"\#(game)","replay":true,"id":"r"}"#)
        let replies = h.take(2)
        #expect(types(replies) == ["joined", "snapshot", "diff", "diff", "diff", "ack"])
        #expect(replies[1]["seq"] == 0)
        #expect(replies[1]["state"] == deal)
        h.send(2, "replay \(game)")
        #expect(h.types(2) == ["joined", "snapshot", "diff", "diff", "diff"])
    }

    @Test func diffsWaitForStorageAndAJoinerNeverGetsOneTwice() {
        let h = HubHarness(autoCommit: false)
        h.open(1)
        h.open(2)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"seed":3}}"#)
        #expect(h.take(1).isEmpty)  // not even the token before the game is stored
        h.commit(upTo: 1)
        let created = h.take(1)
        #expect(types(created) == ["created", "joined", "snapshot"])
        let game = created[0]["game"]!.stringValue!
        h.send(1, #"{"type":"tap","target":"/stock","id":1}"#)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        #expect(h.take(1).isEmpty)
        #expect(h.take(2).isEmpty)
        #expect(h.batches.last?.commands.first?.command == .object(["type": "tap", "target": "/stock"]))
        h.commit(upTo: 2)
        #expect(h.types(1) == ["diff", "ack"])
        let joiner = h.take(2)
        #expect(types(joiner) == ["joined", "snapshot"])
        #expect(joiner[1]["seq"] == 1)
    }

    @Test func aFailedWriteRefusesItsCommandsAndRewindsTheGame() throws {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        h.send(1, #"{"type":"tap","target":"/stock","id":"kept"}"#)
        _ = h.take(1)
        _ = h.take(2)
        h.failWrites = true
        h.send(1, #"{"type":"tap","target":"/stock","id":"lost"}"#)
        #expect(h.resumes == 1)
        let player = h.take(1)
        // Members saw only what was stored (output waits for the store): the rebuilt game needs
        // no second `joined` or snapshot, only the refusal.
        #expect(types(player) == ["error"])
        #expect(player[0]["code"] == "unavailable")
        #expect(player[0]["id"] == "lost")
        #expect(h.take(2).isEmpty, "no diff of a command that was not stored, and no snapshot")
        h.failWrites = false
        h.send(1, #"{"type":"tap","target":"/stock","id":"again"}"#)
        let retried = h.take(1)
        #expect(types(retried) == ["diff", "ack"])
        #expect(retried[0]["seq"] == 2, "the state storage holds, without the lost move")
        #expect(h.take(2).map { $0["seq"] } == [2], "the spectator's stream goes on with no gap")
        #expect(try h.store.commands(game: game, after: 0).map(\.clientID) == ["\"kept\"", "\"again\""])
    }

    @Test func aCreationWhoseRowFailsIsRefused() {
        let h = HubHarness()
        h.open(1)
        h.failWrites = true
        h.send(1, #"{"type":"create","kind":"plane","id":"c"}"#)
        let replies = h.take(1)
        #expect(replies == [.object(["type": "error", "code": "unavailable",
                                     "message": "storage failed, so this command was not applied: disk full", "id": "c"])])
        #expect(h.hub.liveGameCount == 0)
        h.send(1, #"{"type":"add"}"#)
        #expect(h.take(1).first?["code"] == "not-joined")
    }

    @Test func aPlaneForgetsTheSelectionOfAPlayerWhoLeaves() {
        let h = HubHarness()
        let game = h.planeWithASelection()
        h.close(1)
        let diffs = h.take(2)
        #expect(types(diffs) == ["diff"])
        #expect(diffs[0]["cause"] == .object(["type": "leave", "by": "p1"]))
        #expect(diffs[0]["ops"] == .array([.object(["op": "remove", "path": "/selections/p1"])]))
    }

    @Test func theHundredAndFirstFrameInASecondIsRateLimitedWithoutId() {
        let h = HubHarness()
        h.open(1)
        for i in 0..<101 { h.send(1, #"{"type":"list","id":\#(i)}"#) }
        let last = h.take(1).last!
        #expect(last == .object(["type": "error", "code": "rate-limited", "message": "over 100 frames a second"]))
        h.now += 0.05
        h.send(1, #"{"type":"list","id":"later"}"#)
        #expect(h.take(1).last?["id"] == "later")
    }

    @Test func presenceIsMergedAndSentToEveryMemberOnTick() {
        let h = HubHarness()
        h.open(1)
        let (game, _) = h.createKlondike(1)
        for id in (2...6).map({ ConnectionID($0) }) {
            h.open(id)
            h.send(id, #"{"type":"watch","game":"\#(game)"}"#)
        }
        h.tick()
        for id in (1...6).map({ ConnectionID($0) }) {
            let presence = h.take(id).filter { $0["type"] == "presence" }
            #expect(presence == [.object(["type": "presence", "game": .string(game), "players": 1, "spectators": 5])])
        }
    }

    @Test func aCrowdGetsOnePresenceASecondHoweverManyJoin() {
        let h = HubHarness()
        h.open(1)
        let (game, _) = h.createKlondike(1)
        var next = 2
        var presences = 0
        for _ in 0..<20 {  // two seconds of ticks, 60 joiners a tick
            for _ in 0..<60 {
                h.open(ConnectionID(next))
                h.send(ConnectionID(next), #"{"type":"watch","game":"\#(game)"}"#)
                next += 1
            }
            h.tick()
            presences += h.take(1).filter { $0["type"] == "presence" }.count
            h.now += 0.1
        }
        #expect(presences <= 3)
        h.now += 1
        h.tick()
        #expect(h.take(1).last { $0["type"] == "presence" }?["spectators"] == 1200)
    }

    @Test func followersGetTheLobbyAtMostOnceASecond() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        h.send(2, "list follow")
        #expect(h.types(2) == ["lobby"])
        _ = h.createKlondike(1)
        h.tick()
        #expect(h.types(2) == ["lobby"])
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.tick()
        #expect(h.take(2).isEmpty)
        h.now += 1
        h.tick()
        #expect(h.take(2).first?["games"]?.arrayValue?.first?["seq"] == 1)
        h.send(2, "list unfollow")
        _ = h.take(2)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.now += 2
        h.tick()
        #expect(h.take(2).isEmpty)
    }
}

/// Section 10: games rest in storage and come back on first use.
@Suite struct RestingGameTests {
    private func config(idle: Double = 60) -> Hub.Config {
        var config = Hub.Config(games: .standard)
        config.idleSeconds = idle
        return config
    }

    @Test func aGameWithNoMemberAndNoRecentCommandLeavesMemoryAndComesBackOnWatch() {
        let h = HubHarness(config: config())
        h.open(1)
        let (game, _) = h.createKlondike(1)
        for _ in 0..<3 { h.send(1, #"{"type":"tap","target":"/stock"}"#) }
        h.send(1, "show")
        let board = h.take(1).suffix(12)
        h.close(1)
        h.now += 30
        h.tick()
        #expect(h.hub.liveGameCount == 1, "still within --idle")
        h.now += 31
        h.tick()
        #expect(h.hub.liveGameCount == 0)
        #expect(h.hub.lobby.entries().isEmpty)

        h.open(2)
        h.send(2, #"{"type":"watch","game":"\#(game)","since":1,"id":"w"}"#)
        #expect(h.loads == [game])
        #expect(h.types(2) == ["joined", "diff", "diff", "ack"])
        h.send(2, "show")
        #expect(h.take(2).suffix(12) == board)
    }

    @Test func twoRequestsForARestingGameLoadItOnceAndAreAnsweredInOrder() {
        let h = HubHarness(config: config())
        h.open(1)
        let (game, token) = h.createKlondike(1)
        h.close(1)
        h.now += 61
        h.tick()
        h.autoRead = false
        h.open(2)
        h.open(3)
        h.send(2, #"{"type":"watch","game":"\#(game)","id":1}"#)
        h.send(2, #"{"type":"list","id":2}"#)
        h.send(3, #"{"type":"join","game":"\#(game)","token":"\#(token)","id":3}"#)
        h.send(3, #"{"type":"tap","target":"/stock","id":4}"#)
        #expect(h.pendingReads.count == 1)
        #expect(h.take(2).isEmpty && h.take(3).isEmpty)
        h.finishReads()
        #expect(h.loads == [game])
        #expect(h.types(2) == ["joined", "snapshot", "ack", "lobby", "ack", "diff"])
        #expect(h.types(3) == ["joined", "snapshot", "ack", "diff", "ack"])
    }

    @Test func aMissingGameIsNotFoundAfterTheLoadAndLaterRequestsAreStillAnswered() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"watch","game":"zzzzzz","id":1}"#)
        h.send(1, #"{"type":"list","id":2}"#)
        let replies = h.take(1)
        #expect(types(replies) == ["error", "lobby", "ack"])
        #expect(replies[0]["code"] == "not-found")
        #expect(replies[0]["id"] == 1)
    }

    @Test func startUpLoadsAreTheLiveGamesAndTheLobbyListsOnlyThem() throws {
        let h = HubHarness(config: config())
        for id in (1...3).map({ ConnectionID($0) }) {
            h.open(id)
            _ = h.createKlondike(id)
        }
        h.close(1)
        h.close(2)
        h.now += 61
        h.tick()
        #expect(h.hub.lobby.entries().count == 1)
        #expect(try h.store.games(updatedSince: h.now.unixTime - 60).isEmpty)
        #expect(try h.store.recentGames(kind: nil, statuses: nil, limit: 10).count == 3)
    }

    @Test func theLobbyIsAtMostAHundredMostSpectatorsFirst() {
        let h = HubHarness()
        var games: [String] = []
        for id in (1...120).map({ ConnectionID($0) }) {
            h.now += 1
            h.open(id)
            games.append(h.createKlondike(id).0)
        }
        h.open(500)
        h.send(500, #"{"type":"watch","game":"\#(games[7])"}"#)
        h.open(501)
        h.send(501, #"{"type":"watch","game":"\#(games[7])"}"#)
        h.open(502)
        h.send(502, #"{"type":"watch","game":"\#(games[3])"}"#)
        let lobby = h.hub.lobby.entries()
        #expect(lobby.count == 100)
        #expect(lobby.prefix(2).map(\.game) == [games[7], games[3]])
        #expect(lobby[2].game == games[119], "then the most recent activity")
    }

    @Test func apiGamesFiltersAndRefusesBadOnes() throws {
        let h = HubHarness(config: config())
        h.open(1)
        let (klondike, _) = h.createKlondike(1)
        h.open(2)
        h.now += 1  // the plane is the newer game
        h.send(2, #"{"type":"create","kind":"plane"}"#)
        let plane = h.take(2)[0]["game"]!.stringValue!
        func games(_ query: String?) throws -> [String] {
            let response = try #require(h.http("/api/games", query: query))
            #expect(response.status == 200)
            let list = try JSONText.parse(response.body)
            return list.arrayValue?.compactMap { $0["game"]?.stringValue } ?? []
        }
        #expect(try Set(games(nil)) == [klondike, plane])
        #expect(try games("kind=plane") == [plane])
        #expect(try games("status=won").isEmpty)
        for bad in ["kind=chess", "status=sleeping", "limit=0", "limit=1001", "limit=x", "colour=red"] {
            #expect(h.http("/api/games", query: bad)?.status == 400, "\(bad)")
        }
        // Resting games: one of them, and a limit above 100 reaches it.
        h.close(2)
        h.now += 61
        h.tick()
        #expect(try games(nil) == [klondike])
        #expect(try games("limit=500") == [plane, klondike])
        #expect(try games("limit=500&kind=plane") == [plane])
    }

    @Test func apiGamesFilterOnThePhaseEveryGameHas() throws {
        let h = HubHarness(config: config())
        h.open(1)
        let (klondike, _) = h.createKlondike(1)
        h.open(2)
        h.now += 1
        h.send(2, #"{"type":"create","kind":"four"}"#)
        let four = h.take(2)[0]["game"]!.stringValue!
        func games(_ query: String) throws -> [String] {
            let response = try #require(h.http("/api/games", query: query))
            #expect(response.status == 200, "\(query)")
            return try JSONText.parse(response.body).arrayValue?.compactMap { $0["game"]?.stringValue } ?? []
        }
        // `waiting` and `playing` are words and phases alike; `over` is a phase: won, drawn or finished.
        #expect(try games("status=waiting") == [four])
        #expect(try games("status=playing") == [klondike])
        #expect(try games("status=over").isEmpty)
        // Resting games are filtered the same way by storage.
        h.close(1)
        h.close(2)
        h.now += 61
        h.tick()
        #expect(try games("limit=500&status=waiting") == [four])
        #expect(try games("limit=500&status=playing") == [klondike])
        #expect(try games("limit=500&status=over").isEmpty)
        let refusal = try #require(h.http("/api/games", query: "status=asleep"))
        #expect(refusal.status == 400)
        #expect(String(decoding: refusal.body, as: UTF8.self) == "status must be one of drawn, finished, over, playing, waiting, won\n")
    }

    @Test func apiGamesOfOneGameLoadsARestingOne() throws {
        let h = HubHarness(config: config())
        h.open(1)
        let (game, _) = h.createKlondike(1)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.close(1)
        h.now += 61
        h.tick()
        let response = try #require(h.http("/api/games/\(game)"))
        #expect(response.status == 200)
        #expect(try JSONText.parse(response.body)["seq"] == 1)
        #expect(h.http("/api/games/nothere")?.status == 404)
        #expect(h.http("/api/games/../etc")?.status == 404)
    }
}

/// Section 13: races, each player at a table of their own, views per seat.
@Suite struct RaceHubTests {
    @Test func aRaceStartsWhenEverySeatIsTakenAndEachViewGetsItsOwnDiff() throws {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"create","kind":"race","options":{"seats":2,"seed":5},"id":"c"}"#)
        let created = h.take(1)
        #expect(types(created) == ["created", "joined", "snapshot", "ack"])
        #expect(created[1]["you"] == "p1")
        #expect(created[2]["state"]?["status"] == "waiting")
        let game = created[0]["game"]!.stringValue!
        let token = created[0]["token"]!.stringValue!
        h.send(1, #"{"type":"tap","target":"/stock","id":"early"}"#)
        #expect(h.take(1).first?["code"] == "illegal-move")

        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        _ = h.take(3)
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        let joiner = h.take(2)
        #expect(types(joiner) == ["joined", "snapshot", "diff", "event"])
        #expect(joiner[0]["you"] == "p2")
        #expect(joiner[3]["event"] == "start")
        #expect(types(h.take(1)) == ["diff", "event"])
        #expect(types(h.take(3)) == ["diff", "event"])

        h.send(1, #"{"type":"tap","target":"/stock","id":"t"}"#)
        let mine = h.take(1)
        let rival = h.take(2)
        let spectator = h.take(3)
        #expect(types(mine) == ["diff", "ack"])
        #expect(mine[0] == spectator[0], "the mover sees their table as spectators do")
        let drawn = try #require(mine[0]["ops"]?.arrayValue?.first { $0["path"]?.stringValue?.hasPrefix("/tables/p1/waste") == true })
        #expect(drawn["value"] != "??")
        let masked = try #require(rival[0]["ops"]?.arrayValue?.first { $0["path"]?.stringValue?.hasPrefix("/tables/p1/waste") == true })
        #expect(masked["value"] == "??", "a rival never sees a card their own table hides")

        // Seats: all held, so a third join is refused; a dropped player takes their seat back by name.
        h.open(4)
        h.send(4, #"{"type":"join","game":"\#(game)","token":"\#(token)","id":1}"#)
        #expect(h.take(4).first?["code"] == "forbidden")
        h.close(2)
        h.send(4, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p9","id":2}"#)
        #expect(h.take(4).first?["code"] == "forbidden")
        h.send(4, "join \(game) \(token) seat=p2")
        let back = h.take(4)
        #expect(back.first?["you"] == "p2")
        #expect(back[1]["state"]?["tables"]?["p1"]?["waste"]?.arrayValue?.allSatisfy { $0 == "??" } == true)

        h.send(4, #"{"type":"hint","id":"h"}"#)
        #expect(h.types(4) == ["hint", "ack"])
        h.send(3, #"{"type":"hint","id":"h"}"#)
        #expect(h.take(3).first?["code"] == "forbidden")
        h.send(1, #"{"type":"reset","id":"r"}"#)
        #expect(h.take(1).first?["code"] == "illegal-move", "reset only once the race is finished")
    }

    @Test func aSeatedPlayersSinceIsMaskedLikeTheLiveDiffs() throws {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"create","kind":"race","options":{"seed":9}}"#)
        let created = h.take(1)
        let game = created[0]["game"]!.stringValue!
        let token = created[0]["token"]!.stringValue!
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        for _ in 0..<3 { h.send(1, #"{"type":"tap","target":"/stock"}"#) }
        let live = h.take(2).filter { $0["type"] == "diff" }
        h.close(2)
        h.open(5)
        h.send(5, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2","since":1}"#)
        let replayed = h.take(5).filter { $0["type"] == "diff" }
        #expect(replayed == Array(live.dropFirst()))
    }
}

/// Section 12: the solver on the server. Seeds 2 and 21 (draw 1) are a winnable and an
/// unwinnable deal the solver decides in a few thousand positions.
@Suite struct SolverHubTests {
    @Test func winnableDealsComeFromThePoolAtOnceOrFromTheSolver() throws {
        let h = HubHarness(provenSeeds: [ProvenSeed(pool: 1, seed: 2)])
        h.open(1)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"winnable":true},"id":"a"}"#)
        #expect(h.solves.isEmpty, "the pool answered")
        #expect(h.types(1) == ["created", "joined", "snapshot", "ack"])
        #expect(h.batches.last?.provenSeedsTaken == [ProvenSeed(pool: 1, seed: 2)])
        #expect(h.batches.last?.games.first?.options["seed"] == 2)

        h.send(1, #"{"type":"create","kind":"klondike","options":{"winnable":true,"draw":1},"id":"b"}"#)
        #expect(h.solves.count == 1, "an empty pool: the solver finds one")
        #expect(h.types(1) == ["left", "created", "joined", "snapshot", "ack"].filter { $0 != "left" })
        let seed = try #require(h.batches.last(where: { !$0.games.isEmpty })?.games.first?.options["seed"]?.intValue)
        #expect(try KlondikeSolver.solve(deal: .seed(UInt64(seed)), draw: 1, budget: 2_000_000).verdict == .winnable)
    }

    @Test func aWinnableResetSentAgainWithItsIdIsAckedNotDealtAgain() throws {
        let h = HubHarness(provenSeeds: [ProvenSeed(pool: 1, seed: 2), ProvenSeed(pool: 1, seed: 2)])
        h.open(1)
        _ = h.createKlondike(1, options: #"{"seed":21}"#)
        h.send(1, #"{"type":"reset","options":{"winnable":true},"id":"r"}"#)
        let first = h.take(1)
        #expect(types(first) == ["diff", "event", "ack"])
        let seq = try #require(first.last?["seq"])
        h.send(1, #"{"type":"reset","options":{"winnable":true},"id":"r"}"#)
        #expect(h.take(1) == [.object(["type": "ack", "id": "r", "seq": seq])], "applied once: no second deal")
    }

    @Test func aGivenDealTheSolverCannotProveIsAnIllegalMove() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"winnable":true,"seed":21},"id":"x"}"#)
        let refused = h.take(1)
        #expect(refused.first?["code"] == "illegal-move")
        #expect(refused.first?["id"] == "x")
        #expect(h.hub.liveGameCount == 0)
        h.send(1, #"{"type":"create","kind":"race","options":{"winnable":true,"seed":2,"seats":3},"id":"r"}"#)
        #expect(h.types(1) == ["created", "joined", "snapshot", "ack"])
        h.send(1, #"{"type":"create","kind":"klondike","options":{"winnable":"yes"}}"#)
        #expect(h.take(1).first?["code"] == "bad-request")
    }

    @Test func hintsCarryTheVerdictAndFollowingThemWins() throws {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, _) = h.createKlondike(1, options: #"{"seed":2}"#)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        _ = h.take(2)
        var moves = 0
        var solvesAtStart = 0
        while moves < 400 {
            h.now += 0.05  // under the rate limit
            h.send(1, #"{"type":"hint"}"#)
            let hint = try #require(h.take(1).first { $0["type"] == "hint" })
            #expect(hint["winnable"] == true)
            if moves == 0 { solvesAtStart = h.solves.count }
            guard let from = hint["from"]?.stringValue, let to = hint["to"]?.stringValue else { break }
            if from == "/stock" {
                h.send(1, #"{"type":"tap","target":"/stock"}"#)
            } else {
                h.send(1, #"{"type":"drag","from":"\#(from)","to":"\#(to)"}"#)
            }
            #expect(h.take(1).first?["type"] == "diff", "the hinted move is legal")
            moves += 1
        }
        #expect(h.take(2).contains { $0["event"] == "won" }, "following hints alone won the deal")
        #expect(h.solves.count == solvesAtStart, "one solve: every later hint came from the line it found")
        h.send(2, #"{"type":"hint","id":1}"#)  // spectators may ask too
        #expect(h.types(2) == ["hint", "ack"])
    }

    @Test func aLostPositionSaysSo() throws {
        let h = HubHarness()
        h.open(1)
        _ = h.createKlondike(1, options: #"{"seed":21}"#)
        h.send(1, #"{"type":"hint","id":"h"}"#)
        let replies = h.take(1)
        #expect(replies.first?["type"] == "hint")
        #expect(replies.first?["winnable"] == false)
        #expect(replies.last == .object(["type": "ack", "id": "h", "seq": 0]))
    }

    @Test func aWinnableResetDealsAProvenSeedStoredButNotShown() throws {
        let h = HubHarness()
        h.open(1)
        _ = h.createKlondike(1, options: #"{"seed":21}"#)
        h.send(1, #"{"type":"reset","options":{"winnable":true},"id":"r"}"#)
        let replies = h.take(1)
        #expect(types(replies).prefix(2) == ["diff", "event"])
        #expect(replies[0]["cause"] == .object(["type": "reset", "options": .object(["winnable": true]), "by": "p1"]))
        let stored = try #require(h.batches.last?.commands.first?.command)
        let seed = try #require(stored["options"]?["seed"]?.intValue)
        #expect(try KlondikeSolver.solve(deal: .seed(UInt64(seed)), draw: 1, budget: 2_000_000).verdict == .winnable)
        h.send(1, #"{"type":"reset","options":{"winnable":true,"seed":21},"id":"s"}"#)
        #expect(h.take(1).first?["code"] == "illegal-move")
    }

    @Test func thePoolIsToppedUpInTheBackgroundAndStored() throws {
        var config = Hub.Config(games: .standard)
        config.provenPoolTarget = 4
        let h = HubHarness(config: config)
        h.tick()
        #expect(h.solves.isEmpty, "not in the first seconds after start")
        h.now += config.poolRefillDelay
        h.tick()
        #expect(h.solves.count == 2, "one refill per draw")
        let pool = try h.store.provenSeeds()
        #expect(!pool.isEmpty)
        for seed in pool {
            #expect(try KlondikeSolver.solve(deal: .seed(seed.seed), draw: seed.pool, budget: 2_000_000).verdict == .winnable)
        }
    }
}

/// The hub's decisions compared as whole lists of action values.
@Suite struct HubActionListTests {
    @Test func aMoveIsStoredThenOneBroadcastPerAudienceThenTheAck() throws {
        let h = HubHarness(autoCommit: false)
        h.open(1)
        h.open(2)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"seed":42}}"#)
        h.commitAll()
        let game = try #require(h.take(1).first { $0["type"] == "created" }?["game"]?.stringValue)
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        _ = h.take(2)
        let arrival = h.now
        h.send(1, #"{"type":"tap","target":"/stock","id":7}"#)
        let batch = try #require(h.batches.last)
        #expect(h.actions == [.store(batch, ticket: h.lastTicket)], "nothing leaves before the command is durable")
        h.commitAll()
        let diff = try #require(batch.commands.first?.diff)
        // One frame, encoded once, to the players' audience and the spectators'.
        #expect(h.actions == [
            .broadcast(OutFrame(diff), to: [1], arrival: arrival),
            .broadcast(OutFrame(diff), to: [2], arrival: nil),
            .send(OutFrame(#"{"type":"ack","id":7,"seq":1}"#), to: 1),
        ])
        if case .broadcast(let first, _, _) = h.actions[0], case .broadcast(let second, _, _) = h.actions[1] {
            #expect(first === second, "the same frame object: encoded once")
        }
    }

    @Test func aJoinOfAnAbsentGameIsOneErrorAndNothingElse() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"join","game":"NOPE!","token":"t","id":"j"}"#)
        #expect(h.actions == [
            .countError(.notFound),
            .log(LogLine(.info, "refused", ["conn": "1.0", "code": "not-found", "why": "no game NOPE!"])),
            .send(OutFrame(#"{"type":"error","code":"not-found","message":"no game NOPE!","id":"j"}"#), to: 1),
        ])
    }
}

/// PROTOCOL section 13: the join that takes a race's last seat starts it, inside its reply.
@Suite struct RaceStartTests {
    @Test func theLastSeatsJoinHasTheStartBeforeItsAck() throws {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"create","kind":"race","options":{"seats":2,"seed":9}}"#)
        let created = try #require(h.take(1).first { $0["type"] == "created" })
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(created["game"]!.stringValue!)","token":"\#(created["token"]!.stringValue!)","id":"j"}"#)
        let reply = h.take(2)
        #expect(reply.map { $0["type"]?.stringValue ?? "" } == ["joined", "snapshot", "diff", "event", "ack"])
        #expect(reply[3]["event"] == "start")
        #expect(reply[1]["seq"] == 0 && reply[2]["seq"] == 1, "the start is the diff after its snapshot")
        #expect(reply[4] == .object(["type": "ack", "id": "j", "seq": 1]), "the ack holds the start's seq")
        let creator = h.take(1)
        #expect(creator.contains { $0["type"] == "event" && $0["event"] == "start" })
    }
}

/// A connection keeps the player id `joined` gave it when it comes back through
/// another node (its node re-joins with `seat`: that id), in a game without seats too.
@Suite struct PlayerIdentityTests {
    @Test func aRejoinWithItsPlayerIDInAGameWithoutSeatsGetsThatIDBack() {
        let h = HubHarness()
        h.open(1)
        let (game, token) = h.createKlondike(1)
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(h.take(2).first { $0["type"] == "joined" }?["you"] == "p2")
        h.close(2)
        h.open(3)
        h.send(3, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2"}"#)
        #expect(h.take(3).first { $0["type"] == "joined" }?["you"] == "p2", "the id it had, free again")
        h.open(4)
        h.send(4, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2"}"#)
        #expect(h.take(4).first { $0["type"] == "joined" }?["you"] == "p3", "held by another connection: a new id")
        h.open(5)
        h.send(5, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p40"}"#)
        #expect(h.take(5).first { $0["type"] == "joined" }?["you"] == "p40")
        h.open(6)
        h.send(6, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(h.take(6).first { $0["type"] == "joined" }?["you"] == "p41", "an id given back is never handed out again")
        h.open(7)
        h.send(7, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"admin"}"#)
        #expect(h.take(7).first { $0["type"] == "joined" }?["you"] == "p42", "not a player id: ignored")
    }
}

/// Joins whose answer a refused or failed write cut short (a shared store): each is answered, none
/// is left with diffs and no `joined`.
@Suite struct CutShortJoinTests {
    /// A Klondike game of connection 1 (2 is open too), whose tap waits for its write (ticket 2).
    private func gameWithATapWaiting(_ h: HubHarness, tapID: String) -> String {
        h.open(1)
        h.open(2)
        h.send(1, #"{"type":"create","kind":"klondike","options":{"seed":3}}"#)
        h.commit(upTo: 1)
        let game = h.take(1)[0]["game"]!.stringValue!
        h.send(1, #"{"type":"tap","target":"/stock","id":"\#(tapID)"}"#)
        return game
    }

    @Test func aJoinCutShortByARebuildIsAnsweredFromTheStoredGame() {
        let h = HubHarness(autoCommit: false)
        let game = gameWithATapWaiting(h, tapID: "lost")
        h.send(2, #"{"type":"watch","game":"\#(game)","id":"w"}"#)
        #expect(h.take(2).isEmpty, "its answer waits behind the write")
        // The write did reach the store, but its answer was lost (a connection cut after the commit).
        h.run(.storageFailed(2...2, reason: "connection lost"))
        let player = h.take(1)
        #expect(types(player) == ["error", "joined", "snapshot"], "shown less than the store holds: the stored state")
        #expect(player[2]["seq"] == 1)
        let watcher = h.take(2)
        #expect(types(watcher) == ["joined", "snapshot", "ack"], "the watch is answered from the rebuilt game")
        #expect(watcher[1]["seq"] == 1)
        #expect(watcher[2]["id"] == "w")
    }

    @Test func aCommandSentAgainWhileItsWriteFailsIsRefusedNotAcked() {
        let h = HubHarness()
        h.open(1)
        h.open(3)
        let (game, _) = h.createKlondike(1)
        h.run(.frame(3, Array(#"{"type":"watch","game":"\#(game)"}"#.utf8)))
        #expect(h.types(3) == ["joined", "snapshot"])
        h.autoCommit = false
        h.hangWrites = true
        h.send(1, #"{"type":"tap","target":"/stock","id":"u"}"#)
        h.send(1, #"{"type":"tap","target":"/stock","id":"u"}"#)  // sent again: its write still waits
        #expect(h.take(1).isEmpty)
        h.run(.storageFailed(h.lastTicket...h.lastTicket, reason: "no answer within 10 s"))
        let player = h.take(1)
        #expect(types(player) == ["error", "error"], "the tap and the tap sent again: not applied, not acked: \(player)")
        #expect(player.allSatisfy { $0["code"] == "unavailable" })
        #expect(h.take(3).isEmpty, "the spectator saw only what was stored: no joined, no snapshot")
        h.hangWrites = false
        h.autoCommit = true
        h.send(1, #"{"type":"tap","target":"/stock","id":"u"}"#)
        #expect(h.take(1).first { $0["type"] == "ack" }?["seq"] == 1)
        #expect(h.take(3).map { $0["seq"] } == [1])
    }

    @Test func aJoinCutShortByAnotherOwnerIsRefusedNotCarriedOver() {
        var config = Hub.Config(games: .standard)
        config.sharedStoreNode = "n1"
        let h = HubHarness(autoCommit: false, config: config)
        let game = gameWithATapWaiting(h, tapID: "t")
        h.send(2, #"{"type":"watch","game":"\#(game)","since":5,"id":"w"}"#)
        #expect(h.take(2).isEmpty)
        h.run(.committed(upTo: 2, refused: [game: .notOwner(current: GameOwnership(node: "n2", epoch: 2))]))
        let player = h.take(1)
        #expect(player.first?["code"] == "unavailable" && player.first?["id"] == "t")
        let watcher = h.take(2)
        #expect(watcher.count == 1, "no diff and no snapshot for a watch that was never answered: \(watcher)")
        #expect(watcher.first?["code"] == "unavailable" && watcher.first?["id"] == "w")
        #expect(h.closed[1] == 1012, "the member goes on elsewhere (without a cluster: reconnects)")
        #expect(h.closed[2] == nil, "the refused watcher was no member: its client asks again")
    }
}

/// A node cut off while another took its game over holds a copy that is behind:
/// a join whose `since` is past it asks the store who owns the game before any answer.
@Suite struct BehindOwnerTests {
    private func sharedStoreHub() -> (HubHarness, String) { HubHarness.sharedStoreGame(others: [2]) }

    private func ownershipQuestion(_ h: HubHarness) -> UInt64? {
        for read in h.pendingReads.reversed() { if case .ownerships(let token, _) = read { return token } }
        return nil
    }

    @Test func aJoinPastThisNodesCopyWaitsForTheStoreAndGoesWhereTheGameIs() {
        let (h, game) = sharedStoreHub()
        h.send(2, #"{"type":"watch","game":"\#(game)","since":20,"id":"w"}"#)
        #expect(h.take(2).isEmpty, "nothing from a copy that may be stale")
        let token = try! #require(ownershipQuestion(h))
        h.run(.read(.ownerships(token: token, [game: GameOwnership(node: "n2", epoch: 2)])))
        #expect(h.closed[1] == 1012, "the game moved: its member here goes on elsewhere")
        #expect(h.take(2).isEmpty)
        #expect(h.pendingReads.contains { if case .acquire(game, _, _) = $0 { true } else { false } },
                "the watch goes on to wherever the store says the game is")
    }

    @Test func aSincePastTheGameOnItsOwnerIsAnsweredAfterOneCheck() {
        let (h, game) = sharedStoreHub()
        h.send(2, #"{"type":"watch","game":"\#(game)","since":20,"id":"w"}"#)
        let token = try! #require(ownershipQuestion(h))
        h.run(.read(.ownerships(token: token, [game: GameOwnership(node: "n1", epoch: 1)])))
        #expect(h.types(2) == ["joined", "snapshot", "ack"])
        h.send(2, #"{"type":"watch","game":"\#(game)","since":30,"id":"again"}"#)
        #expect(h.types(2) == ["joined", "snapshot", "ack"], "asked once per seq")
    }
}

/// A game being rebuilt after a failed write takes no server command (a Plane
/// departure applied meanwhile was stored after a seq that never was, and the game could
/// never be loaded again).
@Suite struct RebuildTests {
    @Test func aPlayerWhoLeavesWhileTheGameIsRebuiltLeavesAfterIt() throws {
        let h = HubHarness()
        let game = h.planeWithASelection()
        h.autoCommit = false
        h.autoRead = false
        h.hangWrites = true
        h.send(1, #"{"type":"add","id":"lost"}"#)
        h.run(.storageFailed(h.lastTicket...h.lastTicket, reason: "connection lost"))
        h.hangWrites = false
        h.autoCommit = true
        h.close(1)  // its selection is the game's to drop, once the game is back
        h.finishReads()
        let stored = try h.store.commands(game: game, after: 0)
        #expect(stored.map(\.seq) == [1, 2], "no seq skipped: the game loads again")
        let spectator = h.take(2).filter { $0["type"] == "diff" }
        #expect(spectator.map { $0["seq"] } == [2])
        #expect(spectator.first?["cause"] == .object(["type": "leave", "by": "p1"]))
    }
}

/// Player ids of a game without seats are stored as they are handed out (a node
/// that took a game over gave a new player the id of a member who had not moved yet, and that
/// member came back as someone else).
@Suite struct IssuedPlayerIDTests {
    @Test func anIdHandedOutIsNeverHandedOutAgainAfterALoad() throws {
        let h = HubHarness()
        h.open(1)
        h.open(3)
        h.send(1, #"{"type":"create","kind":"plane","options":{"seed":5}}"#)
        let created = try #require(h.take(1).first { $0["type"] == "created" })
        let (game, token) = (created["game"]!.stringValue!, created["token"]!.stringValue!)
        h.send(1, #"{"type":"add"}"#)
        h.send(3, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(h.take(3).first?["you"] == "p2")  // and it has not moved
        guard case .loaded(let loaded) = GameLoader.load(game, from: h.store, games: .standard, windowSize: 128,
                                                         asOf: h.now.unixTime) else {
            Issue.record("not stored")
            return
        }
        let room = GameRoom(loaded: loaded, windowSize: 128, now: h.now)
        #expect(room.members.add(asPlayer: true, seat: nil, id: 9).role == .player("p3"), "p2 is the member's, wherever it comes back")
    }
}

/// A member that joins again while it holds its own player id keeps it (a node's
/// silent catch-up sent twice made a Klondike player someone else).
@Suite struct RejoinKeepsTheIdTests {
    @Test func aPlayerJoiningAgainWithItsOwnIdKeepsIt() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        let (game, token) = h.createKlondike(1)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(h.take(2).first?["you"] == "p2")
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2"}"#)
        #expect(h.take(2).first?["you"] == "p2", "its own id, not the next one")
        h.send(2, #"{"type":"tap","target":"/stock"}"#)
        #expect(h.take(2).first?["cause"]?["by"] == "p2")
    }
}
