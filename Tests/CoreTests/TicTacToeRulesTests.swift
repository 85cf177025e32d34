import Foundation
import JSONPatchCheck
import Testing
@testable import Core

/// Tic-tac-toe (PROTOCOL section 20, `TicTacToeFixture.swift`), from pictures of boards: three
/// lines, top row first, `X` for p1, `O` for p2, `.` for empty. A picture is played from the
/// empty board, the seats taking turns from `first`; then the move under test, its exact ops and
/// events, and the board after. Every accepted diff is applied by `JSONPatchCheck`.
@Suite struct TicTacToeRulesTests {
    @Test func theRulesFitInSixtyLinesThatAreNeitherBlankNorComments() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("TicTacToeFixture.swift")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let counted = lines.filter { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            return !text.isEmpty && !text.hasPrefix("//")
        }
        #expect(counted.count <= 60, "\(counted.count) lines")
    }

    @Test func aNewGameWaitsWithTheProtocolsKeysThenStartsWithTheFirstSeat() throws {
        var game = try TicTacToe(stored: .object(["first": "p2"]), time: 0)
        #expect(game.state(for: .spectator).encoded
            == #"{"cells":[null,null,null,null,null,null,null,null,null],"turn":null,"first":"p2","status":"waiting","winner":null,"line":null,"moves":0}"#)
        #expect(game.seats == ["p1", "p2"] && game.status == .waiting && game.command(for: .start) == .start)
        game.expectRefused(.move(4), by: "p2", rule: "waiting")
        let start = game.expectAccepted(.start, by: "server", time: 10)
        #expect(start.fullDiff.encodedOps
            == #"[{"op":"replace","path":"/status","value":"playing"},{"op":"replace","path":"/turn","value":"p2"}]"#)
        #expect(start.events == [GameEvent(name: "start")])
        #expect(game.turn == "p2" && game.command(for: .start) == nil)
        #expect(throws: GameError.badRequest("bad-first", "first must be p1 or p2")) {
            var random = SplitMix64(seed: 1)
            _ = try TicTacToe.storedOptions(creating: .object(["first": "p3"]), random: &random)
        }
    }

    @Test func aMarkTakesTheCellAndPassesTheTurn() throws {
        var game = try TicTacToe.playing("""
            X . .
            . O .
            . . .
            """)
        let outcome = game.expectAccepted(.move(8), by: "p1")
        #expect(outcome.fullDiff.encodedOps == #"[{"op":"replace","path":"/cells/8","value":"p1"},"#
            + #"{"op":"replace","path":"/moves","value":3},{"op":"replace","path":"/turn","value":"p2"}]"#)
        #expect(outcome.events.isEmpty)
        #expect(game.picture == """
            X . .
            . O .
            . . X
            """)
    }

    @Test func aTapOutOfTurnOnAMarkedCellOrAfterTheEndIsIllegalAndSaysWhy() throws {
        var game = try TicTacToe.playing("""
            X . .
            . O .
            . . .
            """)
        game.expectRefused(.move(2), by: "p2", rule: "not-your-turn", message: "it is p1's turn")
        game.expectRefused(.move(4), by: "p1", rule: "cell-taken", message: "cell 4 is taken")
        game.expectRefused(.move(2), by: "s1", rule: "no-such-seat")
        game.expectRefused(.reset, by: "p1", rule: "still-playing")
        game.expectRefused(.unsupported("drag"), by: "p1", rule: "no-drag", message: "tictactoe has no drag")
        _ = game.expectAccepted(.resign, by: "p2")
        game.expectRefused(.move(2), by: "p1", rule: "game-over", message: "the game is over: reset for a new one")
    }

    @Test func threeInARowWinsWithItsLineInIncreasingOrder() throws {
        var game = try TicTacToe.playing("""
            . X O
            . X .
            O . .
            """, time: 100)
        let outcome = game.expectAccepted(.move(7), by: "p1", time: 131.9)
        #expect(outcome.fullDiff.encodedOps == #"[{"op":"replace","path":"/cells/7","value":"p1"},"#
            + #"{"op":"replace","path":"/moves","value":5},{"op":"replace","path":"/turn","value":null},"#
            + #"{"op":"replace","path":"/status","value":"won"},{"op":"replace","path":"/winner","value":"p1"},"#
            + #"{"op":"replace","path":"/line","value":[1,4,7]}]"#)
        #expect(outcome.events == [GameEvent(name: "won", fields: [("by", "p1"), ("reason", "three"), ("moves", 5), ("seconds", 31)])])
        #expect(game.isOver && game.turn == nil && game.text(for: .spectator, heading: "H") == [". X O", ". X .", "O X .", "H", "p1 won"])
    }

    @Test func aFullBoardWithoutThreeIsDrawn() throws {
        var game = try TicTacToe.playing("""
            X O X
            X O O
            O X .
            """)
        let outcome = game.expectAccepted(.move(8), by: "p1", time: 4)
        #expect(outcome.fullDiff.encodedOps == #"[{"op":"replace","path":"/cells/8","value":"p1"},"#
            + #"{"op":"replace","path":"/moves","value":9},{"op":"replace","path":"/turn","value":null},"#
            + #"{"op":"replace","path":"/status","value":"drawn"}]"#)
        #expect(outcome.events == [GameEvent(name: "drawn", fields: [("moves", 9), ("seconds", 4)])])
        #expect(game.status == .drawn)
    }

    @Test func aResetAfterTheEndStartsANewGameWithTheOtherSeatFirst() throws {
        var game = try TicTacToe.playing("""
            X X .
            O O .
            . . .
            """)
        _ = game.expectAccepted(.move(2), by: "p1")
        let outcome = game.expectAccepted(.reset, by: "p2", time: 50)
        #expect(outcome.fullDiff.ops.map(\.json["path"]) == ["/cells", "/turn", "/first", "/status", "/winner", "/line", "/moves"])
        #expect(outcome.events == [GameEvent(name: "reset")])
        #expect(game.turn == "p2" && game.state(for: .spectator)["first"] == "p2" && game.picture == ". . .\n. . .\n. . .")
        game.expectRefused(.move(0), by: "p1", rule: "not-your-turn")
        // Resigning hands the game to the other seat, reason `resign`; a timeout, reason `time`.
        let resigned = game.expectAccepted(.resign, by: "p2", time: 51)
        #expect(resigned.events.first?.fields.first { $0.key == "reason" }?.value == "resign")
        _ = game.expectAccepted(.reset, by: "p1", time: 52)
        #expect(game.turn == "p1")
        let timedOut = game.expectAccepted(try #require(game.command(for: .timeout(seat: "p1"))), by: "server", time: 53)
        #expect(timedOut.events.first?.fields.first { $0.key == "by" }?.value == "p2")
    }

    @Test func targetsNameACellByNumberOrByRowAndColumn() throws {
        for (target, cell) in [("/cells/4", 4), ("/cells/0", 0), ("/cells/8", 8), ("/cells/1/2", 5), ("/cells/2/0", 6), ("/4", 4)] {
            for type in ["tap", "double-tap"] {
                let read = try TicTacToe.read(type, .object(["type": .string(type), "target": .string(target)]))
                #expect(read.command == .move(cell), "\(target)")
                #expect(read.cause == .object(["type": .string(type), "target": .string("/cells/\(cell)")]), "\(target)")
            }
        }
        for target: JSON in ["/cells/9", "/cells/-1", "/cells/+4", "/cells/1/3", "/cells/3/0", "/cells/1/2/0", "/cells", "cells/4",
                             "/stock", "/columns/3", "", 4, .null] {
            #expect(throws: GameError.self, "\(target)") { try TicTacToe.read("tap", .object(["target": target])) }
        }
        #expect(try TicTacToe.read("undo", .object([:])).command == .unsupported("undo"))
        #expect(try TicTacToe.shorthand("resign", []) == .object(["type": "resign"]))
    }
}

extension TicTacToe {
    /// A game started at `time` with the picture's marks made, the seats taking turns from `first`.
    static func playing(_ picture: String, first: String = "p1", time: Double = 0) throws -> TicTacToe {
        var game = try TicTacToe(stored: .object(["first": .string(first)]), time: 0)
        _ = game.expectAccepted(.start, by: "server", time: time)
        let cells = Array(picture.filter { "XO.".contains($0) })
        try #require(cells.count == 9, "a picture is three rows of three cells")
        var marks = [cells.indices.filter { cells[$0] == "X" }, cells.indices.filter { cells[$0] == "O" }]
        var seat = first == "p1" ? 0 : 1
        while let cell = marks[seat].first {
            marks[seat].removeFirst()
            let outcome = game.expectAccepted(.move(cell), by: TwoSeatTurns.names[seat], time: time)
            try #require(outcome.events.isEmpty, "the picture's mark on \(cell) ended the game")
            seat = 1 - seat
        }
        try #require(marks.allSatisfy { $0.isEmpty }, "the picture's marks can't be made taking turns from \(first)")
        return game
    }

    /// The board from the spectators' state, drawn as a picture.
    var picture: String {
        let cells = state(for: .spectator)["cells"]?.arrayValue ?? []
        return (0..<3).map { row in
            (0..<3).map { cells[3 * row + $0] == "p1" ? "X" : cells[3 * row + $0] == "p2" ? "O" : "." }.joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// Applies a command that must be accepted; its diff, applied by the independent RFC 6902
    /// apply to the state before, must give exactly the state after.
    @discardableResult
    mutating func expectAccepted(_ command: Command, by player: String, time: Double = 0,
                                 sourceLocation: SourceLocation = #_sourceLocation) -> GameOutcome {
        let before = state(for: .spectator).encoded
        guard case .success(let outcome) = apply(command, context: MoveContext(player: player, time: time)) else {
            Issue.record("\(command) by \(player) was refused", sourceLocation: sourceLocation)
            return GameOutcome(Diff())
        }
        do {
            let patched = try applyJSONPatch(outcome.fullDiff.encodedOps, to: before)
            #expect(jsonValuesEqual(patched, try parseJSONText(state(for: .spectator).encoded)),
                    "\(outcome.fullDiff.encodedOps) on \(before)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(outcome.fullDiff.encodedOps) does not apply to \(before): \(error)", sourceLocation: sourceLocation)
        }
        return outcome
    }

    /// Applies a command that must be refused with `rule` (and `message`), changing nothing.
    mutating func expectRefused(_ command: Command, by player: String, rule: String, message: String? = nil,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        let before = self
        guard case .failure(let error) = apply(command, context: MoveContext(player: player, time: 0)) else {
            Issue.record("\(command) by \(player) was accepted", sourceLocation: sourceLocation)
            return
        }
        #expect(error.rule == rule && (message == nil || error.message == message), "\(error)", sourceLocation: sourceLocation)
        #expect(self == before, "a refused command changed the game", sourceLocation: sourceLocation)
    }
}
