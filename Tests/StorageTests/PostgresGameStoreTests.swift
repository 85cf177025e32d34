import Core
import Foundation
import PostgresNIO
@testable import Realtime
import Testing

/// What only the PostgreSQL store has: owners and fences shared by nodes, a server that can
/// go away and come back, migrations of a database. Two store instances on one database play
/// two nodes.
@Suite struct PostgresGameStoreTests {
    // MARK: Opening

    @Test func commitsWaitForTheDiskAndTheTablesAreMigratedOnce() throws {
        try withFreshPostgresDatabase { configuration in
            // Three nodes starting together on an empty database: one migrates, the others find it done.
            let stores = Locked<[Result<PostgresGameStore, any Error>]>([])
            DispatchQueue.concurrentPerform(iterations: 3) { _ in
                let store = Result { try PostgresGameStore(configuration: configuration) }
                stores.withValue { $0.append(store) }
            }
            let opened = try stores.withValue { $0 }.map { try $0.get() }
            defer { for store in opened { try? store.close() } }
            #expect(try opened[0].writerSetting("synchronous_commit") == "on")
            let versions = try PostgresAdmin.withSession(configuration) { session in
                try session.query("SELECT version FROM boardcast_migration ORDER BY version").map { try $0.decode(Int.self) }
            }
            #expect(versions == PostgresSchema.migrations.map(\.version))
        }
    }

    @Test func aDatabaseMigratedByANewerVersionIsRefusedUnchanged() throws {
        try withFreshPostgresDatabase { configuration in
            try PostgresGameStore(configuration: configuration).close()
            try PostgresAdmin.run(on: configuration, "INSERT INTO boardcast_migration (version, name) VALUES (99, 'from-the-future')")
            let error = StorageError.newerDatabaseSchema(
                store: configuration.redactedURL, unknownMigrations: ["v99-from-the-future"])
            #expect(throws: error) { try PostgresGameStore(configuration: configuration) }
            #expect(error.description.contains("newer version of Boardcast"))
            #expect(error.description.contains("--store"))
        }
    }

    @Test func aDatabaseWithThePoolUnderItsFirstNameKeepsItsSeedsAndWrites() throws {
        try withFreshPostgresDatabase { configuration in
            // A database as migration 1 left it: the pool in `winnable_seed (draw, seed)`, and the
            // write function taking `added_draws`.
            try PostgresAdmin.withSession(configuration) { session in
                try session.query("""
                    CREATE TABLE boardcast_migration (version integer PRIMARY KEY, name text NOT NULL,
                                                      applied timestamptz NOT NULL DEFAULT now())
                    """)
                let first = PostgresSchema.migrations[0]
                for statement in first.statements { try session.query(PostgresQuery(unsafeSQL: statement)) }
                try session.query("INSERT INTO boardcast_migration (version, name) VALUES (\(first.version), \(first.name))")
                try session.query("INSERT INTO winnable_seed (draw, seed) VALUES (1, 7), (3, 9), (3, -1)")
            }
            let store = try PostgresGameStore(configuration: configuration)
            defer { try? store.close() }
            #expect(try store.provenSeeds()
                == [ProvenSeed(pool: 1, seed: 7), ProvenSeed(pool: 3, seed: UInt64.max), ProvenSeed(pool: 3, seed: 9)])
            try store.write(StoreBatch(games: [klondikeGame("g")], provenSeedsAdded: [ProvenSeed(pool: 1, seed: 8)],
                                       provenSeedsTaken: [ProvenSeed(pool: 3, seed: 9)]))
            #expect(try store.provenSeeds()
                == [ProvenSeed(pool: 1, seed: 7), ProvenSeed(pool: 1, seed: 8), ProvenSeed(pool: 3, seed: UInt64.max)])
            #expect(try store.game(id: "g") != nil)
            let versions = try PostgresAdmin.withSession(configuration) { session in
                try session.query("SELECT version FROM boardcast_migration ORDER BY version").map { try $0.decode(Int.self) }
            }
            #expect(versions == PostgresSchema.migrations.map(\.version))
        }
    }

    @Test func aWriteReportedDoneIsCommittedEvenWhenTheCommitItselfFails() throws {
        try withFreshPostgresDatabase { configuration in
            let store = try PostgresGameStore(configuration: configuration)
            defer { try? store.close() }
            // A transaction that fails at its commit, after its statement has answered: what a
            // server shut down between a write's answer and its commit does (the fault campaign's
            // seed 257466397 found seq 1300 acked and never stored). A deferred trigger stands in
            // for the shutdown, deterministically.
            try PostgresAdmin.withSession(configuration) { session in
                try session.query("""
                    CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'refused at commit'; END $$
                    """)
                try session.query("""
                    CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON command
                    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.game = 'doomed')
                    EXECUTE FUNCTION refuse_at_commit()
                    """)
            }
            let batch = StoreBatch(games: [klondikeGame("doomed", seq: 1)], commands: [dragCommand(game: "doomed", seq: 1)])
            #expect(throws: StorageError.self) { try store.write(batch) }
            #expect(try store.game(id: "doomed") == nil, "nothing of a failed write is stored")
            // The connection is fine for the next write.
            try store.write(StoreBatch(games: [klondikeGame("fine", seq: 1)], commands: [dragCommand(game: "fine", seq: 1)]))
            #expect(try store.game(id: "fine")?.seq == 1)
        }
    }

    @Test func aServerThatIsNotThereIsUnreachable() throws {
        let nobody = PostgresStoreConfiguration(host: "127.0.0.1", port: 1, user: "postgres", password: "secret", database: "boardcast")
        do {
            _ = try PostgresGameStore(configuration: nobody)
            Issue.record("a store opened on a closed port")
        } catch let error as StorageError {
            guard case .unreachable(let store, _) = error else { throw error }
            #expect(store == "postgresql://postgres@127.0.0.1:1/boardcast")
            #expect(!error.description.contains("secret"))
        }
    }

    // MARK: Owners

    @Test func createdGamesBelongToTheFencedNodeOrToNobody() throws {
        try withFreshPostgresDatabase { configuration in
            let store = try PostgresGameStore(configuration: configuration)
            defer { try? store.close() }
            try store.write(StoreBatch(games: [klondikeGame("fenced")], newGames: ["fenced"], fence: StoreFence(node: "a")))
            try store.write(StoreBatch(games: [klondikeGame("free")], newGames: ["free"]))
            #expect(try store.ownership(of: "fenced") == GameOwnership(node: "a", epoch: 1))
            #expect(try store.ownership(of: "free") == GameOwnership(node: nil, epoch: 0))
            #expect(try store.ownership(of: "nope") == nil)
            // Moves change neither owner nor epoch.
            try store.write(StoreBatch(
                games: [klondikeGame("fenced", seq: 1)], commands: [dragCommand(game: "fenced", seq: 1)],
                fence: StoreFence(node: "a", epochs: ["fenced": 1])))
            #expect(try store.ownership(of: "fenced") == GameOwnership(node: "a", epoch: 1))
        }
    }

    @Test func aClaimIsACompareAndSetOnTheEpochAndAReleaseNeedsTheOwner() throws {
        try withFreshPostgresDatabase { configuration in
            let store = try PostgresGameStore(configuration: configuration)
            defer { try? store.close() }
            try store.write(StoreBatch(games: [klondikeGame("g")], newGames: ["g"], fence: StoreFence(node: "a")))
            #expect(try store.claim(game: "g", node: "b", expectedEpoch: 0) == .lost(current: GameOwnership(node: "a", epoch: 1)))
            #expect(try store.claim(game: "g", node: "b", expectedEpoch: 1) == .claimed(GameOwnership(node: "b", epoch: 2)))
            #expect(try store.claim(game: "nope", node: "b", expectedEpoch: 0) == .notFound)
            #expect(try store.release(game: "g", node: "a", epoch: 1) == false)  // not a's any more
            #expect(try store.release(game: "g", node: "b", epoch: 1) == false)  // b's, but not at that epoch
            #expect(try store.release(game: "g", node: "b", epoch: 2) == true)
            #expect(try store.ownership(of: "g") == GameOwnership(node: nil, epoch: 3))
            #expect(try store.release(game: "g", node: "b", epoch: 2) == false)
            // Epochs are never reused: the next owner, even a former one, gets a new one.
            #expect(try store.claim(game: "g", node: "a", expectedEpoch: 3) == .claimed(GameOwnership(node: "a", epoch: 4)))
        }
    }

    @Test func ofTwoNodesClaimingAtOnceExactlyOneWins() throws {
        try withFreshPostgresDatabase { configuration in
            let nodes = try ["a", "b"].map { _ in try PostgresGameStore(configuration: configuration) }
            defer { for node in nodes { try? node.close() } }
            let games = (0..<30).map { klondikeGame("g\($0)") }
            try nodes[0].write(StoreBatch(games: games, newGames: Set(games.map(\.id))))
            for game in games {
                let outcomes = Locked<[String: ClaimOutcome]>([:])
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    let node = ["a", "b"][index]
                    let outcome = try? nodes[index].claim(game: game.id, node: node, expectedEpoch: 0)
                    outcomes.withValue { $0[node] = outcome }
                }
                let both = outcomes.withValue { $0 }
                let winners = both.filter { if case .claimed = $0.value { true } else { false } }
                #expect(winners.count == 1, "\(game.id): \(both)")
                let winner = try #require(winners.first?.key)
                let owner = GameOwnership(node: winner, epoch: 1)
                #expect(both[winner] == .claimed(owner))
                #expect(both[winner == "a" ? "b" : "a"] == .lost(current: owner))
                #expect(try nodes[0].ownership(of: game.id) == owner)
            }
        }
    }

    // MARK: Fences

    /// Node a is paused (SIGSTOP) past its lease; node b claims a's game and plays on. When a
    /// wakes, its next write, fenced by the epoch it had, adds nothing to that game; its other
    /// game, which nobody took, is written in the same batch.
    @Test func aNodeThatWakesAfterAnotherClaimedItsGameAddsNothingToIt() throws {
        try withFreshPostgresDatabase { configuration in
            let a = try PostgresGameStore(configuration: configuration)
            let b = try PostgresGameStore(configuration: configuration)
            defer { try? a.close(); try? b.close() }
            try a.write(StoreBatch(
                games: [klondikeGame("g", seq: 1), klondikeGame("mine")], commands: [dragCommand(game: "g", seq: 1)],
                newGames: ["g", "mine"], fence: StoreFence(node: "a")))

            #expect(try b.claim(game: "g", node: "b", expectedEpoch: 1) == .claimed(GameOwnership(node: "b", epoch: 2)))
            let bMove = dragCommand(game: "g", seq: 2, player: "p2")
            #expect(try b.write(StoreBatch(
                games: [klondikeGame("g", seq: 2)], commands: [bMove], fence: StoreFence(node: "b", epochs: ["g": 2]))) == WriteOutcome())

            let outcome = try a.write(StoreBatch(
                games: [klondikeGame("g", seq: 3, status: "won"), klondikeGame("mine", seq: 1)],
                commands: [dragCommand(game: "g", seq: 3), dragCommand(game: "mine", seq: 1)],
                fence: StoreFence(node: "a", epochs: ["g": 1, "mine": 1])))
            #expect(outcome == WriteOutcome(refused: ["g": .notOwner(current: GameOwnership(node: "b", epoch: 2))]))
            #expect(try a.commands(game: "g", after: 0) == [dragCommand(game: "g", seq: 1), bMove])
            #expect(try a.game(id: "g") == klondikeGame("g", seq: 2))
            #expect(try a.commands(game: "mine", after: 0) == [dragCommand(game: "mine", seq: 1)])
        }
    }

    /// The claim arrives while a's write is in flight (its transaction holds the game's row):
    /// the claim waits for that write and happens after it, so the write, made while a still
    /// owned the game, is kept, and a's next write is refused.
    @Test func aClaimDuringTheOwnersWriteWaitsForItAndFencesTheNextOne() throws {
        try withFreshPostgresDatabase { configuration in
            let a = try PostgresGameStore(configuration: configuration)
            let b = try PostgresGameStore(configuration: configuration)
            defer { try? a.close(); try? b.close() }
            try a.write(StoreBatch(games: [klondikeGame("g")], newGames: ["g"], fence: StoreFence(node: "a")))
            let aMove = dragCommand(game: "g", seq: 1)

            let (written, claimed) = try whileCommandInsertsAreHeld(configuration) { waits in
                let written = inBackground {
                    try a.write(StoreBatch(games: [klondikeGame("g", seq: 1)], commands: [aMove], fence: StoreFence(node: "a", epochs: ["g": 1])))
                }
                try waits(1)  // a's write holds g's row and waits to insert its command
                let claimed = inBackground { try b.claim(game: "g", node: "b", expectedEpoch: 1) }
                try waits(2)  // b's claim waits for g's row
                #expect(try b.ownership(of: "g") == GameOwnership(node: "a", epoch: 1))
                return (written, claimed)
            }
            #expect(try written.value() == WriteOutcome())
            #expect(try claimed.value() == .claimed(GameOwnership(node: "b", epoch: 2)))
            #expect(try b.commands(game: "g", after: 0) == [aMove])

            let late = try a.write(StoreBatch(
                games: [klondikeGame("g", seq: 2)], commands: [dragCommand(game: "g", seq: 2)], fence: StoreFence(node: "a", epochs: ["g": 1])))
            #expect(late == WriteOutcome(refused: ["g": .notOwner(current: GameOwnership(node: "b", epoch: 2))]))
            #expect(try b.commands(game: "g", after: 0) == [aMove])
        }
    }

    @Test func aFencedBatchWithAGameWithoutItsEpochIsNotWrittenAtAll() throws {
        try withFreshPostgresDatabase { configuration in
            let store = try PostgresGameStore(configuration: configuration)
            defer { try? store.close() }
            try store.write(StoreBatch(games: [klondikeGame("g"), klondikeGame("h")], newGames: ["g", "h"], fence: StoreFence(node: "a")))
            #expect(throws: StorageError.unfencedGame(game: "h", node: "a")) {
                try store.write(StoreBatch(
                    games: [klondikeGame("g", seq: 1), klondikeGame("h", seq: 1)],
                    commands: [dragCommand(game: "g", seq: 1), dragCommand(game: "h", seq: 1)],
                    fence: StoreFence(node: "a", epochs: ["g": 1])))
            }
            #expect(try store.games() == [klondikeGame("g"), klondikeGame("h")])
            #expect(try store.commands(game: "g", after: 0).isEmpty)
        }
    }

    @Test func aFencedGameDeletedMeanwhileIsRefusedAsMissing() throws {
        try withFreshPostgresDatabase { configuration in
            let store = try PostgresGameStore(configuration: configuration)
            defer { try? store.close() }
            try store.write(StoreBatch(games: [klondikeGame("g")], newGames: ["g"], fence: StoreFence(node: "a")))
            #expect(try store.deleteUntouched(before: 1_800_000_000, limit: 10) == ["g"])
            let outcome = try store.write(StoreBatch(
                games: [klondikeGame("g", seq: 1)], commands: [dragCommand(game: "g", seq: 1)], fence: StoreFence(node: "a", epochs: ["g": 1])))
            #expect(outcome == WriteOutcome(refused: ["g": .noSuchGame]))
            #expect(try store.games().isEmpty)
        }
    }

    /// Two nodes creating the same id at once: one create is written, the other refused.
    @Test func ofTwoNodesCreatingOneIdAtOnceOneIsRefused() throws {
        try withFreshPostgresDatabase { configuration in
            let nodes = try (0..<2).map { _ in try PostgresGameStore(configuration: configuration) }
            defer { for node in nodes { try? node.close() } }
            for round in 0..<20 {
                let id = "g\(round)"
                let outcomes = Locked<[WriteOutcome]>([])
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    let node = "node-\(index)"
                    let outcome = try? nodes[index].write(StoreBatch(
                        games: [klondikeGame(id, seq: 1)], commands: [dragCommand(game: id, seq: 1, player: node)],
                        newGames: [id], fence: StoreFence(node: node)))
                    if let outcome { outcomes.withValue { $0.append(outcome) } }
                }
                #expect(outcomes.withValue { $0 }.sorted { $0.refused.count < $1.refused.count }
                    == [WriteOutcome(), WriteOutcome(refused: [id: .idTaken])])
                let owner = try #require(try nodes[0].ownership(of: id)?.node)
                #expect(try nodes[0].commands(game: id, after: 0).map(\.player) == [owner])
            }
        }
    }

    // MARK: Outages

    /// PostgreSQL stops while a write is in flight and while none is: each write throws and
    /// leaves nothing half-written; once it is back, the same store instance writes again.
    /// The stop is immediate (every session ends where it is, as in a crash): a fast stop ends
    /// the session holding the table first, and the write it held might then commit before
    /// its own session ends.
    @Test func aStoppedServerFailsWritesAndTheStoreReconnectsWhenItIsBack() throws {
        let server = try PostgresTestServer.launch()
        defer { server.discard() }
        try PostgresAdmin.run(on: server.configuration(database: "postgres"), "CREATE DATABASE boardcast")
        let configuration = server.configuration(database: "boardcast")
        let store = try PostgresGameStore(configuration: configuration)
        defer { try? store.close() }
        try store.write(StoreBatch(games: [klondikeGame("g", seq: 1)], commands: [dragCommand(game: "g", seq: 1)], newGames: ["g"]))

        // In flight: the write has updated g's row and waits to insert its command when the server stops.
        let inFlight = try whileCommandInsertsAreHeld(configuration) { waits in
            let write = inBackground {
                try store.write(StoreBatch(games: [klondikeGame("g", seq: 2)], commands: [dragCommand(game: "g", seq: 2)]))
            }
            try waits(1)
            try server.stop(immediately: true)
            return write
        }
        expectUnreachable(try inFlight.value())

        // Idle: the server is down when the write begins.
        expectUnreachable(try store.write(StoreBatch(games: [klondikeGame("h")], newGames: ["h"])))
        expectUnreachable(try store.game(id: "g"))

        try server.start()
        #expect(try store.games() == [klondikeGame("g", seq: 1)])
        #expect(try store.commands(game: "g", after: 0).map(\.seq) == [1])
        #expect(try store.write(StoreBatch(games: [klondikeGame("g", seq: 2)], commands: [dragCommand(game: "g", seq: 2)])) == WriteOutcome())
        #expect(try store.commands(game: "g", after: 0).map(\.seq) == [1, 2])
        #expect(store.writerConnectionsOpened >= 2)
    }
}

@Suite struct StoreLocationTests {
    @Test func postgresURLsAreParsed() throws {
        #expect(try StoreLocation.parse("postgresql://game:s%40cr%3At@db.example:6543/boardcast") == .postgres(
            PostgresStoreConfiguration(host: "db.example", port: 6543, user: "game", password: "s@cr:t", database: "boardcast")))
        #expect(try StoreLocation.parse("postgres://game@127.0.0.1:5432/games") == .postgres(
            PostgresStoreConfiguration(host: "127.0.0.1", port: 5432, user: "game", database: "games")))
        #expect(try StoreLocation.parse("POSTGRESQL://game@localhost/games") == .postgres(
            PostgresStoreConfiguration(host: "localhost", port: 5432, user: "game", database: "games")))
        #expect(try StoreLocation.parse("./data") == .sqlite(directory: "./data"))
        #expect(try StoreLocation.parse(":memory:") == .sqliteInMemory)
        let configuration = PostgresStoreConfiguration(host: "db", port: 5432, user: "game", password: "hunter2", database: "b")
        #expect(configuration.redactedURL == "postgresql://game@db:5432/b")
    }

    @Test(arguments: [
        ("mysql://game@db:3306/b", "mysql:// is not a store"),
        ("postgresql://db:5432/b", "names no user"),
        ("postgresql://game@:5432/b", "names no host"),
        ("postgresql://game@db:5432", "names no database"),
        ("postgresql://game@db:5432/", "names no database"),
        ("postgresql://game@db:5432/a/b", "is not one name"),
        ("postgresql://game@db:99999/b", "out of range"),
        ("postgresql://game:pw@db:5432/b?sslmode=require", "options after ? or # are not supported"),
        ("postgresql://game:pw@db:port/b", "not a URL"),
        ("", "it is empty"),
    ])
    func badLocationsAreRefusedClearly(text: String, reason: String) {
        do {
            _ = try StoreLocation.parse(text)
            Issue.record("\(text) was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains(reason), "\(message)")
            #expect(message.contains("postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE"))
            #expect(!message.contains(":pw@"), "the password is shown: \(message)")
        }
    }
}

// MARK: Helpers

private func expectUnreachable<T>(_ call: @autoclosure () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try call()
        Issue.record("the call succeeded with the server down", sourceLocation: sourceLocation)
    } catch let error as StorageError {
        guard case .unreachable = error else {
            Issue.record("not unreachable: \(error)", sourceLocation: sourceLocation)
            return
        }
    } catch {
        Issue.record("not a StorageError: \(error)", sourceLocation: sourceLocation)
    }
}

/// A call running on another thread, whose result a test takes when it is done.
final class BackgroundCall<T: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<Result<T, any Error>?>(nil)

    fileprivate init(_ body: @escaping @Sendable () throws -> T) {
        DispatchQueue.global().async { [done, result] in
            let outcome = Result { try body() }
            result.withValue { $0 = outcome }
            done.signal()
        }
    }

    /// Waits for the call to end and returns or rethrows what it did.
    func value() throws -> T {
        done.wait()
        done.signal()  // the next caller does not wait
        return try result.withValue { $0! }.get()
    }
}

private func inBackground<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> BackgroundCall<T> {
    BackgroundCall(body)
}

/// Runs `body` while a session of the test's holds the command table against inserts (a SHARE
/// lock, in a transaction ended after `body`): a store's write then locks its games' rows and
/// waits there, in flight. `body` gets `waits(n)`, which returns once n sessions of stores on
/// this database wait for a lock. The server has no event for that, so it is polled.
private func whileCommandInsertsAreHeld<T>(
    _ configuration: PostgresStoreConfiguration, _ body: (_ waits: (Int) throws -> Void) throws -> T
) throws -> T {
    try PostgresAdmin.withSession(configuration) { holder in
        try holder.query("BEGIN")
        try holder.query("LOCK TABLE command IN SHARE MODE")
        let result = try PostgresAdmin.withSession(configuration) { observer in
            try body { count in
                let deadline = Date().addingTimeInterval(30)  // a wait: returns as soon as they wait
                while true {
                    let waiting = try observer.query("""
                        SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND application_name <> 'boardcast-test' AND wait_event_type = 'Lock'
                        """).first!.decode(Int.self)
                    if waiting >= count { return }
                    guard Date() < deadline else { throw TestServerError("\(count) sessions never waited for a lock (\(waiting) did)") }
                    usleep(2_000)
                }
            }
        }
        _ = try? holder.query("COMMIT")  // the server may have been stopped meanwhile
        return result
    }
}
