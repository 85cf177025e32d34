import Core
import Testing
@testable import Realtime

/// A member whose game's owner restarted, on a store shared by the nodes: the new incarnation owns
/// nothing, so the member's node asks the store who does before catching the member up.
@Suite struct RestartedOwnerTests {
    private func forwards(_ effects: Effects, to node: String) -> [JSON] {
        effects.actions.compactMap { action -> JSON? in
            guard case .send(node, .forward(_, _, _, _, let message))? = action.clusterAction else { return nil }
            return try? JSONText.parse(message)
        }
    }

    /// The 2-minute campaign's gaps (seed 287866051): an owner killed and back within about a
    /// lease; node b saw it die and took its game over; this node saw only the restart, and caught
    /// its spectator up through the restarted node, which never answered, while b's diffs passed.
    @Test func aMemberWhoseOwnerRestartedCatchesUpThroughTheOwnerTheStoreNames() throws {
        let game = "8xmk4ylw"
        let settled = SettledMachine(node: "c", alive: ["a": "1", "b": "1", "c": "1"])
        let (machine, sessions) = (settled.machine, settled.sessions)
        var now = settled.now
        var effects = Effects()
        machine.learned(game, owner: GameOwnership(node: "a", epoch: 1), now: now, into: &effects)
        sessions.open(7, address: .unknown, now: now)
        let watch = try #require(SettledMachine.request(.object(["type": "watch", "game": .string(game)])))
        #expect(machine.route(7, watch, now: now, into: &effects) == .elsewhere)
        for event: ClusterEvent in [
            .subscribed(game: game),
            .nodeMessage(ClusterEnvelope.reply(connection: 7, kind: .joined(game: game, kind: "four", player: nil),
                                               frame: Array(#"{"type":"joined"}"#.utf8)).bytes),
            .nodeMessage(ClusterEnvelope.subscribed(connection: 7, game: game, audience: "*", seq: 8).bytes),
            .nodeMessage(ClusterEnvelope.done(connection: 7, request: 1).bytes),
        ] { _ = machine.receive(event, now: now, into: &effects) }
        #expect(machine.seenSeq(7) == 8)

        now += 5
        effects = Effects()
        let requests = machine.receive(.view(codes: [:], alive: ["a": "2", "b": "1", "c": "1"], lobbies: [:]),
                                       now: now, into: &effects)
        #expect(forwards(effects, to: "a").isEmpty, "a's new incarnation owns nothing: no catch-up through it")
        #expect(requests.contains { if case .takeOver(game) = $0 { true } else { false } }, "the store is asked")

        effects = Effects()
        machine.learned(game, owner: GameOwnership(node: "b", epoch: 2), now: now, into: &effects)
        let caughtUp = forwards(effects, to: "b")
        #expect(caughtUp.count == 1 && caughtUp.first?["since"] == 8, "caught up through b from seq 8: \(caughtUp)")
    }
}
