import Testing
@testable import Realtime

/// Who may take a game from whom on a shared store (PROTOCOL 11.1): only from a node whose key
/// stayed missing past the grace, and from nobody while Redis is down or filling up again.
@Suite struct TakeoverPolicyTests {
    private let start = Instant(monotonic: 100, unixTime: 1_700_000_000)

    private func directory() -> NodeDirectory {
        NodeDirectory(identity: ClusterIdentity(node: "a", code: "", leaseSeconds: 2), sharesStore: true)
    }

    /// A directory whose link has settled with `a` and `b` alive, then `b`'s key gone past the grace.
    private func directoryWithBDead() -> (NodeDirectory, Instant) {
        var nodes = directory()
        nodes.linkCameUp(now: start)
        let settled = start + NodeDirectory.settling
        _ = nodes.read(codes: [:], alive: ["a": "1", "b": "1"], now: settled)
        _ = nodes.read(codes: [:], alive: ["a": "1"], now: settled + 1)
        let gone = settled + 1 + NodeDirectory.grace
        #expect(nodes.read(codes: [:], alive: ["a": "1"], now: gone).dead == ["b"])
        return (nodes, gone)
    }

    @Test func aGoneOwnersGamesMayBeTakenOnlyOnceItsKeyStayedMissingPastTheGrace() {
        var nodes = directory()
        nodes.linkCameUp(now: start)
        _ = nodes.read(codes: [:], alive: ["a": "1", "b": "1"], now: start)
        #expect(nodes.takeoverPolicy == .none, "the link came up a moment ago")
        let settled = start + NodeDirectory.settling
        _ = nodes.read(codes: [:], alive: ["a": "1", "b": "1"], now: settled)
        #expect(!nodes.takeoverPolicy.allows(takingFrom: "b"), "b is alive")
        _ = nodes.read(codes: [:], alive: ["a": "1"], now: settled + 1)
        #expect(!nodes.takeoverPolicy.allows(takingFrom: "b"), "a renewal late by a moment is not a death")
        let changes = nodes.read(codes: [:], alive: ["a": "1"], now: settled + 1 + NodeDirectory.grace)
        #expect(changes.dead == ["b"])
        #expect(nodes.takeoverPolicy.allows(takingFrom: "b"))
        #expect(!nodes.takeoverPolicy.allows(takingFrom: "a"))
    }

    @Test func whileRedisIsDownNoGameChangesOwner() {
        var (nodes, gone) = directoryWithBDead()
        nodes.linkWentDown()
        #expect(nodes.takeoverPolicy == .none)
        #expect(!nodes.takeoverPolicy.allows(takingFrom: "b"))
        // Back up, Redis restarted empty: keys fill up again over a round or two.
        let back = gone + 30
        nodes.linkCameUp(now: back)
        _ = nodes.read(codes: [:], alive: [:], now: back)
        #expect(nodes.takeoverPolicy == .none, "a missing key right after the link came back is no death")
        _ = nodes.read(codes: [:], alive: ["a": "1"], now: back + NodeDirectory.settling)
        #expect(nodes.takeoverPolicy.allows(takingFrom: "b"), "b stayed gone")
    }

    @Test func aNodeBackWithANewIncarnationOwnsNothingItOwnedBefore() {
        var (nodes, gone) = directoryWithBDead()
        nodes.learn(owner: GameOwnership(node: "b", epoch: 3), of: "g")
        let changes = nodes.read(codes: [:], alive: ["a": "1", "b": "2"], now: gone + 1)
        #expect(changes.restarted == ["b"])
        #expect(nodes.knownOwner(of: "g") == nil, "the store says who owns it now")
        #expect(!nodes.takeoverPolicy.allows(takingFrom: "b"), "alive again")
    }
}

/// What a node of a shared store does when it hears another node took it for dead.
@Suite struct TakenForDeadTests {
    private func machine(sharesStore: Bool) -> ClusterMachine {
        ClusterMachine(identity: ClusterIdentity(node: "a", code: "", leaseSeconds: 3), sessions: SessionTable(),
                       sharesStore: sharesStore)
    }

    private func checksOwnership(_ requests: [NodeRequest]) -> Bool {
        requests.contains { if case .verifyOwnership = $0 { true } else { false } }
    }

    @Test func aNodeTakenForDeadChecksWhichOfItsGamesItStillOwns() {
        let now = Instant(monotonic: 100, unixTime: 1_700_000_000)
        var effects = Effects()
        let forgotten = ClusterEvent.nodeMessage(ClusterEnvelope.forgotten(from: "b").bytes)
        #expect(checksOwnership(machine(sharesStore: true).receive(forgotten, now: now, into: &effects)),
                "b may have taken its games after the check its lapsed lease made")
        #expect(!checksOwnership(machine(sharesStore: false).receive(forgotten, now: now, into: &effects)),
                "without a shared store, games never change hands")
    }
}
