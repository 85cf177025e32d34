import Testing
@testable import Core

@Suite struct RaceRulesTests {
    static var homeDeck: [Card] { KlondikeHintTests.homeDeck }

    // MARK: Setting up and starting

    @Test func everyTableStartsFromTheSameDeal() throws {
        let race = try Race(options: RaceOptions(seats: 3, draw: 3, deal: .seed(42), entropy: 5), time: 0)
        let klondike = try Klondike(options: KlondikeOptions(draw: 3, deal: .seed(42), entropy: 0), time: 0)
        #expect(race.seats == ["p1", "p2", "p3"])
        for seat in race.seats {
            #expect(race.table(of: seat)?.publicState == klondike.publicState)
            #expect(race.table(of: seat)?.pile(.stock)?.cards == klondike.pile(.stock)?.cards)
        }
        #expect(race.status == .waiting && !race.isFinished)
    }

    @Test func theStateHasExactlyTheProtocolsKeys() throws {
        let race = try Race(options: RaceOptions(deal: .seed(1), entropy: 0), time: 0)
        let klondike = try Klondike(options: KlondikeOptions(deal: .seed(1), entropy: 0), time: 0)
        #expect(race.publicState.objectPairs?.map(\.key) == ["seats", "status", "tables", "finished"])
        #expect(race.publicState == .object([
            "seats": 2, "status": "waiting",
            "tables": .object(["p1": klondike.publicState, "p2": klondike.publicState]),
            "finished": [],
        ]))
        #expect(race.publicState.encoded.hasPrefix(#"{"seats":2,"status":"waiting","tables":{"p1":{"draw":1,"stock":["??""#))
    }

    @Test func optionsOutOfRangeAreBadRequests() {
        for seats in [-1, 0, 1, 9, 100] {
            #expect(throws: GameError.badRequest("bad-seats", "a race has 2 to 8 seats, not \(seats)")) {
                try Race(options: RaceOptions(seats: seats, deal: .seed(1), entropy: 0), time: 0)
            }
        }
        #expect(throws: GameError.self) { try Race(options: RaceOptions(draw: 2, deal: .seed(1), entropy: 0), time: 0) }
        #expect(throws: GameError.self) { try Race(options: RaceOptions(deal: .deck([]), entropy: 0), time: 0) }
        #expect((try? Race(options: RaceOptions(seats: 8, deal: .seed(1), entropy: 0), time: 0))?.seats.last == "p8")
    }

    @Test func startMovesAWaitingRaceToPlayingOnce() throws {
        var race = try Race(options: RaceOptions(seats: 3, deal: .seed(9), entropy: 0), time: 0)
        // The server issues start; whoever it names as sender does not matter.
        let accepted = race.expectAccepted(.start, by: "server", time: 12)
        let outcome = try #require(accepted)
        #expect(outcome.views == [ViewDiff(viewers: race.viewers, diff: Diff([.replace(path: "/status", value: "playing")]))])
        #expect(outcome.events == [GameEvent(name: "start")])
        #expect(race.status == .playing && race.startTime == 12)
        race.expectRefused(.start, rule: "race-started")
    }

    @Test func aGestureWhileWaitingIsIllegal() throws {
        var race = try Race(options: RaceOptions(deal: .seed(9), entropy: 0), time: 0)
        race.expectRefused(.table(.tap(.stock)), rule: "race-waiting")
        race.expectRefused(.table(.undo), by: "p2", rule: "race-waiting")
        race.expectRefused(.reset(KlondikeResetOptions()), rule: "race-not-finished")
    }

    @Test func aSeatNotInTheRaceIsRefused() throws {
        var race = try Race.started(seats: 2)
        for stranger in ["p3", "p0", "", "spectator", "P1", "p1 "] {
            race.expectRefused(.table(.tap(.stock)), by: stranger, .badRequest, rule: "no-such-seat")
            race.expectRefused(.reset(KlondikeResetOptions()), by: stranger, .badRequest, rule: "no-such-seat")
        }
        #expect(race.table(of: "p3") == nil)
        // The sender is checked before the phase, as bad requests come before illegal moves.
        var waiting = try Race(options: RaceOptions(deal: .seed(9), entropy: 0), time: 0)
        waiting.expectRefused(.table(.tap(.stock)), by: "p9", .badRequest, rule: "no-such-seat")
    }

    // MARK: Playing

    @Test func aGestureActsOnlyOnTheSendersTable() throws {
        var race = try Race.started(seats: 3)
        let untouched = race.table(of: "p1")
        let accepted = race.expectAccepted(.table(.tap(.stock)), by: "p2")
        let outcome = try #require(accepted)
        #expect(race.table(of: "p1") == untouched && race.table(of: "p3") == untouched)
        #expect(race.table(of: "p2")?.moves == 1 && race.table(of: "p2")?.pile(.waste)?.cards.count == 1)
        #expect(outcome.fullDiff.ops.allSatisfy { $0.path.hasPrefix("/tables/p2/") })
        // The spectators and the mover see the card drawn; the rivals see that a card was drawn.
        let card = try #require(race.table(of: "p2")?.pile(.waste)?.cards.last)
        #expect(outcome.views.map(\.viewers) == [[.spectator, .seat("p2")], [.seat("p1"), .seat("p3")]])
        #expect(outcome.fullDiff.encodedOps
            == #"[{"op":"remove","path":"/tables/p2/stock/23"},{"op":"add","path":"/tables/p2/waste/0","value":"\#(card)"},{"op":"replace","path":"/tables/p2/moves","value":1}]"#)
        #expect(outcome.diff(for: .seat("p1"))?.encodedOps
            == #"[{"op":"remove","path":"/tables/p2/stock/23"},{"op":"add","path":"/tables/p2/waste/0","value":"??"},{"op":"replace","path":"/tables/p2/moves","value":1}]"#)
        #expect(outcome.diff(for: .seat("p9")) == nil)
        #expect(outcome.events.isEmpty)
    }

    @Test func aTableResetThroughAGestureIsIllegal() throws {
        var race = try Race.started()
        race.expectRefused(.table(.reset(KlondikeResetOptions())), rule: "race-reset-only")
        race.expectRefused(.table(.reset(KlondikeResetOptions(deal: .seed(3)))), by: "p2", rule: "race-reset-only")
    }

    @Test func klondikesRefusalsComeThrough() throws {
        var race = try Race.started()
        race.expectRefused(.table(.undo), rule: "nothing-to-undo")
        race.expectRefused(.table(.tap(.waste)), by: "p2", rule: "tap-stock-only")
        race.expectRefused(.table(.drag(from: .tableau(9), to: .waste)), .badRequest, rule: "bad-target")
    }

    @Test func undoStepsBackOnlyTheSendersTable() throws {
        var race = try Race.started(seats: 2)
        let dealt = try #require(race.table(of: "p1"))
        race.expectAccepted(.table(.tap(.stock)), by: "p1")
        race.expectAccepted(.table(.tap(.stock)), by: "p2")
        race.expectAccepted(.table(.tap(.stock)), by: "p2")
        let p2 = race.table(of: "p2")
        let accepted = race.expectAccepted(.table(.undo), by: "p1")
        let outcome = try #require(accepted)
        #expect(race.table(of: "p1")?.publicState == dealt.publicState && race.table(of: "p1")?.moves == 0)
        #expect(race.table(of: "p2") == p2)
        #expect(outcome.fullDiff.ops.allSatisfy { $0.path.hasPrefix("/tables/p1/") })
        race.expectRefused(.table(.undo), by: "p1", rule: "nothing-to-undo")
        race.expectAccepted(.table(.undo), by: "p2")
        #expect(race.table(of: "p2")?.moves == 1)
    }

    @Test func aSeatsTableGivesItsHint() throws {
        let race = try Race.started(deal: .deck(Self.homeDeck))
        #expect(race.table(of: "p2")?.hint() == KlondikeHint(from: "/tableau/3/3", to: "/foundations/0"))
    }

    // MARK: Finishing

    @Test func tablesFinishInOrderAndTheLastWinFinishesTheRace() throws {
        var race = try Race.started(seats: 3, deal: .deck(Self.homeDeck), time: 10)
        let first = race.playToWin("p2", time: 70.5)
        // 52 cards home and 24 draws, as Klondike scores the home deck.
        #expect(first == GameEvent(name: "won", fields: [
            (key: "by", value: "p2"), (key: "place", value: 1), (key: "moves", value: 76), (key: "score", value: 625),
            (key: "seconds", value: 60),
        ]))
        #expect(race.finished == ["p2"] && race.status == .playing)
        #expect(race.publicState["finished"] == ["p2"])
        race.expectRefused(.table(.tap(.stock)), by: "p2", rule: "game-won")
        race.expectRefused(.table(.undo), by: "p2", rule: "game-won")
        // The others play on.
        race.expectAccepted(.table(.tap(.stock)), by: "p3", time: 80)
        let second = race.playToWin("p1", time: 100)
        #expect(second?.fields.map(\.key) == ["by", "place", "moves", "score", "seconds"])
        #expect(second?.fields[0].value == "p1" && second?.fields[1].value == 2 && second?.fields[4].value == 90)
        #expect(race.finished == ["p2", "p1"] && race.status == .playing)

        // The last win finishes the race in the same diff.
        var last: RaceOutcome?
        while last == nil, let hint = race.table(of: "p3")?.hint() {
            let gesture: KlondikeCommand = hint.from == "/stock"
                ? .tap(.stock) : .drag(from: try Target.parse(hint.from), to: try Target.parse(hint.to))
            let accepted = race.expectAccepted(.table(gesture), by: "p3", time: 9.5)
            let outcome = try #require(accepted)
            if !outcome.events.isEmpty { last = outcome }
        }
        let outcome = try #require(last)
        #expect(outcome.events.first?.fields[1].value == 3)
        // A clock that went backwards counts as 0 seconds.
        #expect(outcome.events.first?.fields[4].value == 0)
        #expect(outcome.fullDiff.encodedOps.hasSuffix(
            #"{"op":"replace","path":"/tables/p3/status","value":"won"},{"op":"add","path":"/finished/2","value":"p3"},{"op":"replace","path":"/status","value":"finished"}]"#))
        #expect(race.finished == ["p2", "p1", "p3"] && race.status == .finished && race.isFinished)
        #expect(race.publicState["finished"] == ["p2", "p1", "p3"])
    }

    @Test func aRivalsWinIsShownWithItsFoundations() throws {
        var race = try Race.started(deal: .deck(Self.homeDeck))
        race.playToWin("p1")
        let seen = race.publicState(for: .seat("p2"))["tables"]?["p1"]
        #expect(seen == race.table(of: "p1")?.publicState)
        #expect(seen?["status"] == "won")
        #expect(seen?["foundations"]?.arrayValue?.map { $0.arrayValue?.count } == [13, 13, 13, 13])
    }

    // MARK: Reset

    @Test func resetIsRefusedUntilTheRaceIsFinishedThenDealsEveryTableAgain() throws {
        var race = try Race.started(seats: 3, deal: .deck(Self.homeDeck), entropy: 77, time: 0)
        race.expectRefused(.reset(KlondikeResetOptions()), rule: "race-not-finished")
        // A malformed reset is a bad request whatever the phase.
        race.expectRefused(.reset(KlondikeResetOptions(draw: 2)), .badRequest, rule: "bad-draw")
        race.playToWin("p1")
        race.playToWin("p2")
        race.expectRefused(.reset(KlondikeResetOptions()), by: "p1", rule: "race-not-finished")
        race.playToWin("p3")
        #expect(race.isFinished)

        let accepted = race.expectAccepted(.reset(KlondikeResetOptions()), by: "p2", time: 500)
        let outcome = try #require(accepted)
        #expect(outcome.events == [GameEvent(name: "reset")])
        #expect(race.status == .playing && race.finished == [] && race.startTime == 500)
        var stream = SplitMix64(seed: 77)
        let dealt = try Klondike(options: KlondikeOptions(deal: .seed(stream.next() >> 11), entropy: 0), time: 0)
        for seat in race.seats {
            #expect(race.table(of: seat)?.publicState == dealt.publicState)
            #expect(race.table(of: seat)?.pile(.stock)?.cards == dealt.pile(.stock)?.cards)
        }
        // Everyone gets a diff of their own: their table as it is, the rivals' masked.
        #expect(outcome.views.map(\.viewers) == [[.spectator], [.seat("p1")], [.seat("p2")], [.seat("p3")]])
        #expect(outcome.fullDiff.ops.map(\.path) == ["/status", "/tables/p1", "/tables/p2", "/tables/p3", "/finished"])

        // A new race runs as the first: gestures, wins, and a reset with options.
        race.expectAccepted(.table(.tap(.stock)), by: "p3")
        race.expectRefused(.reset(KlondikeResetOptions(deal: .seed(5))), rule: "race-not-finished")
    }

    @Test func resetKeepsOrChangesTheDrawAndDealsTheDealNamed() throws {
        let almostWon = try klondike(KlondikeWinTests.oneCardLeft, draw: 3)
        var race = Race(testTables: [almostWon, almostWon])
        race.expectAccepted(.table(try doubleTap("/tableau/4")), by: "p2")
        race.expectAccepted(.table(try doubleTap("/tableau/4")), by: "p1")
        #expect(race.finished == ["p2", "p1"] && race.isFinished)
        race.expectRefused(.reset(KlondikeResetOptions(deal: .deck(Array(Self.homeDeck.dropLast())))), .badRequest, rule: "deck-missing")
        race.expectAccepted(.reset(KlondikeResetOptions(deal: .deck(Self.homeDeck))))
        #expect(race.table(of: "p1")?.draw == 3 && race.table(of: "p2")?.deal == .deck(Self.homeDeck))

        race = Race(testTables: [almostWon, almostWon, almostWon], phase: .finished, finished: ["p3", "p1", "p2"])
        race.expectAccepted(.reset(KlondikeResetOptions(draw: 1, deal: .seed(5))), by: "p2")
        let five = try Klondike(options: KlondikeOptions(draw: 1, deal: .seed(5), entropy: 0), time: 0)
        for seat in race.seats { #expect(race.table(of: seat)?.publicState == five.publicState) }
    }

    // MARK: Replay

    /// The same commands from the same options give the same race, resets with no seed
    /// included: their deals come from the options' entropy.
    @Test func replayingTheSameCommandsGivesTheSameRace() throws {
        func play(entropy: UInt64) throws -> (Race, [Result<RaceOutcome, GameError>]) {
            var race = try Race(options: RaceOptions(seats: 2, deal: .deck(Self.homeDeck), entropy: entropy), time: 3)
            var results: [Result<RaceOutcome, GameError>] = []
            func send(_ command: RaceCommand, by seat: String, at time: Double) {
                results.append(race.apply(command, context: MoveContext(player: seat, time: time)))
            }
            send(.table(.tap(.stock)), by: "p1", at: 4)
            send(.start, by: "p1", at: 5)
            for round in 0..<3 {
                for seat in race.seats {
                    var time = Double(10 + round * 1000)
                    while let hint = race.table(of: seat)?.hint() {
                        time += 1
                        let gesture: KlondikeCommand = hint.from == "/stock"
                            ? .tap(.stock) : .drag(from: try Target.parse(hint.from), to: try Target.parse(hint.to))
                        send(.table(gesture), by: seat, at: time)
                        if case .failure = results.last { break }
                    }
                    send(.table(.undo), by: seat, at: time)
                }
                send(.reset(KlondikeResetOptions()), by: "p2", at: Double(round * 1000 + 999))
                for _ in 0..<5 { send(.table(.tap(.stock)), by: "p1", at: 1) }
                send(.table(.undo), by: "p1", at: 1)
            }
            return (race, results)
        }
        let (race, results) = try play(entropy: 2024)
        let (again, resultsAgain) = try play(entropy: 2024)
        #expect(race == again)
        #expect(results == resultsAgain)
        #expect(results.count > 100)
        let (other, _) = try play(entropy: 2025)
        #expect(other.table(of: "p1")?.deal != race.table(of: "p1")?.deal)
    }

    // MARK: Text

    @Test func showDrawsEveryTableAsTheViewerMaySeeIt() throws {
        var race = try Race.started(seats: 2, deal: .seed(7))
        race.expectAccepted(.table(.tap(.stock)), by: "p2")
        let p2 = try #require(race.table(of: "p2"))
        let drawn = try #require(p2.pile(.waste)?.cards.last).name

        let spectator = race.textBoard(for: .spectator)
        #expect(spectator[0] == "Race  2 seats  playing")
        #expect(spectator[1] == "p1")
        #expect(Array(spectator[2...]).prefix(race.table(of: "p1")!.textBoard().count) == ArraySlice(race.table(of: "p1")!.textBoard()))
        #expect(spectator.contains("p2") && spectator.joined().contains(drawn))

        let seated = race.textBoard(for: .seat("p1"))
        let rival = try #require(seated.firstIndex(of: "p2"))
        #expect(seated[1] == "p1 (you)" && Array(seated[2..<rival]) == race.table(of: "p1")!.textBoard())
        // The rival's table: no card name at all (its foundations are empty).
        let names = Set(Card.orderedDeck.map(\.name))
        for line in seated[(rival + 1)...] {
            #expect(!line.split(separator: " ").contains { names.contains(String($0)) }, "\(line)")
        }
        #expect(seated[rival + 2].hasPrefix("stock ## (23)   waste ## (1)"))
    }

    @Test func showMarksPlacesAndTheFinishOrder() throws {
        var race = try Race.started(seats: 2, deal: .deck(Self.homeDeck))
        race.playToWin("p2")
        let board = race.textBoard(for: .seat("p1"))
        #expect(board[0] == "Race  2 seats  playing  finished p2")
        #expect(board.contains("p2  place 1"))
        // A rival's foundations are shown as they are.
        #expect(board.contains { $0.hasPrefix("foundations") && $0.split(separator: " ").filter { $0.hasPrefix("K") }.count == 4 })
    }
}
