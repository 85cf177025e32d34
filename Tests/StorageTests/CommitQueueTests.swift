import Core
import Foundation
@testable import Realtime
import Testing

/// What a queue reported through its callbacks.
private final class Reports: Sendable {
    let committed = Locked<[UInt64]>([])
    let failures = Locked<[String]>([])

    func queue(for store: any GameStore) -> CommitQueue {
        CommitQueue(
            store: store,
            onCommitted: { ticket in self.committed.withValue { $0.append(ticket) } },
            onFailure: { tickets, error in self.failures.withValue { $0.append("\(tickets): \(error)") } })
    }
}

@Suite struct CommitQueueTests {
    @Test func manySubmitsFromSeveralThreadsAreAllDurableAfterFlush() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            let reports = Reports()
            let queue = reports.queue(for: store)
            let threads = 4
            let movesPerGame = 250
            let tickets = Locked<[UInt64]>([])
            // Each thread plays its own game, as the server's games each submit in their own order.
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let game = "game\(thread)"
                var mine: [UInt64] = [queue.submit(StoreBatch(games: [klondikeGame(game)]))]
                for seq in 1...movesPerGame {
                    mine.append(queue.submit(StoreBatch(
                        games: [klondikeGame(game, seq: seq)],
                        commands: [dragCommand(game: game, seq: seq, clientID: "\"\(thread)-\(seq)\"")])))
                }
                #expect(mine == mine.sorted())
                tickets.withValue { $0.append(contentsOf: mine) }
            }
            queue.flush()

            let allTickets = tickets.withValue { $0 }
            #expect(Set(allTickets) == Set(1...UInt64(threads * (movesPerGame + 1))))
            let committed = reports.committed.withValue { $0 }
            #expect(committed == committed.sorted() && Set(committed).count == committed.count)
            #expect(committed.last == UInt64(allTickets.count))
            #expect(queue.durableTicket == UInt64(allTickets.count))
            // Group commit: far fewer transactions than batches (each thread submits faster than fsync).
            #expect(committed.count < allTickets.count)
            for thread in 0..<threads {
                let commands = try store.commands(game: "game\(thread)", after: 0)
                #expect(commands.map(\.seq) == Array(1...movesPerGame))
                #expect(commands.last?.clientID == "\"\(thread)-\(movesPerGame)\"")
                #expect(try store.game(id: "game\(thread)")?.seq == movesPerGame)
            }
            #expect(reports.failures.withValue { $0 }.isEmpty)
            queue.close()
        }
    }

    @Test func eachTicketIsReportedBeforeFlushReturns() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            let reports = Reports()
            let queue = reports.queue(for: store)
            let first = queue.submit(StoreBatch(games: [klondikeGame("g")]))
            queue.flush()
            #expect(reports.committed.withValue { $0 } == [first])
            for seq in 1...20 {
                let ticket = queue.submit(StoreBatch(games: [klondikeGame("g", seq: seq)], commands: [dragCommand(game: "g", seq: seq)]))
                queue.flush()
                #expect(reports.committed.withValue { $0.last } == ticket)
                #expect(try store.commands(game: "g", after: seq - 1).map(\.seq) == [seq])
            }
            let empty = queue.submit(StoreBatch())
            queue.flush()
            #expect(reports.committed.withValue { $0.last } == empty)
            queue.close()
        }
    }

    @Test func closeWritesWhatIsPending() throws {
        try withTemporaryDirectory { directory in
            let commands = (1...500).map { dragCommand(game: "g", seq: $0) }
            do {
                let store = try SQLiteGameStore(directory: directory)
                let reports = Reports()
                let queue = reports.queue(for: store)
                queue.submit(StoreBatch(games: [klondikeGame("g")]))
                for command in commands { queue.submit(StoreBatch(commands: [command])) }
                queue.close()
                #expect(reports.committed.withValue { $0.last } == 501)
                // A submit after close is refused out loud, never dropped silently.
                queue.submit(StoreBatch(commands: [dragCommand(game: "g", seq: 501)]))
                #expect(reports.failures.withValue { $0 } == [
                    "502...502: commit queue: batch 502 not stored: the queue stopped after close()",
                ])
                try store.close()
            }
            let reopened = try SQLiteGameStore(directory: directory)
            #expect(try reopened.commands(game: "g", after: 0) == commands)
        }
    }

    @Test func aFailedWriteIsReportedAndRefusesLaterBatchesUntilResumed() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            let reports = Reports()
            let queue = reports.queue(for: store)
            let good = queue.submit(StoreBatch(games: [klondikeGame("g")], commands: [dragCommand(game: "g", seq: 1)]))
            queue.flush()
            // A command for a game that has no row: the foreign key fails the transaction.
            let bad = queue.submit(StoreBatch(commands: [dragCommand(game: "ghost", seq: 1)]))
            queue.flush()

            #expect(queue.failure != nil)
            #expect(queue.durableTicket == good)
            #expect(reports.committed.withValue { $0 } == [good])
            let failures = reports.failures.withValue { $0 }
            #expect(failures.count == 1)
            #expect(failures.first?.hasPrefix("\(bad)...\(bad): ") == true)
            #expect(failures.first?.contains("FOREIGN KEY") == true)

            // Until its owner has dealt with the failure, later batches are refused: they may build on the lost one.
            let refused = queue.submit(StoreBatch(games: [klondikeGame("g", seq: 2)], commands: [dragCommand(game: "g", seq: 2)]))
            queue.flush()
            #expect(refused > bad)
            #expect(reports.failures.withValue { $0.count } == 2)
            #expect(reports.failures.withValue { $0.last }?.contains("not stored") == true)
            #expect(try store.commands(game: "g", after: 0).map(\.seq) == [1])

            queue.resume()
            let after = queue.submit(StoreBatch(games: [klondikeGame("g", seq: 2)], commands: [dragCommand(game: "g", seq: 2)]))
            queue.flush()
            #expect(queue.durableTicket == after)
            #expect(queue.failure == nil)
            #expect(try store.commands(game: "g", after: 0).map(\.seq) == [1, 2])
            queue.close()
        }
    }

    /// A game the store refuses is not a failed write: the rest of the batch is durable, and its
    /// owner learns which game was refused with the committed ticket.
    @Test(arguments: Backend.allCases) func aRefusedGameComesWithItsCommittedTicket(backend: Backend) throws {
        try withFreshStore(backend) { store in
            let committed = Locked<[(ticket: UInt64, outcome: WriteOutcome)]>([])
            let failures = Locked<[String]>([])
            let queue = CommitQueue(
                store: store,
                onCommitted: { ticket, outcome in committed.withValue { $0.append((ticket, outcome)) } },
                onFailure: { tickets, error in failures.withValue { $0.append("\(tickets): \(error)") } })
            defer { queue.close() }
            queue.submit(StoreBatch(games: [klondikeGame("g")], newGames: ["g"]))
            queue.flush()
            let taken = queue.submit(StoreBatch(
                games: [klondikeGame("g", seq: 1), klondikeGame("h")], commands: [dragCommand(game: "g", seq: 1)], newGames: ["g", "h"]))
            queue.flush()
            let last = try #require(committed.withValue { $0.last })
            #expect(last.ticket == taken)
            #expect(last.outcome == WriteOutcome(refused: ["g": .idTaken]))
            #expect(committed.withValue { $0.first?.outcome } == WriteOutcome())
            #expect(failures.withValue { $0 }.isEmpty)
            #expect(queue.failure == nil)
            #expect(try store.game(id: "h") == klondikeGame("h"))
            #expect(try store.commands(game: "g", after: 0).isEmpty)
            // The queue goes on accepting batches.
            let next = queue.submit(StoreBatch(games: [klondikeGame("h", seq: 1)], commands: [dragCommand(game: "h", seq: 1)]))
            queue.flush()
            #expect(queue.durableTicket == next)
        }
    }

    @Test func droppingTheQueueWritesWhatIsPendingAndStopsItsThread() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteGameStore(directory: directory)
            let reports = Reports()
            do {
                let queue = reports.queue(for: store)
                queue.submit(StoreBatch(games: [klondikeGame("g")], commands: [dragCommand(game: "g", seq: 1)]))
            }
            #expect(reports.committed.withValue { $0 } == [1])
            #expect(try store.commands(game: "g", after: 0).count == 1)
        }
    }
}

@Suite struct RetentionSweepTests {
    @Test func batchesFollowEachOtherWhileFullThenWaitForTheNextSweep() {
        var sweep = RetentionSweep(retainDays: 30, batch: 100, pause: 0.1, start: 0)
        #expect(sweep.interval == 3600 && sweep.retainSeconds == 30 * 86_400)
        #expect(sweep.due(monotonic: 59, unixTime: 1_000_000_000) == nil, "not in the first minute")
        #expect(sweep.due(monotonic: 60, unixTime: 1_000_000_000) == Double(1_000_000_000 - 30 * 86_400))
        #expect(sweep.due(monotonic: 60.5, unixTime: 0) == nil, "one batch at a time")
        sweep.finished(deleted: 100, monotonic: 61)
        #expect(sweep.due(monotonic: 61.05, unixTime: 0) == nil)
        #expect(sweep.due(monotonic: 61.1, unixTime: 0) != nil, "a full batch: the next follows after a pause")
        sweep.finished(deleted: 3, monotonic: 62)
        #expect(sweep.due(monotonic: 62 + 3599, unixTime: 0) == nil, "the backlog is gone: the next sweep in an hour")
        #expect(sweep.due(monotonic: 62 + 3600, unixTime: 0) != nil)
        sweep.finished(deleted: nil, monotonic: 4000)
        #expect(sweep.due(monotonic: 4001, unixTime: 0) == nil, "a failure waits for the next sweep")
    }

    @Test func shortRetentionsSweepOftenButNotInALoop() {
        let sweep = RetentionSweep(retainDays: 0.0001, start: 0)
        #expect(sweep.interval == 1)
    }
}
