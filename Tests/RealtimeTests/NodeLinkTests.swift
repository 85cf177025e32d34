import Core
import Testing
@testable import Realtime

/// The hub's side of the cluster boundary, with a stand-in for the other nodes: what the hub
/// asks of a `NodeLink` and does for it, in the hub's own terms (no cluster type in sight).
@Suite struct NodeLinkTests {
    /// Games in `elsewhere` belong to another node; everything else is served here.
    final class StandInLink: NodeLink {
        var elsewhere: Set<String> = []
        private(set) var routedAway: [ConnectionID] = []
        private(set) var settled: [ConnectionID] = []

        var gameIDPrefix: String? { "zz" }
        var takeoverPolicy: TakeoverPolicy { .any }
        func seenSeq(_ id: ConnectionID) -> Int? { nil }

        func route(_ id: ConnectionID, _ request: ClientRequest, now: Instant, into effects: inout Effects) -> RequestRoute {
            guard case .watch(let game, _, _, _) = request.command, elsewhere.contains(game) else { return .here }
            routedAway.append(id)
            return .elsewhere
        }

        func settle(_ id: ConnectionID, into effects: inout Effects) { settled.append(id) }
        func routeHTTP(_ request: HTTPRequestID, path: String, query: String?, now: Instant,
                       into effects: inout Effects) -> Bool { false }
        func closed(_ id: ConnectionID, into effects: inout Effects) {}
        func tick(now: Instant, lobby: @autoclosure () -> [LobbyEntry], into effects: inout Effects) -> [NodeRequest] { [] }
        func outgoing(_ actions: [HubAction]) -> [HubAction] { actions }
        func acquired(_ game: String, _ ownership: GameOwnership, into effects: inout Effects) -> [NodeRequest] { [] }
        func learned(_ game: String, owner: GameOwnership, now: Instant, into effects: inout Effects) {}
        func claimFailed(_ game: String) {}
        func lost(_ game: String, to owner: GameOwnership, members: [(ConnectionID, JSON, Int)], now: Instant,
                  into effects: inout Effects) -> [NodeRequest] { [] }
    }

    @Test func aRequestTheLinkRoutesElsewhereIsNotServedHere() {
        let harness = HubHarness()
        let link = StandInLink()
        harness.hub.attach(link)
        harness.open(1)
        let (game, _) = harness.createKlondike(1)
        #expect(game.hasPrefix("zz"), "ids start with the link's prefix")
        link.elsewhere = ["far0away"]
        harness.open(2)
        harness.send(2, #"{"type":"watch","game":"far0away"}"#)
        #expect(link.routedAway == [2])
        #expect(harness.take(2).isEmpty, "the link answers it, not the hub")
        harness.send(2, #"{"type":"watch","game":"\#(game)","id":"w"}"#)
        #expect(harness.types(2) == ["joined", "snapshot", "ack"])
        #expect(link.settled.contains(2), "served here: the link hears of it")
    }

    @Test func anotherNodesWatchCutShortByAFailedWriteIsSubscribedThereWhenTheGameIsBack() {
        let harness = HubHarness()
        harness.hub.attach(StandInLink())
        harness.open(1)
        let (game, _) = harness.createKlondike(1)
        harness.autoCommit = false
        harness.hangWrites = true
        harness.send(1, #"{"type":"tap","target":"/stock","id":"lost"}"#)
        let remote = harness.hub.sessions.openRemote(now: harness.now)
        _ = harness.hub.handleLink(at: harness.now) { _ in
            [.frame(remote, Array(#"{"type":"watch","game":"\#(game)","id":"w"}"#.utf8)), .marker(remote, 7)]
        }
        harness.run(.storageFailed(harness.lastTicket...harness.lastTicket, reason: "connection lost"))
        #expect(harness.actions.contains(.remote(.subscribed(remote, game: game, audience: .spectators, seq: 0))),
                "its node hears it receives the game from seq 0, or it would catch it up again from nothing")
        #expect(harness.actions.contains(.remote(.marker(remote, 7))))
    }

    @Test func anotherNodesRequestIsServedAsIfLocalAndEndsWithItsMarker() {
        let harness = HubHarness()
        harness.hub.attach(StandInLink())
        harness.open(1)
        let (game, _) = harness.createKlondike(1)
        let remote = harness.hub.sessions.openRemote(now: harness.now)
        let actions = harness.hub.handleLink(at: harness.now) { _ in
            [.frame(remote, Array(#"{"type":"watch","game":"\#(game)","id":"w"}"#.utf8)), .marker(remote, 7)]
        }
        #expect(actions.contains(.remote(.marker(remote, 7))))
        #expect(actions.contains { if case .send(_, remote) = $0 { return true } else { return false } })
    }
}
