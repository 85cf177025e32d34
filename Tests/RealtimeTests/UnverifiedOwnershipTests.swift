import Core
import Testing
@testable import Realtime

/// A check of which games this node still owns (its lease ran out) that the store failed in the
/// middle of: the games it could not ask about are asked about again once the store answers, so
/// a copy another node took over meanwhile does not go on serving a history that stopped (seed
/// 701418638: n3's check was cut short by a PostgreSQL restart, and a watch of a game n2 had taken
/// over was answered from n3's copy, one acked move short).
@Suite struct UnverifiedOwnershipTests {
    private func sharedStoreHub() -> (HubHarness, String) { HubHarness.sharedStoreGame() }

    private func ownershipQuestions(_ actions: [HubAction]) -> [(UInt64, [String])] {
        actions.compactMap { if case .read(.ownerships(let token, let games)) = $0 { (token, games) } else { nil } }
    }

    private func pendingQuestions(_ h: HubHarness) -> [(UInt64, [String])] {
        h.pendingReads.compactMap { if case .ownerships(let token, let games) = $0 { (token, games) } else { nil } }
    }

    @Test func gamesACheckCouldNotAskAboutAreAskedAboutAgainOnceTheStoreAnswers() throws {
        let (h, game) = sharedStoreHub()
        let check = try #require(ownershipQuestions(h.hub.handleLink(at: h.now) { _ in [.verifyOwnership] }).first)
        #expect(check.1 == [game])

        // The store went away during the check: nothing is known of the game's owner.
        h.run(.read(.ownerships(token: check.0, [:], unchecked: [game])))
        #expect(h.closed[1] == nil, "nothing known: the game stays here for now")

        h.run(.storeHealth(problem: "connection refused"))
        h.tick()
        #expect(pendingQuestions(h).isEmpty, "not asked while the store does not answer")

        h.run(.storeHealth(problem: nil))
        h.tick()
        let again = try #require(pendingQuestions(h).last, "asked again once the store answers")
        #expect(again.1 == [game])
        h.tick()
        #expect(pendingQuestions(h).count == 1, "one question at a time")

        // Another node took the game over meanwhile: its member here goes on through that node.
        h.run(.read(.ownerships(token: again.0, [game: GameOwnership(node: "n2", epoch: 2)])))
        #expect(h.closed[1] == 1012, "the game moved: its member here goes on elsewhere")
        h.tick()
        #expect(pendingQuestions(h).count == 1, "nothing left to ask about")
    }

    @Test func aGameTheStoreSaysIsStillOwnedHereIsAskedAboutNoMore() throws {
        let (h, game) = sharedStoreHub()
        let check = try #require(ownershipQuestions(h.hub.handleLink(at: h.now) { _ in [.verifyOwnership] }).first)
        h.run(.read(.ownerships(token: check.0, [:], unchecked: [game])))
        h.tick()
        let again = try #require(pendingQuestions(h).last)
        h.run(.read(.ownerships(token: again.0, [game: GameOwnership(node: "n1", epoch: 1)])))
        #expect(h.closed[1] == nil)
        h.tick()
        h.tick()
        #expect(pendingQuestions(h).count == 1, "the owner is known: no more questions")
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        #expect(h.types(1).contains("diff"), "the game goes on here")
    }

    /// While nothing is known of the game's owner, this node's copy may have stopped where another
    /// node took over: a new watcher or player is told `unavailable` and tries again, and is
    /// served once the store has said the game is still here.
    @Test func aJoinOrWatchOfAGameNoCheckCouldPlaceIsUnavailableUntilTheStoreSays() throws {
        let (h, game) = HubHarness.sharedStoreGame(others: [2])
        let check = try #require(ownershipQuestions(h.hub.handleLink(at: h.now) { _ in [.verifyOwnership] }).first)
        h.run(.read(.ownerships(token: check.0, [:], unchecked: [game])))

        h.send(2, #"{"type":"watch","game":"\#(game)","id":"w1"}"#)
        let refused = h.take(2)
        #expect(refused.count == 1, "\(refused)")
        #expect(refused.first?["code"] == "unavailable" && refused.first?["id"] == "w1", "\(refused)")
        h.send(2, #"{"type":"join","game":"\#(game)","id":"j1"}"#)
        #expect(h.take(2).first?["code"] == "unavailable", "a player's join too")
        h.send(1, #"{"type":"tap","target":"/stock","id":"t1"}"#)
        #expect(h.types(1).contains("diff"), "its member here is not refused: its moves wait on the store's fence as ever")

        // The store says the game is still this node's: the watch is served from now on.
        h.tick()
        let again = try #require(pendingQuestions(h).last)
        h.run(.read(.ownerships(token: again.0, [game: GameOwnership(node: "n1", epoch: 1)])))
        h.send(2, #"{"type":"watch","game":"\#(game)","id":"w2"}"#)
        #expect(h.types(2).contains("snapshot"))
    }
}
