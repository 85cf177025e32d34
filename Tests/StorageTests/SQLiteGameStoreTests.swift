import Core
import Foundation
@testable import Realtime
import Testing

@Suite struct SQLiteGameStoreTests {
    @Test func gamesAndCommandsRoundTrip() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory + "/nested/data")
            let plane = StoredGame(
                id: "p1a2n3", kind: "plane", options: .object(["width": 1024, "height": 768.5, "seed": 7]),
                tokenHash: "00ff", created: 1_700_000_100.5, updated: 1_700_000_101, status: "playing", seq: 1)
            let add = StoredCommand(
                game: "p1a2n3", seq: 1,
                command: .object(["type": "add", "x": 10.5, "y": 20, "r": 255, "label": "é😀\"\n"]),
                player: "p2", clientID: #""r4nd""#, time: 1_700_000_101)
            let batch = StoreBatch(
                games: [klondikeGame("k7f3q9", seq: 2), plane],
                commands: [dragCommand(game: "k7f3q9", seq: 1), dragCommand(game: "k7f3q9", seq: 2), add])
            try store.write(batch)

            #expect(try store.games() == [klondikeGame("k7f3q9", seq: 2), plane])
            #expect(try store.commands(game: "k7f3q9", after: 0) == [
                dragCommand(game: "k7f3q9", seq: 1), dragCommand(game: "k7f3q9", seq: 2),
            ])
            let stored = try #require(try store.commands(game: "p1a2n3", after: 0).first)
            #expect(stored == add)
            // JSON equality ignores key order and 20 vs 20.0; the stored text must not.
            #expect(stored.command.encoded == add.command.encoded)
            #expect(try store.game(id: "p1a2n3")?.options.encoded == plane.options.encoded)
            #expect(try store.game(id: "nope") == nil)
            #expect(try store.commands(game: "nope", after: 0).isEmpty)
        }
    }

    @Test func upsertReplacesTheSummaryRow() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(games: [klondikeGame("g1")]))
            try store.write(StoreBatch(
                games: [klondikeGame("g1", seq: 1, updated: 1_700_000_005), klondikeGame("g1", seq: 2, status: "won", updated: 1_700_000_009)],
                commands: [dragCommand(game: "g1", seq: 1), dragCommand(game: "g1", seq: 2)]))
            let games = try store.games()
            #expect(games.count == 1)
            #expect(games.first == klondikeGame("g1", seq: 2, status: "won", updated: 1_700_000_009))
        }
    }

    @Test func commandsAfterASeqComeInSeqOrderForThatGameOnly() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(games: [klondikeGame("a"), klondikeGame("b")]))
            for seqs in [[3, 1], [2, 9, 5], [4, 8, 6, 7, 10]] {
                try store.write(StoreBatch(commands: seqs.map { dragCommand(game: "a", seq: $0) }))
            }
            try store.write(StoreBatch(commands: [dragCommand(game: "b", seq: 5)]))
            #expect(try store.commands(game: "a", after: 4).map(\.seq) == [5, 6, 7, 8, 9, 10])
            #expect(try store.commands(game: "a", after: 0).map(\.seq) == Array(1...10))
            #expect(try store.commands(game: "a", after: 10).isEmpty)
            #expect(try store.commands(game: "b", after: 0).map(\.seq) == [5])
        }
    }

    @Test func clientIDsArePreservedAndFindable() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(
                games: [klondikeGame("g"), klondikeGame("h")],
                commands: [
                    dragCommand(game: "g", seq: 1, clientID: #""abc""#),
                    dragCommand(game: "g", seq: 2, clientID: "17"),
                    dragCommand(game: "g", seq: 3, clientID: nil),
                    dragCommand(game: "h", seq: 1, clientID: "17"),
                ]))
            #expect(try store.commands(game: "g", after: 0).map(\.clientID) == [#""abc""#, "17", nil])
            #expect(try store.command(game: "g", clientID: "17")?.seq == 2)
            #expect(try store.command(game: "h", clientID: "17")?.seq == 1)
            #expect(try store.command(game: "g", clientID: #""abc""#)?.seq == 1)
            #expect(try store.command(game: "g", clientID: "abc") == nil)  // the id 17 is not the id "17"
            #expect(try store.command(game: "h", clientID: #""abc""#) == nil)
        }
    }

    @Test func aFailedBatchStoresNothingOfIt() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(games: [klondikeGame("g")], commands: [dragCommand(game: "g", seq: 1)]))
            // A command for a game with no row, and one reusing a stored seq: each fails its whole batch.
            #expect(throws: (any Error).self) {
                try store.write(StoreBatch(games: [klondikeGame("new")], commands: [dragCommand(game: "ghost", seq: 1)]))
            }
            #expect(throws: (any Error).self) {
                try store.write(StoreBatch(
                    games: [klondikeGame("g", seq: 2)],
                    commands: [dragCommand(game: "g", seq: 2), dragCommand(game: "g", seq: 1)]))
            }
            #expect(try store.games() == [klondikeGame("g")])
            #expect(try store.commands(game: "g", after: 0).map(\.seq) == [1])
        }
    }

    @Test func reopeningAfterCloseKeepsEverything() throws {
        try withTemporaryDirectory { directory in
            let commands = (1...300).map { dragCommand(game: "g", seq: $0, clientID: "\($0)") }
            do {
                let store = try SQLiteGameStore(directory: directory)
                try store.write(StoreBatch(games: [klondikeGame("g", seq: 300)], commands: commands))
                try store.close()
            }
            let reopened = try SQLiteGameStore(directory: directory)
            #expect(try reopened.games() == [klondikeGame("g", seq: 300)])
            #expect(try reopened.commands(game: "g", after: 0) == commands)
            try reopened.write(StoreBatch(games: [klondikeGame("g", seq: 301)], commands: [dragCommand(game: "g", seq: 301)]))
            #expect(try reopened.commands(game: "g", after: 299).map(\.seq) == [300, 301])
        }
    }

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

    @Test func anEmptyFileIsANewDatabase() throws {
        try withTemporaryDirectory { directory in
            // SQLite creates the file at open and writes nothing until the first commit.
            #expect(FileManager.default.createFile(atPath: databasePath(in: directory), contents: Data()))
            let store = try SQLiteGameStore(directory: directory)
            try store.write(StoreBatch(games: [klondikeGame("g")]))
            #expect(try store.games().count == 1)
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
