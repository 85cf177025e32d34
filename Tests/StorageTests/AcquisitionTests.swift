import Core
import Foundation
@testable import Realtime
import Testing

/// A node claiming a game on a shared PostgreSQL store, and what it concludes when the game
/// moves on while it reads it.
@Suite struct AcquisitionTests {
    /// The 30-minute campaign's spectator left behind (seed 430687558): node n2 claimed a Plane
    /// game and read it for ten seconds over a lossy link; meanwhile n3 claimed it and played on,
    /// so n2's replay went past the seq of the row it had read first, and the load failed. n2
    /// called that a failure to claim, and its spectator kept catching up through the game's
    /// owner before n2, which had it no more, until the end of the run.
    @Test func aGameClaimedByAnotherNodeDuringTheLoadIsThatNodes() throws {
        try withFreshPostgresDatabase { configuration in
            let a = try PostgresGameStore(configuration: configuration)
            let b = try PostgresGameStore(configuration: configuration)
            defer { try? a.close(); try? b.close() }
            try a.write(StoreBatch(games: [klondikeGame("g")], newGames: ["g"], fence: StoreFence(node: "a")))
            #expect(try b.claim(game: "g", node: "b", expectedEpoch: 1) == .claimed(GameOwnership(node: "b", epoch: 2)))

            // a claims g from b (b was taken for dead), and while a reads g, b's partner c claims it and moves.
            let slowRead = StoreWithAHookBeforeItsFirstReplay(a) {
                #expect(try b.claim(game: "g", node: "c", expectedEpoch: 3) == .claimed(GameOwnership(node: "c", epoch: 4)))
                let tap = StoredCommand(game: "g", seq: 1, command: .object(["type": "tap", "target": "/stock"]),
                                        player: "p1", clientID: nil, time: 1_700_000_001)
                try b.write(StoreBatch(games: [klondikeGame("g", seq: 1)], commands: [tap],
                                       fence: StoreFence(node: "c", epochs: ["g": 4])))
            }
            let acquisition = GameLoader.acquire("g", from: slowRead, by: Claimant(node: "a", takeover: .any), games: .standard,
                                                 windowSize: 16, asOf: 1_700_000_002)
            guard case .ownedBy(let owner) = acquisition else {
                Issue.record("the game is c's now, not a failure to claim: \(acquisition)")
                return
            }
            #expect(owner == GameOwnership(node: "c", epoch: 4))
        }
    }
}

/// A shared store that runs `hook` once, before the first command of a replay is read: another
/// node acting between a claim and the load that follows it.
private final class StoreWithAHookBeforeItsFirstReplay: SharedGameStore, @unchecked Sendable {
    private let inner: PostgresGameStore
    private let hook: () throws -> Void
    private let ran = Locked(false)

    init(_ inner: PostgresGameStore, hook: @escaping () throws -> Void) {
        self.inner = inner
        self.hook = hook
    }

    func forEachCommand(game: String, after seq: Int, _ body: (StoredCommand) throws -> Void) throws {
        if !ran.withValue({ ran in defer { ran = true }; return ran }) { try hook() }
        try inner.forEachCommand(game: game, after: seq, body)
    }

    func ownership(of game: String) throws -> GameOwnership? { try inner.ownership(of: game) }
    func claim(game: String, node: String, expectedEpoch: Int64) throws -> ClaimOutcome {
        try inner.claim(game: game, node: node, expectedEpoch: expectedEpoch)
    }
    func release(game: String, node: String, epoch: Int64) throws -> Bool { try inner.release(game: game, node: node, epoch: epoch) }
    func game(id: String) throws -> StoredGame? { try inner.game(id: id) }
    func games() throws -> [StoredGame] { try inner.games() }
    func games(updatedSince time: Double) throws -> [StoredGame] { try inner.games(updatedSince: time) }
    func recentGames(kind: String?, statuses: [String]?, limit: Int) throws -> [StoredGame] {
        try inner.recentGames(kind: kind, statuses: statuses, limit: limit)
    }
    func diffs(game: String, after seq: Int, limit: Int) throws -> [String] { try inner.diffs(game: game, after: seq, limit: limit) }
    func fillDiffs(game: String, _ diffs: [(seq: Int, diff: String)]) throws { try inner.fillDiffs(game: game, diffs) }
    func command(game: String, clientID: String) throws -> StoredCommand? { try inner.command(game: game, clientID: clientID) }
    func write(_ batch: StoreBatch) throws -> WriteOutcome { try inner.write(batch) }
    func provenSeeds() throws -> [ProvenSeed] { try inner.provenSeeds() }
    func recentChat(game: String, limit: Int) throws -> [StoredChat] { try inner.recentChat(game: game, limit: limit) }
    func chat(game: String, after: Int, through: Int, limit: Int) throws -> [StoredChat] {
        try inner.chat(game: game, after: after, through: through, limit: limit)
    }
    func meta(_ key: String) throws -> String? { try inner.meta(key) }
    func setMeta(_ key: String, _ value: String) throws { try inner.setMeta(key, value) }
    func deleteUntouched(before: Double, limit: Int) throws -> [String] { try inner.deleteUntouched(before: before, limit: limit) }
    func usage() throws -> StorageUsage { try inner.usage() }
    func close() throws { try inner.close() }
    func probe() throws { try inner.probe() }
}
