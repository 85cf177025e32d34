import Core
import Testing
@testable import Realtime

/// Owners answering late (a one-way cut from an owner to Redis heals, and what it sent in the
/// meantime arrives at once): replies to catch-ups this node gave up must not reach the client.
@Suite struct LateRepliesTests {
    private func forwardNumbers(_ effects: Effects) -> [UInt64] {
        effects.actions.compactMap { action -> UInt64? in
            guard case .send(_, .forward(_, _, let number, _, _))? = action.clusterAction else { return nil }
            return number
        }
    }

    private func framesSent(_ effects: Effects, to id: ConnectionID) -> [String] {
        effects.actions.compactMap { action -> String? in
            guard case .send(let frame, id) = action else { return nil }
            return String(decoding: frame.bytes, as: UTF8.self)
        }
    }

    /// The 30-minute campaign's repeated diff (seed 257466397): a player on n2 of n1's game was
    /// caught up through n1 twice while n1 could not reach Redis, n2 took the game over and served
    /// the player its diffs 1 and 2, and then n1's answers arrived: the second catch-up's `joined`,
    /// the first one's `done` (held behind a rebuild at n1), then the second one's diff 1, which
    /// the player got again.
    @Test func aCatchUpAnsweredAfterTheGameCameHereRepeatsNothing() throws {
        let game = "rndxg1li", alive = ["a": "1", "b": "1"]
        let settled = SettledMachine(node: "b", alive: alive)
        let (machine, sessions) = (settled.machine, settled.sessions)
        var now = settled.now
        var effects = Effects()
        machine.learned(game, owner: GameOwnership(node: "a", epoch: 2), now: now, into: &effects)
        sessions.open(7, address: .unknown, now: now)
        let join = try #require(SettledMachine.request(.object(["type": "join", "game": .string(game), "seat": "p1"])))
        #expect(machine.route(7, join, now: now, into: &effects) == .elsewhere)
        for event: ClusterEvent in [
            .subscribed(game: game),
            .nodeMessage(ClusterEnvelope.reply(connection: 7, kind: .joined(game: game, kind: "four", player: "p1"),
                                               frame: Array(#"{"type":"joined"}"#.utf8)).bytes),
            .nodeMessage(ClusterEnvelope.subscribed(connection: 7, game: game, audience: "p1", seq: 0).bytes),
            .nodeMessage(ClusterEnvelope.done(connection: 7, request: 1).bytes),
        ] { _ = machine.receive(event, now: now, into: &effects) }

        // a took b for dead: its members there join again, silently (catch-up 2).
        effects = Effects()
        _ = machine.receive(.nodeMessage(ClusterEnvelope.forgotten(from: "a").bytes), now: now, into: &effects)
        let first = forwardNumbers(effects)
        // No answer within the lease: given up, and tried again (catch-up 3).
        now += 4
        effects = Effects()
        _ = machine.receive(.view(codes: [:], alive: alive, lobbies: [:]), now: now, into: &effects)
        let second = forwardNumbers(effects)
        try #require(first.count == 1 && second.count == 1, "two catch-ups on their way: \(first), \(second)")

        // b claims the game from the store: the player becomes a member of the room here.
        effects = Effects()
        let admitted = machine.acquired(game, GameOwnership(node: "b", epoch: 3), into: &effects)
        #expect(admitted.count == 1)

        // a's answers arrive at last, the first catch-up's `done` amid the second's reply.
        effects = Effects()
        let diff = #"{"type":"diff","game":"rndxg1li","seq":1,"ops":[]}"#
        let event = #"{"type":"event","game":"rndxg1li","seq":1,"event":"start"}"#
        for envelope: ClusterEnvelope in [
            .reply(connection: 7, kind: .joined(game: game, kind: "four", player: "p1"), frame: Array(#"{"type":"joined"}"#.utf8)),
            .done(connection: 7, request: first[0]),
            .reply(connection: 7, kind: .diff(seq: 1), frame: Array(diff.utf8)),
            .reply(connection: 7, kind: .plain, frame: Array(event.utf8)),
            .subscribed(connection: 7, game: game, audience: "p1", seq: 1),
            .done(connection: 7, request: second[0]),
        ] { _ = machine.receive(.nodeMessage(envelope.bytes), now: now, into: &effects) }
        #expect(framesSent(effects, to: 7).isEmpty, "the player has all of it from this node's room")
    }
}
