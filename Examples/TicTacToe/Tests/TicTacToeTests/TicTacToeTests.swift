import BoardcastCore
import Foundation
import Testing
@testable import TicTacToe

/// Section 20's rules, from pictures of boards: rows top to bottom, X for p1, O for p2.
@Suite struct TicTacToeTests {
    /// A started game, then each mark in turn (alternating from p1), as cell numbers.
    private func game(after cells: [Int], first: String = "p1") throws -> TicTacToe {
        var game = try TicTacToe(stored: .object(["first": .string(first)]), time: 0)
        _ = try game.apply(.start, context: MoveContext(player: "server", time: 0)).get()
        for cell in cells {
            _ = try game.apply(.move(cell), context: MoveContext(player: game.turn!, time: 1)).get()
        }
        return game
    }

    private func picture(_ game: TicTacToe) -> String { game.boardLines.joined(separator: "\n") }

    @Test func threeInARowWinsWithItsLineAndTheEventSaysSo() throws {
        var game = try game(after: [0, 3, 1, 4])
        #expect(picture(game) == """
            X X .
            O O .
            . . .
            """)
        let outcome = try game.apply(.move(2), context: MoveContext(player: "p1", time: 12.5)).get()
        #expect(game.state(for: .spectator)["line"] == [0, 1, 2])
        #expect(game.state(for: .spectator)["winner"] == "p1")
        #expect(game.status == .won && game.turn == nil)
        #expect(outcome.events == [GameEvent(name: "won", fields: [("by", "p1"), ("reason", "three"), ("moves", 5), ("seconds", 12)])])
        #expect(outcome.diff.ops.first == .replace(path: "/cells/2", value: "p1"))
    }

    @Test func aFullBoardWithoutALineIsDrawn() throws {
        let game = try game(after: [0, 1, 2, 4, 3, 5, 7, 6, 8])
        #expect(picture(game) == """
            X O X
            X O O
            O X X
            """)
        #expect(game.status == .drawn && game.state(for: .spectator)["line"] == .null)
    }

    @Test func outOfTurnMarkedCellsAndBadTargetsAreRefusedAndChangeNothing() throws {
        var game = try game(after: [4])
        let before = game
        #expect(throws: GameError.self) { try game.apply(.move(0), context: MoveContext(player: "p1", time: 2)).get() }
        #expect(throws: GameError.self) { try game.apply(.move(4), context: MoveContext(player: "p2", time: 2)).get() }
        #expect(game == before)
        #expect(try TicTacToe.read("tap", .object(["target": "/cells/1/2"])).cause == .object(["type": "tap", "target": "/cells/5"]))
        #expect(try TicTacToe.read("tap", .object(["target": "/4"])).command == .move(4))
        for target in ["/cells/9", "/cells/3/0", "/cells/", "/cells/01", "cells/4", "/rows/1"] {
            #expect(throws: GameError.self, "\(target)") { try TicTacToe.read("tap", .object(["target": .string(target)])) }
        }
    }

    @Test func aResetOnceOverStartsANewGameWithTheOtherSeatFirst() throws {
        var game = try game(after: [0, 3, 1, 4, 2])
        let outcome = try game.apply(.reset, context: MoveContext(player: "p2", time: 20)).get()
        #expect(outcome.events.map(\.name) == ["reset"])
        #expect(game.turn == "p2" && game.state(for: .spectator)["first"] == "p2" && picture(game) == ". . .\n. . .\n. . .")
        var playing = try self.game(after: [0])
        #expect(throws: GameError.self) { try playing.apply(.reset, context: MoveContext(player: "p1", time: 3)).get() }
    }

    @Test func theRulesFitInSixtyLinesThatAreNeitherBlankNorComments() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/TicTacToe/TicTacToe.swift")
        let counted = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            return !text.isEmpty && !text.hasPrefix("//")
        }
        #expect(counted.count <= 60, "\(counted.count) lines")
    }

    @Test func theStateHasSectionTwentysKeysAndNoOthers() throws {
        let state = try TicTacToe(stored: .object([:]), time: 0).state(for: .spectator)
        #expect(state.objectPairs?.map(\.key) == ["cells", "turn", "first", "status", "winner", "line", "moves"])
        #expect(state["status"] == "waiting" && state["cells"]?.arrayValue?.count == 9)
    }
}
