import Core
import Foundation
import GRDB
@testable import Realtime
import Testing

/// What only SQLite has: a file, its WAL, a directory lock, migrations of files written by
/// earlier versions. What both back-ends share is in GameStoreContractTests.
@Suite struct SQLiteGameStoreTests {
    /// `kill -9` leaves the database file and its WAL as they are: copying both while the
    /// store is open gives exactly that state, and it must open with every committed write.
    @Test func filesLeftByAKilledProcessOpenWithEveryCommit() throws {
        try withTemporaryDirectory { directory in
            let live = directory + "/live"
            let crashed = directory + "/crashed"
            let store = try SQLiteGameStore(directory: live)
            let commands = (1...50).map { dragCommand(game: "g", seq: $0) }
            for command in commands {
                try store.write(StoreBatch(games: [klondikeGame("g", seq: command.seq)], commands: [command]))
            }
            try FileManager.default.createDirectory(atPath: crashed, withIntermediateDirectories: true)
            let wal = databasePath(in: live) + "-wal"
            try FileManager.default.copyItem(atPath: databasePath(in: live), toPath: databasePath(in: crashed))
            try FileManager.default.copyItem(atPath: wal, toPath: databasePath(in: crashed) + "-wal")

            let recovered = try SQLiteGameStore(directory: crashed)
            #expect(try recovered.games() == [klondikeGame("g", seq: 50)])
            #expect(try recovered.commands(game: "g", after: 0) == commands)

            // The commits were in the WAL only: the main file alone has none of them.
            let mainFileOnly = directory + "/main-only"
            try FileManager.default.createDirectory(atPath: mainFileOnly, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: databasePath(in: live), toPath: databasePath(in: mainFileOnly))
            #expect(try SQLiteGameStore(directory: mainFileOnly).games().isEmpty)
        }
    }

    @Test func theDatabaseIsInWALModeWithTheChosenSync() throws {
        try withTemporaryDirectory { directory in
            let full = try SQLiteGameStore(directory: directory + "/full")
            #expect(try full.writerPragma("journal_mode") == "wal")
            #expect(try full.writerPragma("synchronous") == "2")  // FULL
            #expect(try full.writerPragma("foreign_keys") == "1")
            let normal = try SQLiteGameStore(directory: directory + "/normal", durability: .normal)
            #expect(try normal.writerPragma("synchronous") == "1")  // NORMAL
        }
    }

    @Test func aSecondStoreOnTheSameDirectoryIsRefusedUntilTheFirstCloses() throws {
        try withTemporaryDirectory { directory in
            let first = try SQLiteGameStore(directory: directory)
            #expect(throws: StorageError.inUse(path: directory)) { try SQLiteGameStore(directory: directory) }
            try first.close()
            let second = try SQLiteGameStore(directory: directory)
            try second.write(StoreBatch(games: [klondikeGame("g")]))
            #expect(try second.games().count == 1)
        }
    }

    /// A store that failed to open, or was dropped without `close()`, leaves the directory free
    /// even while another copy of its lock's descriptor lives: the copy a process spawned by another
    /// thread holds until its `exec` (CI once saw `inUse` here while PostgreSQL tests spawned programs).
    @Test func aDroppedLockFreesTheDirectoryWhileACopyOfItsDescriptorLives() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/" + SQLiteGameStore.lockFileName
            var lock: DataDirectoryLock? = try DataDirectoryLock(path: path, directory: directory)
            let copy = dup(try #require(lock).descriptor)  // what a spawned child holds until exec
            #expect(copy >= 0)
            defer { close(copy) }
            lock = nil
            let again = try DataDirectoryLock(path: path, directory: directory)
            #expect(throws: StorageError.inUse(path: directory)) {
                try DataDirectoryLock(path: path, directory: directory)
            }
            again.release()
        }
    }

    @Test func anEmptyFileIsANewDatabase() throws {
        try withTemporaryDirectory { directory in
            // SQLite creates the file at open and writes nothing until the first commit.
            #expect(FileManager.default.createFile(atPath: databasePath(in: directory), contents: Data()))
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(games: [klondikeGame("g")]))
            #expect(try store.games().count == 1)
        }
    }

    /// One writer per file: SQLite has no owners, so a fence changes nothing.
    @Test func aFenceIsIgnored() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(games: [klondikeGame("g")]))
            let outcome = try store.write(StoreBatch(
                games: [klondikeGame("g", seq: 1), klondikeGame("new")], commands: [dragCommand(game: "g", seq: 1)],
                newGames: ["new"], fence: StoreFence(node: "node-a", epochs: ["g": 41])))
            #expect(outcome == WriteOutcome())
            #expect(try store.games() == [klondikeGame("g", seq: 1), klondikeGame("new")])
        }
    }

    /// A file written before retention gets `touched` from each game's last activity.
    @Test func aFileFromBeforeRetentionIsMigrated() throws {
        try withTemporaryDirectory { directory in
            do {
                let queue = try GRDB.DatabaseQueue(path: databasePath(in: directory))
                try SQLiteSchema.migrator.migrate(queue, upTo: "v4-meta")
                try queue.write { db in
                    for (id, updated) in [("recent", 1_700_000_900.0), ("stale", 1_700_000_100.0)] {
                        try db.execute(
                            sql: """
                                INSERT INTO game (id, kind, options, token_hash, created, updated, status, seq)
                                VALUES (?, 'klondike', '{}', 'ab', 1700000000, ?, 'playing', 1)
                                """,
                            arguments: [id, updated])
                        try db.execute(
                            sql: "INSERT INTO command (game, seq, command, player, time) VALUES (?, 1, '{}', 'p1', 1700000000)",
                            arguments: [id])
                    }
                }
                try queue.close()
            }
            let store = try SQLiteGameStore(directory: directory)
            #expect(try store.deleteUntouched(before: 1_700_000_500, limit: 10) == ["stale"])
            #expect(try store.games().map(\.id) == ["recent"])
            #expect(try store.commands(game: "recent", after: 0).count == 1)
            #expect(try store.usage().games == 1)
        }
    }

    @Test func aFileWithThePoolUnderItsFirstNameKeepsItsSeeds() throws {
        try withTemporaryDirectory { directory in
            do {
                // A file as v6 left it: the pool of proven seeds in `winnable_seed (draw, seed)`.
                let queue = try GRDB.DatabaseQueue(path: databasePath(in: directory))
                try SQLiteSchema.migrator.migrate(queue, upTo: "v6-chat")
                try queue.write { db in
                    try db.execute(sql: "INSERT INTO winnable_seed (draw, seed) VALUES (1, 7), (3, 9), (3, -1)")
                }
                try queue.close()
            }
            let store = try SQLiteGameStore(directory: directory)
            #expect(try store.provenSeeds()
                == [ProvenSeed(pool: 1, seed: 7), ProvenSeed(pool: 3, seed: UInt64.max), ProvenSeed(pool: 3, seed: 9)])
            try store.write(StoreBatch(provenSeedsAdded: [ProvenSeed(pool: 1, seed: 8)], provenSeedsTaken: [ProvenSeed(pool: 3, seed: 9)]))
            #expect(try store.provenSeeds()
                == [ProvenSeed(pool: 1, seed: 7), ProvenSeed(pool: 1, seed: 8), ProvenSeed(pool: 3, seed: UInt64.max)])
        }
    }

    @Test func usageIsTheFileAndItsWAL() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(games: [klondikeGame("g")], commands: (1...200).map { dragCommand(game: "g", seq: $0) }))
            let onDisk = try [databasePath(in: directory), databasePath(in: directory) + "-wal"].reduce(Int64(0)) {
                $0 + (try FileManager.default.attributesOfItem(atPath: $1)[.size] as! NSNumber).int64Value
            }
            #expect(try store.usage() == StorageUsage(games: 1, bytes: onDisk))
            #expect(onDisk > 200 * 60)
            #expect(try SQLiteGameStore.inMemory().usage().bytes > 0)
        }
    }

    @Test func theInMemoryStoreBehavesTheSameAndKeepsNothing() throws {
        let store = try SQLiteGameStore.inMemory()
        #expect(store.path == ":memory:")
        try store.write(StoreBatch(games: [klondikeGame("g")], commands: [dragCommand(game: "g", seq: 1, clientID: "1")]))
        #expect(try store.commands(game: "g", after: 0) == [dragCommand(game: "g", seq: 1, clientID: "1")])
        #expect(try store.command(game: "g", clientID: "1")?.seq == 1)
        #expect(try SQLiteGameStore.inMemory().games().isEmpty)
    }
}

/// A damaged file must stop the server with a clear message, and be left exactly as it was.
@Suite struct DamagedDatabaseTests {
    /// A real database with enough commands to span many pages, closed cleanly.
    private func makeDatabase(in directory: String) throws -> String {
        let store = try SQLiteGameStore(directory: directory)
        let games = (0..<20).map { klondikeGame("game\($0)") }
        let commands = games.flatMap { game in (1...100).map { dragCommand(game: game.id, seq: $0, clientID: "\"\(game.id)-\($0)\"") } }
        try store.write(StoreBatch(games: games, commands: commands))
        try store.close()
        let path = databasePath(in: directory)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))  // checkpointed into the file at close
        #expect(try fileBytes(path).count > 40 * 4096)
        return path
    }

    private func expectRefusal(
        in directory: String, detail expectedDetail: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let path = databasePath(in: directory)
        let before = try fileBytes(path)
        for _ in 0..<2 {  // and again: nothing was recreated over it
            do {
                _ = try SQLiteGameStore(directory: directory)
                Issue.record("a damaged database was opened", sourceLocation: sourceLocation)
            } catch let error as StorageError {
                guard case .damaged(let errorPath, let detail) = error else {
                    Issue.record("wrong error: \(error)", sourceLocation: sourceLocation)
                    return
                }
                #expect(errorPath == path, sourceLocation: sourceLocation)
                #expect(detail.contains(expectedDetail), "detail: \(detail)", sourceLocation: sourceLocation)
                #expect(error.description.contains(path), sourceLocation: sourceLocation)
                #expect(error.description.contains("has not been changed"), sourceLocation: sourceLocation)
                #expect(error.description.contains("backup"), sourceLocation: sourceLocation)
            }
        }
        #expect(try fileBytes(path) == before, "the damaged file was changed", sourceLocation: sourceLocation)
    }

    @Test func garbageOverTheHeaderIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = try makeDatabase(in: directory)
            var bytes = try fileBytes(path)
            bytes.replaceSubrange(0..<100, with: (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
            try bytes.write(to: URL(fileURLWithPath: path))
            try expectRefusal(in: directory, detail: "does not start with the SQLite header")
        }
    }

    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        try withTemporaryDirectory { directory in
            try Data("games.json: {\"k7f3q9\": ...}\n".utf8).write(to: URL(fileURLWithPath: databasePath(in: directory)))
            try expectRefusal(in: directory, detail: "only 28 bytes")
        }
    }

    @Test func aTruncatedFileIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = try makeDatabase(in: directory)
            let bytes = try fileBytes(path)
            try bytes.prefix(bytes.count / 2 + 123).write(to: URL(fileURLWithPath: path))
            try expectRefusal(in: directory, detail: "malformed")
        }
    }

    @Test func aDamagedPageInsideTheFileIsFoundByQuickCheck() throws {
        try withTemporaryDirectory { directory in
            let path = try makeDatabase(in: directory)
            var bytes = try fileBytes(path)
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            let page = 20
            bytes.replaceSubrange(page * pageSize..<(page + 1) * pageSize, with: [UInt8](repeating: 0x5A, count: pageSize))
            try bytes.write(to: URL(fileURLWithPath: path))
            try expectRefusal(in: directory, detail: "quick_check: Page \(page + 1): btreeInitPage() returns error code 11")
        }
    }

    @Test func aDatabaseFromANewerVersionIsRefused() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(games: [klondikeGame("g")]))
            try store.executeRawSQL("INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
            try store.close()
            let path = databasePath(in: directory)
            let error = StorageError.newerSchema(path: path, unknownMigrations: ["v9-from-the-future"])
            #expect(throws: error) { try SQLiteGameStore(directory: directory) }
            #expect(error.description.contains("newer version of Boardcast"))
        }
    }
}
