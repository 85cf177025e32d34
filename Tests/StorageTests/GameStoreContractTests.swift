import Core
import Foundation
@testable import Realtime
import Testing

/// What every back-end must keep: the same test bodies against SQLite and PostgreSQL.
@Suite struct GameStoreContractTests {
    @Test(arguments: Backend.allCases) func gamesAndCommandsRoundTrip(backend: Backend) throws {
        try withFreshStore(backend) { store in
            let plane = StoredGame(
                id: "p1a2n3", kind: "plane", options: .object(["width": 1024, "height": 768.5, "seed": 7]),
                tokenHash: "00ff", created: 1_700_000_100.5, updated: 1_700_000_101, status: "playing", seq: 1)
            let add = StoredCommand(
                game: "p1a2n3", seq: 1,
                command: .object(["type": "add", "x": 10.5, "y": 20, "r": 255, "label": "é😀\"\n"]),
                player: "p2", clientID: #""r4nd""#, time: 1_700_000_101, diff: #"{"type":"diff","seq":1}"#)
            let batch = StoreBatch(
                games: [klondikeGame("k7f3q9", seq: 2), plane],
                commands: [dragCommand(game: "k7f3q9", seq: 1), dragCommand(game: "k7f3q9", seq: 2), add])
            #expect(try store.write(batch) == WriteOutcome())

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

    @Test(arguments: Backend.allCases) func upsertReplacesTheSummaryRow(backend: Backend) throws {
        try withFreshStore(backend) { store in
            try store.write(StoreBatch(games: [klondikeGame("g1")]))
            try store.write(StoreBatch(
                games: [klondikeGame("g1", seq: 1, updated: 1_700_000_005), klondikeGame("g1", seq: 2, status: "won", updated: 1_700_000_009)],
                commands: [dragCommand(game: "g1", seq: 1), dragCommand(game: "g1", seq: 2)]))
            #expect(try store.games() == [klondikeGame("g1", seq: 2, status: "won", updated: 1_700_000_009)])
        }
    }

    @Test(arguments: Backend.allCases) func commandsAfterASeqComeInSeqOrderForThatGameOnly(backend: Backend) throws {
        try withFreshStore(backend) { store in
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

    /// Longer than one page of a back-end that reads commands a page at a time.
    @Test(arguments: Backend.allCases) func aLongGameIsStreamedWhole(backend: Backend) throws {
        try withFreshStore(backend) { store in
            let count = PostgresGameStore.commandPage * 2 + 17
            try store.write(StoreBatch(
                games: [klondikeGame("long", seq: count)], commands: (1...count).map { dragCommand(game: "long", seq: $0) }))
            var seqs: [Int] = []
            try store.forEachCommand(game: "long", after: 3) { seqs.append($0.seq) }
            #expect(seqs == Array(4...count))
        }
    }

    @Test(arguments: Backend.allCases) func clientIDsArePreservedAndFindable(backend: Backend) throws {
        try withFreshStore(backend) { store in
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

    @Test(arguments: Backend.allCases) func aFailedBatchStoresNothingOfIt(backend: Backend) throws {
        try withFreshStore(backend) { store in
            try store.write(StoreBatch(games: [klondikeGame("g")], commands: [dragCommand(game: "g", seq: 1)]))
            // A command for a game with no row, and one reusing a stored seq: each fails its whole batch.
            #expect(throws: (any Error).self) {
                try store.write(StoreBatch(games: [klondikeGame("new")], commands: [dragCommand(game: "ghost", seq: 1)]))
            }
            #expect(throws: (any Error).self) {
                try store.write(StoreBatch(
                    games: [klondikeGame("g", seq: 2)],
                    commands: [dragCommand(game: "g", seq: 2), dragCommand(game: "g", seq: 1)],
                    touches: [GameTouch(game: "g", time: 1_800_000_000)]))
            }
            #expect(try store.games() == [klondikeGame("g")])
            #expect(try store.commands(game: "g", after: 0).map(\.seq) == [1])
            // The store is usable after a failed batch. (This write also makes sure the failed one
            // has ended: PostgreSQL reports an error before it releases the failed transaction's locks.)
            try store.write(StoreBatch(games: [klondikeGame("after")]))
            // Nor was the touch applied: the game is still as old as its row says.
            #expect(try store.deleteUntouched(before: 1_700_000_001, limit: 10) == ["after", "g"])
        }
    }

    @Test(arguments: Backend.allCases) func reopeningAfterCloseKeepsEverything(backend: Backend) throws {
        try withStoreHome(backend) { home in
            let commands = (1...300).map { dragCommand(game: "g", seq: $0, clientID: "\($0)") }
            try home.withStore { store in
                try store.write(StoreBatch(
                    games: [klondikeGame("g", seq: 300)], commands: commands, provenSeedsAdded: [ProvenSeed(pool: 3, seed: 99)]))
                try store.setMeta("node_code", "n7")
            }
            try home.withStore { reopened in
                #expect(try reopened.games() == [klondikeGame("g", seq: 300)])
                #expect(try reopened.commands(game: "g", after: 0) == commands)
                #expect(try reopened.provenSeeds() == [ProvenSeed(pool: 3, seed: 99)])
                #expect(try reopened.meta("node_code") == "n7")
                try reopened.write(StoreBatch(games: [klondikeGame("g", seq: 301)], commands: [dragCommand(game: "g", seq: 301)]))
                #expect(try reopened.commands(game: "g", after: 299).map(\.seq) == [300, 301])
            }
        }
    }

    @Test(arguments: Backend.allCases) func diffsAreReadInOrderUntilARowWithoutOne(backend: Backend) throws {
        try withFreshStore(backend) { store in
            let commands = (1...6).map { seq in
                var command = dragCommand(game: "g", seq: seq)
                command.diff = seq == 4 ? nil : "{\"seq\":\(seq)}"
                return command
            }
            try store.write(StoreBatch(games: [klondikeGame("g", seq: 6)], commands: commands))
            #expect(try store.diffs(game: "g", after: 0, limit: 10) == ["{\"seq\":1}", "{\"seq\":2}", "{\"seq\":3}"])
            #expect(try store.diffs(game: "g", after: 1, limit: 1) == ["{\"seq\":2}"])
            #expect(try store.diffs(game: "g", after: 3, limit: 10) == [])
            // Filling fills the gap only: a stored diff is never replaced.
            try store.fillDiffs(game: "g", [(seq: 4, diff: "{\"seq\":4}"), (seq: 5, diff: "replaced?")])
            #expect(try store.diffs(game: "g", after: 0, limit: 10) == (1...6).map { "{\"seq\":\($0)}" })
        }
    }

    @Test(arguments: Backend.allCases) func gamesAreFoundByActivityKindAndStatus(backend: Backend) throws {
        try withFreshStore(backend) { store in
            var plane = klondikeGame("p", updated: 1_700_000_030)
            plane.kind = "plane"
            try store.write(StoreBatch(games: [
                klondikeGame("old", updated: 1_700_000_010), klondikeGame("won", status: "won", updated: 1_700_000_020), plane,
            ]))
            #expect(try store.games(updatedSince: 1_700_000_020).map(\.id) == ["won", "p"])
            #expect(try store.recentGames(kind: nil, statuses: nil, limit: 10).map(\.id) == ["p", "won", "old"])
            #expect(try store.recentGames(kind: nil, statuses: nil, limit: 2).map(\.id) == ["p", "won"])
            #expect(try store.recentGames(kind: "klondike", statuses: nil, limit: 10).map(\.id) == ["won", "old"])
            #expect(try store.recentGames(kind: "klondike", statuses: ["playing"], limit: 10).map(\.id) == ["old"])
            #expect(try store.recentGames(kind: nil, statuses: ["won"], limit: 10).map(\.id) == ["won"])
            // A phase's words (the lobby's `status=over`): any of them; none matches nothing.
            #expect(try store.recentGames(kind: "klondike", statuses: ["won", "drawn"], limit: 10).map(\.id) == ["won"])
            #expect(try store.recentGames(kind: nil, statuses: ["playing", "won"], limit: 2).map(\.id) == ["p", "won"])
            #expect(try store.recentGames(kind: nil, statuses: [], limit: 10).isEmpty)
        }
    }

    @Test(arguments: Backend.allCases) func provenSeedsAreAddedOnceAndTakenForGood(backend: Backend) throws {
        try withFreshStore(backend) { store in
            let seeds = [ProvenSeed(pool: 1, seed: 5), ProvenSeed(pool: 3, seed: UInt64.max), ProvenSeed(pool: 1, seed: 2)]
            try store.write(StoreBatch(provenSeedsAdded: seeds))
            try store.write(StoreBatch(provenSeedsAdded: [seeds[0]]))
            #expect(try store.provenSeeds() == [ProvenSeed(pool: 1, seed: 2), ProvenSeed(pool: 1, seed: 5), ProvenSeed(pool: 3, seed: UInt64.max)])
            try store.write(StoreBatch(provenSeedsTaken: [seeds[1], seeds[2]]))
            #expect(try store.provenSeeds() == [seeds[0]])
        }
    }

    @Test(arguments: Backend.allCases) func metaValuesAreKeptAndReplaced(backend: Backend) throws {
        try withFreshStore(backend) { store in
            #expect(try store.meta("node_code") == nil)
            try store.setMeta("node_code", "a1")
            try store.setMeta("node_code", "b2")
            try store.setMeta("other", "x")
            #expect(try store.meta("node_code") == "b2")
            #expect(try store.meta("other") == "x")
        }
    }

    // MARK: New games

    /// The store, not a read before each create, keeps ids unique: the taken game's rows are
    /// not written (its seqs would collide and fail the batch), everything else is.
    @Test(arguments: Backend.allCases) func aCreatedGameWhoseIdIsTakenIsRefusedAlone(backend: Backend) throws {
        try withFreshStore(backend) { store in
            try store.write(StoreBatch(games: [klondikeGame("g", seq: 1)], commands: [dragCommand(game: "g", seq: 1)], newGames: ["g"]))
            var impostor = klondikeGame("g", seq: 2)
            impostor.tokenHash = "impostor"
            let outcome = try store.write(StoreBatch(
                games: [impostor, klondikeGame("h", seq: 1), klondikeGame("old", seq: 0)],
                commands: [dragCommand(game: "g", seq: 1, player: "p9"), dragCommand(game: "g", seq: 2), dragCommand(game: "h", seq: 1)],
                newGames: ["g", "h", "old"],
                touches: [GameTouch(game: "g", time: 1_800_000_000)]))
            #expect(outcome == WriteOutcome(refused: ["g": .idTaken]))
            #expect(try store.game(id: "g") == klondikeGame("g", seq: 1))
            #expect(try store.commands(game: "g", after: 0) == [dragCommand(game: "g", seq: 1)])
            #expect(try store.game(id: "h") == klondikeGame("h", seq: 1))
            #expect(try store.commands(game: "h", after: 0) == [dragCommand(game: "h", seq: 1)])
            // The refused create's touch did not reach the other game of that id.
            #expect(try store.deleteUntouched(before: 1_700_000_001, limit: 10).sorted() == ["g", "h", "old"])
        }
    }

    /// Group commit merges a create and the moves after it into one batch.
    @Test(arguments: Backend.allCases) func aCreateAndItsMovesInOneBatchAreWritten(backend: Backend) throws {
        try withFreshStore(backend) { store throws in
            var batch = StoreBatch(games: [klondikeGame("g")], newGames: ["g"])
            for seq in 1...3 {
                batch.append(StoreBatch(games: [klondikeGame("g", seq: seq)], commands: [dragCommand(game: "g", seq: seq)]))
            }
            #expect(batch.newGames == ["g"])
            #expect(try store.write(batch) == WriteOutcome())
            #expect(try store.game(id: "g") == klondikeGame("g", seq: 3))
            #expect(try store.commands(game: "g", after: 0).map(\.seq) == [1, 2, 3])
        }
    }

    // MARK: Retention

    @Test(arguments: Backend.allCases) func untouchedGamesAreDeletedOldestFirstWithTheirCommands(backend: Backend) throws {
        try withFreshStore(backend) { store in
            let day = 86_400.0
            let start = 1_700_000_000.0
            let games = (0..<6).map { klondikeGame("g\($0)", seq: 2, updated: start + Double($0) * day) }
            try store.write(StoreBatch(
                games: games, commands: games.flatMap { [dragCommand(game: $0.id, seq: 1), dragCommand(game: $0.id, seq: 2)] }))
            // g0 was watched on day 4; g1 moved on day 5 (its `updated`); g2's
            // touch is older than its last move and changes nothing.
            try store.write(StoreBatch(touches: [GameTouch(game: "g0", time: start + 4 * day), GameTouch(game: "g2", time: start)]))
            try store.write(StoreBatch(
                games: [klondikeGame("g1", seq: 3, updated: start + 5 * day)], commands: [dragCommand(game: "g1", seq: 3)]))
            let before = try store.usage()
            #expect(before.games == 6)
            #expect(before.bytes > 0)

            // Untouched before day 3.5: g2, g3 (g0 and g1 were touched later, g4 and g5 are newer).
            #expect(try store.deleteUntouched(before: start + 3.5 * day, limit: 1) == ["g2"])
            #expect(try store.deleteUntouched(before: start + 3.5 * day, limit: 10) == ["g3"])
            #expect(try store.deleteUntouched(before: start + 3.5 * day, limit: 10) == [])
            #expect(try store.games().map(\.id) == ["g0", "g1", "g4", "g5"])
            #expect(try store.commands(game: "g2", after: 0).isEmpty)
            #expect(try store.commands(game: "g3", after: 0).isEmpty)
            #expect(try store.commands(game: "g1", after: 0).map(\.seq) == [1, 2, 3])
            #expect(try store.usage().games == 4)

            #expect(try store.deleteUntouched(before: start + 10 * day, limit: 10) == ["g0", "g4", "g1", "g5"])
            #expect(try store.usage().games == 0)
            // A deleted game's id is free again.
            #expect(try store.write(StoreBatch(games: [klondikeGame("g0")], newGames: ["g0"])) == WriteOutcome())
        }
    }
}
