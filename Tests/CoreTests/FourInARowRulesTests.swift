import Testing
@testable import Core
import JSONPatchCheck

/// Four in a row (PROTOCOL section 16), from pictures of boards: six lines, top row first,
/// seven cells each, `X` for p1, `O` for p2, `.` for empty. A picture is played from the
/// empty board in an order that alternates the seats (`FourInARow.playing`), then the move
/// under test is made and its diff, events and the board after are checked. Every accepted
/// move's diff is also checked with the independent RFC 6902 apply (section 4's invariant).
@Suite struct FourInARowRulesTests {
    typealias Four = FourInARow

    static func tap(_ column: Int) -> Four.Command { .move(column) }

    // MARK: Starting and taking turns

    @Test func aNewGameWaitsWithTheProtocolsKeysThenStartsWithTheFirstSeatToMove() throws {
        var game = try Four(stored: .object(["first": "p1"]), time: 0)
        #expect(game.state(for: .spectator).objectPairs?.map(\.key)
            == ["columns", "rows", "turn", "first", "status", "winner", "line", "moves"])
        #expect(game.state(for: .spectator).encoded
            == #"{"columns":[[],[],[],[],[],[],[]],"rows":6,"turn":null,"first":"p1","status":"waiting","winner":null,"line":null,"moves":0}"#)
        #expect(game.seats == ["p1", "p2"] && game.turn == nil && game.status == .waiting && !game.isOver)
        let start = try #require(game.command(for: .start))
        #expect(start == .start)
        // The server issues start; whoever it names as sender does not matter.
        let outcome = try game.accepted(start, by: "server", time: 5)
        #expect(outcome.fullDiff.encodedOps
            == #"[{"op":"replace","path":"/status","value":"playing"},{"op":"replace","path":"/turn","value":"p1"}]"#)
        #expect(outcome.events == [GameEvent(name: "start")])
        #expect(game.status == .playing && game.turn == "p1" && game.command(for: .start) == nil)
        game.expectRefused(.start, by: "server", rule: "started")
    }

    @Test func gesturesWhileWaitingAreIllegal() throws {
        var game = try Four(stored: .object([:]), time: 0)
        game.expectRefused(Self.tap(3), by: "p1", rule: "waiting")
        game.expectRefused(Self.tap(3), by: "p2", rule: "waiting")
        game.expectRefused(.resign, by: "p1", rule: "waiting")
        game.expectRefused(.reset, by: "p2", rule: "waiting")
        game.expectRefused(.unsupported("undo"), by: "p1", rule: "no-undo")
        #expect(game.status == .waiting)
    }

    @Test func turnsAlternateAndATapOutOfTurnIsIllegal() throws {
        var game = try Four.started()
        game.expectRefused(Self.tap(3), by: "p2", rule: "not-your-turn", message: "it is p1's turn")
        let first = try game.accepted(Self.tap(3), by: "p1")
        #expect(first.fullDiff.encodedOps
            == #"[{"op":"add","path":"/columns/3/0","value":"p1"},{"op":"replace","path":"/moves","value":1},{"op":"replace","path":"/turn","value":"p2"}]"#)
        #expect(first.events.isEmpty)
        game.expectRefused(Self.tap(4), by: "p1", rule: "not-your-turn", message: "it is p2's turn")
        game.expectAccepted(Self.tap(3), by: "p2")
        #expect(game.turn == "p1")
        game.expectAccepted(Self.tap(0), by: "p1")
        game.expectRefused(Self.tap(0), by: "p1", rule: "not-your-turn", message: "it is p2's turn")
        #expect(game.picture == """
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . O . . .
            X . . X . . .
            """)
        #expect(game.state(for: .spectator)["moves"] == 3)
    }

    @Test func aSenderWhoHoldsNoSeatIsABadRequest() throws {
        var game = try Four.started()
        for stranger in ["p3", "p0", "", "spectator", "P1"] {
            game.expectRefused(Self.tap(3), by: stranger, .badRequest, rule: "no-such-seat")
            game.expectRefused(.resign, by: stranger, .badRequest, rule: "no-such-seat")
        }
    }

    @Test func aFullColumnIsIllegalAndChangesNothing() throws {
        var game = try Four.playing("""
            . . . O . . .
            . . . X . . .
            . . . O . . .
            . . . X . . .
            . . . O . . .
            . . . X . . .
            """)
        #expect(game.turn == "p1")
        game.expectRefused(Self.tap(3), by: "p1", rule: "column-full", message: "column 3 is full")
        // Out of turn comes first: the seat not to move is told whose turn it is.
        game.expectRefused(Self.tap(3), by: "p2", rule: "not-your-turn", message: "it is p1's turn")
        game.expectAccepted(Self.tap(2), by: "p1")
        game.expectRefused(Self.tap(3), by: "p2", rule: "column-full", message: "column 3 is full")
    }

    // MARK: Winning

    @Test func aHorizontalFourWinsWithTheDroppedDiscInTheMiddle() throws {
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O . . . . .
            X X . X . . O
            """, time: 100)
        let outcome = try game.accepted(Self.tap(2), by: "p1", time: 142.9)
        #expect(outcome.fullDiff.encodedOps
            == #"[{"op":"add","path":"/columns/2/0","value":"p1"},{"op":"replace","path":"/moves","value":7},{"op":"replace","path":"/turn","value":null},{"op":"replace","path":"/status","value":"won"},{"op":"replace","path":"/winner","value":"p1"},{"op":"replace","path":"/line","value":[[0,0],[1,0],[2,0],[3,0]]}]"#)
        #expect(outcome.events == [Self.won(by: "p1", reason: "four", moves: 7, seconds: 42)])
        #expect(outcome.events.first?.fields.map(\.key) == ["by", "reason", "moves", "seconds"])
        game.expectWon(by: "p1", line: [[0, 0], [1, 0], [2, 0], [3, 0]])
    }

    @Test func aVerticalFourWins() throws {
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . O . . . .
            . . O . . . .
            . . O . . . .
            X . X . X X .
            """)
        #expect(game.turn == "p2")
        let outcome = try game.accepted(Self.tap(2), by: "p2", time: 9)
        #expect(outcome.events == [Self.won(by: "p2", reason: "four", moves: 8, seconds: 9)])
        game.expectWon(by: "p2", line: [[2, 1], [2, 2], [2, 3], [2, 4]])
        #expect(game.picture.split(separator: "\n")[1] == ". . O . . . .")
    }

    @Test func aRisingDiagonalFourWins() throws {
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . X O . . .
            . X O X . . .
            X O O O X . .
            """)
        let outcome = try game.accepted(Self.tap(3), by: "p1")
        #expect(outcome.events.map(\.name) == ["won"])
        game.expectWon(by: "p1", line: [[0, 0], [1, 1], [2, 2], [3, 3]])
    }

    @Test func aFallingDiagonalFourWinsWithTheDroppedDiscInside() throws {
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            O . . . . . .
            X . . . . . .
            X X O . . . .
            O X X O X . O
            """)
        #expect(game.turn == "p2")
        let outcome = try game.accepted(Self.tap(1), by: "p2")
        #expect(outcome.events.map(\.name) == ["won"])
        game.expectWon(by: "p2", line: [[0, 3], [1, 2], [2, 1], [3, 0]])
    }

    @Test func firstP2WinsTheSameWayWithTheSeatsSwapped() throws {
        // p2 moves first: it holds one disc more than p1 once p1 is to move.
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            X . . . . . .
            X . . . . . .
            X . O O O . .
            """, first: "p2")
        #expect(game.turn == "p2" && game.state(for: .spectator)["first"] == "p2")
        game.expectRefused(Self.tap(5), by: "p1", rule: "not-your-turn", message: "it is p2's turn")
        let outcome = try game.accepted(Self.tap(5), by: "p2")
        #expect(outcome.events.first?.fields.first?.value == "p2")
        game.expectWon(by: "p2", line: [[2, 0], [3, 0], [4, 0], [5, 0]])
    }

    @Test func fillingTheGapOfALineOfFiveNamesFourCellsWithTheDroppedDisc() throws {
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O . O O . .
            X X . X X . .
            """)
        game.expectAccepted(Self.tap(2), by: "p1")
        let line = try #require(game.line)
        #expect(line.count == 4 && line.contains([2, 0]))
        #expect(line.allSatisfy { $0[1] == 0 && (0...4).contains($0[0]) })
        #expect(Self.isStraight(line), "\(line)")
        #expect(game.state(for: .spectator)["winner"] == "p1")
    }

    @Test func aDiagonalOfFiveFilledInTheMiddleNamesFourCellsWithTheDroppedDisc() throws {
        // X on (0,0) (1,1) _ (3,3) (4,4): p1 drops into column 2, which lands on row 2.
        var game = try Four.playing("""
            . . . . . . .
            . . . . X . .
            . . . X X . .
            . . . O O . .
            . X O X O . .
            X O O X X O O
            """)
        #expect(game.turn == "p1")
        game.expectAccepted(Self.tap(2), by: "p1")
        let line = try #require(game.line)
        #expect(line.count == 4 && line.contains([2, 2]) && Self.isStraight(line), "\(line)")
        #expect(line.allSatisfy { $0[0] == $0[1] }, "\(line)")
    }

    @Test func afterAWinNoTapOrResignIsTaken() throws {
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O O . . . .
            X X X . . . .
            """)
        game.expectAccepted(Self.tap(3), by: "p1")
        #expect(game.isOver && game.turn == nil)
        game.expectRefused(Self.tap(4), by: "p2", rule: "game-over")
        game.expectRefused(Self.tap(4), by: "p1", rule: "game-over")
        game.expectRefused(.resign, by: "p2", rule: "game-over")
    }

    @Test func theSecondsOfAWinCountFromTheStartNotFromCreation() throws {
        var game = try Four(stored: .object(["first": "p1"]), time: 1_000)
        game.expectAccepted(.start, by: "server", time: 1_600.25)
        for (column, seat) in [(0, "p1"), (6, "p2"), (0, "p1"), (6, "p2"), (0, "p1"), (6, "p2")] {
            game.expectAccepted(Self.tap(column), by: seat, time: 1_610)
        }
        let outcome = try game.accepted(Self.tap(0), by: "p1", time: 1_690.2)
        #expect(outcome.events == [Self.won(by: "p1", reason: "four", moves: 7, seconds: 89)])
    }

    // MARK: Drawing

    static let drawnBoard = """
        O O X X O O X
        X X O O X X O
        O O X X O O X
        X X O O X X O
        O O X X O O X
        X X O O X X O
        """

    @Test func aFullBoardWithNoFourIsDrawn() throws {
        var game = try Four.playing(Self.drawnBoard.replacing("O O X X O O X\nX X O O", with: ". O X X O O X\nX X O O", maxReplacements: 1),
                                    time: 50)
        #expect(game.turn == "p2" && game.state(for: .spectator)["moves"] == 41)
        let outcome = try game.accepted(Self.tap(0), by: "p2", time: 170)
        #expect(outcome.fullDiff.encodedOps
            == #"[{"op":"add","path":"/columns/0/5","value":"p2"},{"op":"replace","path":"/moves","value":42},{"op":"replace","path":"/turn","value":null},{"op":"replace","path":"/status","value":"drawn"}]"#)
        #expect(outcome.events == [GameEvent(name: "drawn", fields: [(key: "moves", value: 42), (key: "seconds", value: 120)])])
        #expect(game.picture == Self.drawnBoard)
        let state = game.state(for: .spectator)
        #expect(state["status"] == "drawn" && state["winner"] == .null && state["line"] == .null && state["turn"] == .null)
        #expect(game.isOver && game.status == .drawn)
        game.expectRefused(Self.tap(0), by: "p1", rule: "game-over")
        game.expectRefused(.resign, by: "p1", rule: "game-over")
    }

    @Test func fourMadeByTheLastDiscOfTheBoardIsAWinNotADraw() throws {
        var game = try Four.playing("""
            O . O O O X O
            O X X O X O X
            X O O O X X X
            X X O X O X X
            O O O X O X O
            X O X X X O X
            """)
        #expect(game.turn == "p2")
        let outcome = try game.accepted(Self.tap(1), by: "p2")
        #expect(outcome.events.map(\.name) == ["won"])
        #expect(outcome.events.first?.fields.first { $0.key == "moves" }?.value == 42)
        let line = try #require(game.line)
        #expect(line.count == 4 && line.contains([1, 5]) && line.allSatisfy { $0[1] == 5 }, "\(line)")
        #expect(game.status == .won && game.state(for: .spectator)["winner"] == "p2")
    }

    // MARK: Resigning

    @Test func resigningGivesTheGameToTheOtherSeatEvenOutOfTurn() throws {
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . O . . .
            . . X X . . .
            """, time: 10)
        #expect(game.turn == "p2")
        // p1 resigns while it is p2's turn.
        let outcome = try game.accepted(.resign, by: "p1", time: 25.5)
        #expect(outcome.fullDiff.encodedOps
            == #"[{"op":"replace","path":"/turn","value":null},{"op":"replace","path":"/status","value":"won"},{"op":"replace","path":"/winner","value":"p2"},{"op":"replace","path":"/line","value":null}]"#)
        #expect(outcome.events == [Self.won(by: "p2", reason: "resign", moves: 3, seconds: 15)])
        #expect(game.state(for: .spectator)["line"] == .null && game.status == .won)
        game.expectRefused(.resign, by: "p2", rule: "game-over")
        game.expectRefused(.resign, by: "p1", rule: "game-over")
    }

    @Test func resigningOnOnesOwnTurn() throws {
        var game = try Four.started(first: "p2")
        let outcome = try game.accepted(.resign, by: "p2")
        #expect(outcome.events == [Self.won(by: "p1", reason: "resign", moves: 0, seconds: 0)])
        #expect(game.state(for: .spectator)["winner"] == "p1")
    }

    // MARK: Resetting

    @Test func resetIsIllegalWhileTheGameIsPlayed() throws {
        var game = try Four.started()
        game.expectRefused(.reset, by: "p1", rule: "still-playing")
        game.expectAccepted(Self.tap(3), by: "p1")
        game.expectRefused(.reset, by: "p2", rule: "still-playing")
    }

    @Test func resetAfterAWinStartsANewGameWithTheOtherSeatFirstAndAgain() throws {
        var game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O O . . . .
            X X X . . . .
            """)
        game.expectAccepted(Self.tap(3), by: "p1")
        // Either seat may reset, the loser here.
        let outcome = try game.accepted(.reset, by: "p2", time: 300)
        #expect(outcome.events == [GameEvent(name: "reset")])
        #expect(outcome.fullDiff.encodedOps
            == #"[{"op":"replace","path":"/columns","value":[[],[],[],[],[],[],[]]},{"op":"replace","path":"/turn","value":"p2"},{"op":"replace","path":"/first","value":"p2"},{"op":"replace","path":"/status","value":"playing"},{"op":"replace","path":"/winner","value":null},{"op":"replace","path":"/line","value":null},{"op":"replace","path":"/moves","value":0}]"#)
        #expect(game.state(for: .spectator).encoded
            == #"{"columns":[[],[],[],[],[],[],[]],"rows":6,"turn":"p2","first":"p2","status":"playing","winner":null,"line":null,"moves":0}"#)
        #expect(game.turn == "p2" && !game.isOver)
        game.expectRefused(.reset, by: "p1", rule: "still-playing")
        game.expectRefused(Self.tap(3), by: "p1", rule: "not-your-turn", message: "it is p2's turn")

        // The new game's seconds count from the reset.
        let won = try game.accepted(.resign, by: "p1", time: 333)
        #expect(won.events == [Self.won(by: "p2", reason: "resign", moves: 0, seconds: 33)])
        game.expectAccepted(.reset, by: "p1", time: 400)
        #expect(game.state(for: .spectator)["first"] == "p1" && game.turn == "p1")
        game.expectAccepted(.resign, by: "p2", time: 401)
        game.expectAccepted(.reset, by: "p2", time: 402)
        #expect(game.state(for: .spectator)["first"] == "p2" && game.turn == "p2")
    }

    @Test func resetAfterADrawStartsANewGameWithTheOtherSeatFirst() throws {
        var game = try Four.playing(Self.drawnBoard.replacing("O O X X O O X\nX X O O", with: ". O X X O O X\nX X O O", maxReplacements: 1))
        game.expectAccepted(Self.tap(0), by: "p2")
        #expect(game.status == .drawn)
        let outcome = try game.accepted(.reset, by: "p1")
        #expect(outcome.events == [GameEvent(name: "reset")])
        #expect(game.state(for: .spectator)["first"] == "p2" && game.turn == "p2" && game.picture == Self.emptyBoard)
    }

    // MARK: Reading messages

    static func read(_ type: String, _ fields: KeyValuePairs<String, JSON> = [:]) throws(GameError) -> ReadCommand<Four.Command> {
        var pairs: [(key: String, value: JSON)] = [("type", .string(type))]
        pairs += fields.map { (key: $0.key, value: $0.value) }
        return try Four.read(type, .object(pairs))
    }

    @Test func aTapNamesAColumnByItsPointerACellOrTheTerminalsShortForm() throws {
        for (target, cause) in [("/columns/3", "/columns/3"), ("/columns/3/2", "/columns/3/2"), ("/3", "/columns/3"),
                                ("/columns/0", "/columns/0"), ("/columns/6/5", "/columns/6/5"), ("/6", "/columns/6")] {
            for type in ["tap", "double-tap"] {
                let read = try Self.read(type, ["target": .string(target), "id": 7])
                let column = Int(String(cause.split(separator: "/")[1]))!
                #expect(read.command == .move(column), "\(type) \(target)")
                // The cause keeps the type and the target as sent (`/3` in full), nothing else.
                #expect(read.cause.encoded == #"{"type":"\#(type)","target":"\#(cause)"}"#)
                #expect(read.stored == read.cause)
            }
        }
    }

    @Test func aTargetOfAnotherFormIsABadRequest() {
        let targets: [JSON] = [
            "/columns/7", "/columns/-1", "/columns/x", "/stock", "/columns/3/6", "/columns/3/-1", "/columns/3/x",
            "/columns", "/columns/", "/columns/3/", "/columns/3/2/1", "columns/3", "3", "", "/", "//3", "/7",
            "/tableau/3", "/columns/ 3", "/columns/03", "/columns/+3", "/columns/-0", "/+3", "/columns/3/02",
            3, .null, ["/columns/3"],
        ]
        for target in targets {
            for type in ["tap", "double-tap"] {
                #expect(throws: GameError.self, "\(type) \(target.encoded)") { try Self.read(type, ["target": target]) }
                do {
                    _ = try Self.read(type, ["target": target])
                } catch {
                    #expect(error.code == .badRequest && error.rule == "bad-target", "\(type) \(target.encoded): \(error)")
                }
            }
        }
        // No target at all.
        #expect(throws: GameError.badRequest("bad-target", "target must be a column such as /columns/3 (0 to 6), or a cell /columns/3/2")) {
            try Self.read("tap")
        }
    }

    @Test func dragAndUndoAreReadButRefusedAsMoves() throws {
        let drag = try Self.read("drag", ["from": "/columns/1", "to": "/columns/2"])
        let undo = try Self.read("undo")
        #expect(drag.command == .unsupported("drag") && drag.cause == .object(["type": "drag"]))
        #expect(undo.command == .unsupported("undo") && undo.cause == .object(["type": "undo"]))
        var game = try Four.started()
        game.expectRefused(drag.command, by: "p1", rule: "no-drag")
        game.expectRefused(undo.command, by: "p1", rule: "no-undo")
        game.expectRefused(undo.command, by: "p2", rule: "no-undo")
        game.expectAccepted(Self.tap(2), by: "p1")
        game.expectRefused(undo.command, by: "p1", rule: "no-undo")
    }

    @Test func resignAndResetReadAsThemselvesAndOtherTypesAreUnknown() throws {
        #expect(try Self.read("resign") == ReadCommand(.resign, cause: .object(["type": "resign"])))
        #expect(try Self.read("reset", ["id": 4]) == ReadCommand(.reset, cause: .object(["type": "reset"])))
        for type in ["show", "hint", "add", "start", "move"] {
            #expect(throws: GameError.self) { try Self.read(type) }
            do {
                _ = try Self.read(type)
            } catch {
                #expect(error.code == .unknownType, "\(type): \(error)")
            }
        }
        // Its own type beside the generic gestures (which every game reads).
        #expect(Four.commandTypes == ["resign"])
        #expect(try Four.shorthand("resign", []) == .object(["type": "resign"]))
        #expect(try Four.shorthand("tap", ["3"]) == nil)
    }

    // MARK: Options

    @Test func firstIsP1ByDefaultOrP2AndRoundTripsThroughStoredOptions() throws {
        var random = SplitMix64(seed: 1)
        let cases: [(options: JSON, first: String)] = [
            (.object([:]), "p1"), (.object(["first": "p1"]), "p1"), (.object(["first": "p2"]), "p2"),
            (.object(["first": .null]), "p1"), (.null, "p1"),
        ]
        for (options, first) in cases {
            let stored = try Four.storedOptions(creating: options, random: &random)
            #expect(stored == .object(["first": .string(first)]), "\(options.encoded)")
            // Stored again, it is the same.
            #expect(try Four.storedOptions(creating: stored, random: &random) == stored)
            var game = try Four(stored: stored, time: 0)
            #expect(game.state(for: .spectator)["first"] == .string(first))
            game.expectAccepted(.start, by: "server")
            #expect(game.turn == first)
        }
    }

    @Test func anyOtherFirstIsABadRequest() {
        var random = SplitMix64(seed: 1)
        for bad: JSON in ["p3", "P2", "", "p0", "p1 ", 1, 2, true, ["p1"], .object(["seat": "p1"])] {
            let options = JSON.object(["first": bad])
            #expect(throws: GameError.badRequest("bad-first", "first must be p1 or p2"), "\(bad.encoded)") {
                try Four.storedOptions(creating: options, random: &random)
            }
            #expect(throws: GameError.badRequest("bad-first", "first must be p1 or p2"), "\(bad.encoded)") {
                try Four(stored: options, time: 0)
            }
        }
    }

    // MARK: Text

    @Test func showDrawsTheRowsTopFirstSevenCellsApart() throws {
        let picture = """
            . . . . . . .
            . . . . . . .
            . . . X . . .
            . . O O . . .
            . X O X . . .
            X O O X X . .
            """
        let game = try Four.playing(picture)
        for viewer in [Viewer.spectator, .seat("p1"), .seat("p2")] {
            let lines = game.text(for: viewer, heading: "four k7f3q9 seq 11 playing")
            #expect(lines.count >= 6)
            #expect(lines.prefix(6).joined(separator: "\n") == picture)
            #expect(lines.prefix(6).allSatisfy { $0.count == 13 && $0.split(separator: " ").count == 7 })
            #expect(lines.contains("four k7f3q9 seq 11 playing"))
        }
        let waiting = try Four(stored: .object([:]), time: 0)
        #expect(waiting.text(for: .spectator, heading: "h").prefix(6).joined(separator: "\n") == Self.emptyBoard)
    }

    // MARK: Hints

    @Test func aPlayersHintIsForbiddenWhileTheGameIsPlayedAndASpectatorsIsSearched() throws {
        var game = try Four.started()
        for seat in ["p1", "p2"] {
            guard case .refused(let error) = game.hintPlan(for: HintContext(viewer: .seat(seat), isPlayer: true)) else {
                Issue.record("\(seat)'s hint was not refused")
                continue
            }
            #expect(error.code == .forbidden)
        }
        guard case .search(let key) = game.hintPlan(for: HintContext(viewer: .spectator, isPlayer: false)) else {
            Issue.record("a spectator's hint was not searched")
            return
        }
        #expect(key.kind == "four")
        // Another position, another key; the same position, the same key.
        game.expectAccepted(Self.tap(3), by: "p1")
        guard case .search(let after) = game.hintPlan(for: HintContext(viewer: .spectator, isPlayer: false)) else {
            Issue.record("a spectator's hint was not searched")
            return
        }
        #expect(after != key)
        #expect(game.hintPlan(for: HintContext(viewer: .spectator, isPlayer: false)) == .search(after))
        // Once the game is over a player may ask too.
        game.expectAccepted(.resign, by: "p2")
        guard case .search = game.hintPlan(for: HintContext(viewer: .seat("p1"), isPlayer: true)) else {
            Issue.record("a player's hint after the game was refused")
            return
        }
    }

    static let hintBudget = 2_000

    @Test func aHintTakesAWinningColumn() throws {
        let game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . .
            O O . . . . .
            X X X . . . O
            """)
        try Self.expectHint(game, "/columns/3")
    }

    @Test func aHintBlocksTheOpponentsFour() throws {
        let game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . O .
            . X . . . O .
            . X . X . O .
            """)
        #expect(game.turn == "p1")
        try Self.expectHint(game, "/columns/5")
        // For p2, to move after p1 plays elsewhere, the same column wins.
        var other = game
        other.expectAccepted(Self.tap(0), by: "p1")
        try Self.expectHint(other, "/columns/5")
    }

    @Test func aHintPrefersItsOwnWinToABlock() throws {
        let game = try Four.playing("""
            . . . . . . .
            . . . . . . .
            . . . . . . .
            . . . . . . O
            . . . . . . O
            . X X X . . O
            """)
        // p1 to move: p2 threatens four in column 6, but p1 wins at once at 0 or 4.
        #expect(game.turn == "p1")
        let hint = try #require(game.hints(for: .spectator, budget: Self.hintBudget).first?.1.to)
        #expect(["/columns/0", "/columns/4"].contains(hint), "\(hint)")
    }

    @Test func aFinishedGameHintsNothing() throws {
        var game = try Four.started()
        game.expectAccepted(.resign, by: "p1")
        let hints = game.hints(for: .spectator, budget: Self.hintBudget)
        #expect(hints.first?.1 == Hint(from: nil, to: nil))
    }

    static func expectHint(_ game: Four, _ to: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let hints = game.hints(for: .spectator, budget: Self.hintBudget)
        let (key, hint) = try #require(hints.first, sourceLocation: sourceLocation)
        #expect(hint == Hint(from: nil, to: to), sourceLocation: sourceLocation)
        #expect(game.hintPlan(for: HintContext(viewer: .spectator, isPlayer: false)) == .search(key),
                "the first hint is not the asked position's", sourceLocation: sourceLocation)
    }

    // MARK: Section 4's invariant over random games

    /// Random seeded games, each ended and reset several times: every accepted command's diff,
    /// applied by the independent RFC 6902 apply to the spectators' state before, gives exactly
    /// the state after; a refused one changes nothing. Half the seeds play careless (any column,
    /// full ones too), half careful (never completing a four while another column is left), so
    /// games end by four, by resigning and by a full board.
    @Test func randomGamesDiffsPatchTheSpectatorsState() throws {
        var tally: [String: Int] = [:]
        nextSeed: for seed in UInt64(1)...120 {
            var rng = SplitMix64(seed: seed &* 0x9E37)
            let careful = seed % 2 == 0
            let options: JSON = rng.next() % 2 == 0 ? .object([:]) : .object(["first": "p2"])
            var game = try Four(stored: try Four.storedOptions(creating: options, random: &rng), time: 500)
            var before = game.state(for: .spectator).encoded
            var startTime = 0.0
            for step in 0..<160 {
                let time = 1_000 + Double(step) * 1.75
                let (command, player) = Self.randomGesture(on: game, careful: careful, &rng)
                let wins = if case .move(let column) = command, game.turn == player,
                              let mover = TwoSeatTurns.names.firstIndex(of: player) {
                    FourPosition(columns: game.columns, toMove: mover).isWinningMove(column)
                } else { false }
                let result = game.apply(command, context: MoveContext(player: player, time: time))
                let after = game.state(for: .spectator).encoded
                let gesture = "seed \(seed) step \(step): \(player) \(command)"
                switch result {
                case .failure:
                    tally["refused", default: 0] += 1
                    guard after == before else {
                        Issue.record("\(gesture) was refused but changed the state")
                        continue nextSeed
                    }
                case .success(let outcome):
                    guard outcome.views.map(\.viewers) == [[.spectator]], !outcome.fullDiff.isEmpty else {
                        Issue.record("\(gesture): views \(outcome.views)")
                        continue nextSeed
                    }
                    let ops = outcome.fullDiff.encodedOps
                    do {
                        let patched = try applyJSONPatch(ops, to: before)
                        guard jsonValuesEqual(patched, try parseJSONText(after)) else {
                            Issue.record("\(gesture): ops \(ops) on \(before) do not give \(after)")
                            continue nextSeed
                        }
                    } catch {
                        Issue.record("\(gesture): ops \(ops) do not apply to \(before): \(error)")
                        continue nextSeed
                    }
                    let names = outcome.events.map(\.name)
                    let name = names.first ?? "drop"
                    tally[name == "won" ? "won-\(outcome.events[0].fields[1].value.stringValue ?? "")" : name, default: 0] += 1
                    if name == "start" || name == "reset" { startTime = time }
                    // The game's own four agrees with the search's.
                    #expect((names == ["won"]) == wins || command == .resign, "\(gesture): events \(names), four \(wins)")
                    if let event = outcome.events.first, name == "won" || name == "drawn" {
                        let fields = JSON.object(event.fields)
                        #expect(fields["moves"] == game.state(for: .spectator)["moves"], "\(gesture)")
                        #expect(fields["seconds"] == .int(Int(time - startTime)), "\(gesture)")
                    }
                }
                before = after
            }
        }
        // The generator must reach every kind of move, or the test proves little.
        for kind in ["start", "drop", "won-four", "won-resign", "drawn", "reset", "refused"] {
            #expect(tally[kind, default: 0] >= 5, "\(kind): \(tally)")
        }
    }

    /// A gesture for the game as it stands, and who sends it.
    static func randomGesture(on game: Four, careful: Bool, _ rng: inout SplitMix64) -> (Four.Command, String) {
        func roll(_ n: UInt64) -> Int { Int(rng.next() % n) }
        let seats = ["p1", "p2"]
        let anyone = seats[roll(2)]
        if game.status == .waiting {
            return roll(4) == 0 ? (Self.tap(roll(7)), anyone) : (.start, "server")
        }
        if game.isOver {
            switch roll(10) {
            case 0: return (Self.tap(roll(7)), anyone)
            case 1: return (.resign, anyone)
            default: return (.reset, anyone)
            }
        }
        let mover = game.turn ?? "p1"
        // Careful games resign less often, so that more of them fill the board.
        switch roll(careful ? 400 : 100) {
        case 0..<2: return (.resign, anyone)
        case 2..<4: return (.reset, anyone)
        case 4..<6: return (.unsupported(roll(2) == 0 ? "drag" : "undo"), anyone)
        case 6..<10: return (Self.tap(roll(7)), mover == "p1" ? "p2" : "p1")
        default: break
        }
        // Read from a message, as the server would, in one of its three forms.
        func message(_ column: Int) -> Four.Command {
            let row = roll(6)
            let target = [("/columns/\(column)"), "/columns/\(column)/\(row)", "/\(column)"][roll(3)]
            let type = roll(2) == 0 ? "tap" : "double-tap"
            return (try? Four.read(type, .object(["type": .string(type), "target": .string(target)])).command) ?? .resign
        }
        guard careful else { return (message(roll(7)), mover) }
        let position = FourPosition(columns: game.columns, toMove: mover == "p1" ? 0 : 1)
        let open = (0..<7).filter { position.canPlay($0) }
        let safe = open.filter { !position.isWinningMove($0) }
        let choices = safe.isEmpty ? open : safe
        return (message(choices[roll(UInt64(choices.count))]), mover)
    }

    // MARK: Helpers

    static let emptyBoard = Array(repeating: ". . . . . . .", count: 6).joined(separator: "\n")

    static func won(by seat: String, reason: String, moves: Int, seconds: Int) -> GameEvent {
        GameEvent(name: "won", fields: [(key: "by", value: .string(seat)), (key: "reason", value: .string(reason)),
                                        (key: "moves", value: .int(moves)), (key: "seconds", value: .int(seconds))])
    }

    /// Four distinct cells, each one step from the last in the same direction.
    static func isStraight(_ cells: [[Int]]) -> Bool {
        guard cells.count == 4 else { return false }
        let dc = cells[1][0] - cells[0][0], dr = cells[1][1] - cells[0][1]
        guard abs(dc) <= 1, abs(dr) <= 1, dc != 0 || dr != 0 else { return false }
        return (1..<4).allSatisfy { cells[$0][0] - cells[$0 - 1][0] == dc && cells[$0][1] - cells[$0 - 1][1] == dr }
    }
}

/// A board drawn as six lines, top row first, seven cells each: `X` p1, `O` p2, `.` empty
/// (spaces between cells are ignored).
fileprivate struct FourPicture {
    /// Each column's discs bottom first, as seats (0: p1, 1: p2).
    var columns: [[Int]] = Array(repeating: [], count: 7)

    init(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = text.split(separator: "\n").map { $0.filter { $0 != " " } }.filter { !$0.isEmpty }
        guard lines.count == 6, lines.allSatisfy({ $0.count == 7 }) else {
            Issue.record("a picture is six lines of seven cells:\n\(text)", sourceLocation: sourceLocation)
            return
        }
        for column in 0..<7 {
            for row in 0..<6 {
                let cell = Array(lines[5 - row])[column]
                switch cell {
                case "X", "O":
                    guard columns[column].count == row else {
                        Issue.record("a disc floats at column \(column) row \(row)", sourceLocation: sourceLocation)
                        return
                    }
                    columns[column].append(cell == "X" ? 0 : 1)
                case ".": break
                default: Issue.record("bad cell \(cell)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// Columns to drop into, one a disc, so that the seats alternate from `first` (0 or 1) and
    /// every column fills bottom first; nil if the discs can't be played so.
    func dropOrder(first: Int) -> [Int]? {
        let total = columns.reduce(0) { $0 + $1.count }
        var heights = Array(repeating: 0, count: 7)
        var order: [Int] = []
        var dead: Set<[Int]> = []
        func search() -> Bool {
            if order.count == total { return true }
            if dead.contains(heights) { return false }
            let seat = (first + order.count) % 2
            for column in 0..<7 where heights[column] < columns[column].count && columns[column][heights[column]] == seat {
                heights[column] += 1
                order.append(column)
                if search() { return true }
                heights[column] -= 1
                order.removeLast()
            }
            dead.insert(heights)
            return false
        }
        return search() ? order : nil
    }
}

fileprivate extension FourInARow {
    /// A game with `first`, created at 0 and started at `time`.
    static func started(first: String = "p1", time: Double = 0, sourceLocation: SourceLocation = #_sourceLocation) throws -> FourInARow {
        var game = try FourInARow(stored: .object(["first": .string(first)]), time: 0)
        try game.accepted(.start, by: "server", time: time, sourceLocation: sourceLocation)
        return game
    }

    /// A game started at `time` with the picture's discs dropped in an order that alternates the
    /// seats from `first`; none of them may end the game.
    static func playing(_ picture: String, first: String = "p1", time: Double = 0,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> FourInARow {
        var game = try started(first: first, time: time, sourceLocation: sourceLocation)
        let firstSeat = first == "p1" ? 0 : 1
        let order = try #require(FourPicture(picture, sourceLocation: sourceLocation).dropOrder(first: firstSeat),
                                 "the picture can't be played with \(first) first", sourceLocation: sourceLocation)
        for (index, column) in order.enumerated() {
            let seat = TwoSeatTurns.names[(firstSeat + index) % 2]
            let outcome = try game.accepted(.move(column), by: seat, time: time, sourceLocation: sourceLocation)
            try #require(outcome.events.isEmpty, "the picture's disc \(index) ended the game", sourceLocation: sourceLocation)
        }
        #expect(game.picture == FourPicture.normalized(picture), sourceLocation: sourceLocation)
        return game
    }

    /// The winning four's cells, as the state's `line` names them.
    var line: [[Int]]? { turns.line.arrayValue?.map { $0.arrayValue?.compactMap(\.intValue) ?? [] } }

    /// The board from the spectators' state, drawn as a picture.
    var picture: String {
        let columns = (state(for: .spectator)["columns"]?.arrayValue ?? []).map { $0.arrayValue ?? [] }
        return (0..<6).reversed().map { row in
            columns.map { column in
                row < column.count ? (column[row] == "p1" ? "X" : column[row] == "p2" ? "O" : "?") : "."
            }.joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// Applies a command that must be accepted: one diff for every viewer, which the independent
    /// RFC 6902 apply turns from the spectators' state before into exactly the state after.
    @discardableResult
    mutating func expectAccepted(_ command: Command, by player: String, time: Double = 0,
                                 sourceLocation: SourceLocation = #_sourceLocation) -> GameOutcome? {
        let before = state(for: .spectator).encoded
        switch apply(command, context: MoveContext(player: player, time: time)) {
        case .failure(let error):
            Issue.record("expected \(player) \(command) to be accepted, got \(error)", sourceLocation: sourceLocation)
            return nil
        case .success(let outcome):
            let after = state(for: .spectator).encoded
            #expect(outcome.views.map(\.viewers) == [[.spectator]], sourceLocation: sourceLocation)
            #expect(!outcome.fullDiff.isEmpty, "accepted with no ops", sourceLocation: sourceLocation)
            #expect(state(for: .seat("p1")) == state(for: .spectator) && state(for: .seat("p2")) == state(for: .spectator),
                    sourceLocation: sourceLocation)
            #expect(state(for: .spectator).objectPairs?.map(\.key)
                == ["columns", "rows", "turn", "first", "status", "winner", "line", "moves"], sourceLocation: sourceLocation)
            let ops = outcome.fullDiff.encodedOps
            do {
                let patched = try applyJSONPatch(ops, to: before)
                #expect(jsonValuesEqual(patched, try parseJSONText(after)),
                        "\(player) \(command): ops \(ops) on \(before) do not give \(after)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(player) \(command): ops \(ops) do not apply to \(before): \(error)", sourceLocation: sourceLocation)
            }
            return outcome
        }
    }

    /// `expectAccepted`, whose outcome the test requires.
    @discardableResult
    mutating func accepted(_ command: Command, by player: String, time: Double = 0,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> GameOutcome {
        let outcome = expectAccepted(command, by: player, time: time, sourceLocation: sourceLocation)
        return try #require(outcome, sourceLocation: sourceLocation)
    }

    /// Applies a command that must be refused with this code, rule (and message), and checks nothing changed.
    mutating func expectRefused(_ command: Command, by player: String, _ code: GameError.Code = .illegalMove, rule: String,
                                message: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = self
        let beforeState = state(for: .spectator).encoded
        switch apply(command, context: MoveContext(player: player, time: 0)) {
        case .success(let outcome):
            Issue.record("expected \(player) \(command) to be refused, got \(outcome.fullDiff.encodedOps)",
                         sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == code && error.rule == rule, "got \(error)", sourceLocation: sourceLocation)
            if let message {
                #expect(error.message == message, sourceLocation: sourceLocation)
            }
        }
        #expect(self == before && state(for: .spectator).encoded == beforeState, "a refused command changed the game",
                sourceLocation: sourceLocation)
    }

    /// The game is won by `seat` with this line (in this order or reversed), nobody to move.
    func expectWon(by seat: String, line expected: [[Int]], sourceLocation: SourceLocation = #_sourceLocation) {
        let state = state(for: .spectator)
        #expect(state["status"] == "won" && state["winner"] == .string(seat) && state["turn"] == .null,
                "\(state.encoded)", sourceLocation: sourceLocation)
        #expect(line == expected || line == expected.reversed(), "line \(line ?? [])", sourceLocation: sourceLocation)
        #expect(state["line"] == .array((line ?? []).map { .array($0.map(JSON.int)) }), sourceLocation: sourceLocation)
        // Every cell of the line holds the winner's disc.
        let columns = (state["columns"]?.arrayValue ?? []).map { $0.arrayValue ?? [] }
        for cell in expected {
            #expect(columns[cell[0]].count > cell[1] && columns[cell[0]][cell[1]] == .string(seat), "\(cell)",
                    sourceLocation: sourceLocation)
        }
        #expect(isOver && turn == nil, sourceLocation: sourceLocation)
    }
}

fileprivate extension FourPicture {
    /// A picture with single spaces between cells and no blank lines.
    static func normalized(_ text: String) -> String {
        text.split(separator: "\n").map { $0.filter { $0 != " " } }.filter { !$0.isEmpty }
            .map { $0.map(String.init).joined(separator: " ") }.joined(separator: "\n")
    }
}
