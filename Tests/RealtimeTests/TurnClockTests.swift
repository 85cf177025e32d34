import Core
import Testing
@testable import Realtime

/// PROTOCOL section 17's arithmetic, fed instants by hand: no clock is read.
@Suite struct TurnClockTests {
    private let option = ClockOption(initial: 300, increment: 5)

    @Test func theClockOptionReadsAnObjectOnlyAndRefusesWhatIsOutOfRange() throws {
        #expect(try ClockOption.read(.object(["clock": .object(["initial": 300, "increment": 5])])) == option)
        #expect(try ClockOption.read(.object(["clock": .object(["initial": 60])])) == ClockOption(initial: 60, increment: 0))
        #expect(try ClockOption.read(.object([:])) == nil)
        // The shorthand's "S+I" is the terminal's: a JSON message that sends it is refused (section 2).
        for bad: JSON in ["300+5", "60", "fast", 300, .object(["initial": "x"]), .object(["increment": 5]),
                          .object(["initial": 9]), .object(["initial": 10801]), .object(["initial": 60, "increment": 181])] {
            #expect(throws: ProtocolError.self, "\(bad.encoded)") { try ClockOption.read(.object(["clock": bad])) }
        }
    }

    @Test func theShorthandsClockAndBotsBecomeTheMessagesObjects() throws {
        let games = GameCatalog.standard
        func options(_ line: String) throws -> JSON? { try Shorthand.message(from: line, games: games).get()["options"] }
        #expect(try options("create four clock=300+5 bot=2")
                == .object(["clock": .object(["initial": 300.0, "increment": 5.0]), "bots": .object(["p2": 2])]))
        #expect(try options("create four clock=60")?["clock"] == .object(["initial": 60.0, "increment": 0]))
        #expect(try options("create race seats=3 bots=1,2")?["bots"] == .object(["p2": 1, "p3": 2]))
        #expect(try options("reset bot=1")?["bots"] == .object(["p2": 1]))
        #expect(try ClockOption.read(try options("create four clock=300+5")!) == option)
        for bad in ["create four clock=fast", "create four clock=60+", "create four bot=x", "create race bots=1,,2",
                    "create four bot=1 bots=1"] {
            #expect(throws: ProtocolError.self, "\(bad)") { try Shorthand.message(from: bad, games: games).get() }
        }
    }

    @Test func aJSONMessageNamesItsBotsByObjectOnly() throws {
        let seats = ["p1", "p2"]
        #expect(try BotSeats.read(.object(["bots": .object(["p2": 2])]), seats: seats, levels: 1...3).json
                == .object(["p2": 2]))
        for bad: JSON in [.object(["bots": 2]), .object(["bots": "2"]), .object(["bot": 2]), .object(["bots": .object(["p2": "x"])])] {
            #expect(throws: ProtocolError.self, "\(bad.encoded)") { try BotSeats.read(bad, seats: seats, levels: 1...3) }
        }
    }

    @Test func aMoveChargesTheMoverTheTimeItTookPlusTheIncrementAndStartsTheOthersClock() {
        var clock = TurnClock(option: option, seats: ["p1", "p2"], at: 1000)
        let start = clock.follow(turnBefore: nil, turnAfter: "p1", wasOver: false, isOver: false, mover: "server", at: 1000)
        #expect(start == [.replace(path: "/clocks/running", value: "p1"),
                          .replace(path: "/clocks/since", value: .string(RFC3339.formatMilliseconds(1_000_000)))])
        #expect(clock.deadline == 1300)
        let move = clock.follow(turnBefore: "p1", turnAfter: "p2", wasOver: false, isOver: false, mover: "p1", at: 1012.25)
        #expect(move.first == .replace(path: "/clocks/p1", value: .int(300_000 - 12_250 + 5_000)))
        #expect(clock.runningSeat == "p2")
        #expect(clock.deadline == 1312.25)
        #expect(clock.state["p1"] == 292_750)
        #expect(clock.state["since"] == .string(RFC3339.formatMilliseconds(1_012_250)))
    }

    @Test func aCommandThatKeepsTheTurnChangesNoClock() {
        var clock = TurnClock(option: option, seats: ["p1", "p2"], at: 0)
        _ = clock.follow(turnBefore: nil, turnAfter: "p1", wasOver: false, isOver: false, mover: "server", at: 0)
        #expect(clock.follow(turnBefore: "p1", turnAfter: "p1", wasOver: false, isOver: false, mover: "p1", at: 3).isEmpty)
        #expect(clock.deadline == 300)
    }

    @Test func runningOutLeavesZeroWithNoIncrementAndStopsTheClock() {
        var clock = TurnClock(option: option, seats: ["p1", "p2"], at: 0)
        _ = clock.follow(turnBefore: nil, turnAfter: "p1", wasOver: false, isOver: false, mover: "server", at: 0)
        // The server notices a little late: the clock shows 0, never less, and gets no increment.
        let ops = clock.follow(turnBefore: "p1", turnAfter: nil, wasOver: false, isOver: true, mover: "server", at: 300.04)
        #expect(ops.first == .replace(path: "/clocks/p1", value: 0))
        #expect(clock.running == nil && clock.deadline == nil)
        #expect(clock.state["running"] == .null)
    }

    @Test func resumeGivesBackTheTimeAFailureTook() {
        var clock = TurnClock(option: option, seats: ["p1", "p2"], at: 0)
        _ = clock.follow(turnBefore: nil, turnAfter: "p1", wasOver: false, isOver: false, mover: "server", at: 0)
        _ = clock.follow(turnBefore: "p1", turnAfter: "p2", wasOver: false, isOver: false, mover: "p1", at: 10)
        // p2 thinks from 10 s; the node dies; the game is loaded again at 500 s.
        #expect(clock.resume(at: 500) == [.replace(path: "/clocks/since", value: .string(RFC3339.formatMilliseconds(500_000)))])
        #expect(clock.deadline == 800)
        #expect(clock.state["p2"] == 300_000)
    }

    @Test func aNewGameAfterTheEndStartsEveryClockAgain() {
        var clock = TurnClock(option: option, seats: ["p1", "p2"], at: 0)
        _ = clock.follow(turnBefore: nil, turnAfter: "p1", wasOver: false, isOver: false, mover: "server", at: 0)
        _ = clock.follow(turnBefore: "p1", turnAfter: nil, wasOver: false, isOver: true, mover: "p1", at: 40)
        let ops = clock.follow(turnBefore: nil, turnAfter: "p2", wasOver: true, isOver: false, mover: "p1", at: 50)
        #expect(ops.count == 1)
        #expect(clock.state["p1"] == 300_000 && clock.state["p2"] == 300_000 && clock.state["running"] == "p2")
    }

    @Test func millisecondsAreWrittenWithThreeDigits() {
        #expect(RFC3339.formatMilliseconds(1_800_000_000_007) == "2027-01-15T08:00:00.007Z")
        #expect(RFC3339.formatMilliseconds(1_800_000_000_250) == "2027-01-15T08:00:00.250Z")
    }
}

/// The hub runs the clocks and bots of section 17 and 18 from one heap of deadlines and one wake.
@Suite struct ClockAndBotHubTests {
    private func create(_ h: HubHarness, _ options: String) -> [JSON] {
        h.open(1)
        h.send(1, #"{"type":"create","kind":"four","options":\#(options)}"#)
        return h.take(1)
    }

    @Test func aClockThatRunsOutEndsTheGameAtItsDeadlineWithNobodyConnected() throws {
        let h = HubHarness()
        let created = create(h, #"{"clock":{"initial":10,"increment":0}}"#)
        let game = try #require(created.first?["game"]?.stringValue)
        let token = try #require(created.first?["token"]?.stringValue)
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        let started = h.now
        #expect(h.wakes.last == started + 10)
        h.close(1)
        h.close(2)
        h.now = started + 9.9
        h.due()
        h.tick()
        #expect(h.hub.liveGameCount == 1, "a running clock keeps its game live")
        h.now = started + 10
        h.due()
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)","since":1}"#)
        let watched = h.take(3)
        let timeout = try #require(watched.first { $0["type"] == "diff" })
        #expect(timeout["cause"] == .object(["type": "timeout", "seat": "p1"]))
        // A catch-up carries diffs, not events: the diff itself says who won and that p1's clock is spent.
        let ops = timeout["ops"]?.arrayValue ?? []
        #expect(ops.contains(.object(["op": "replace", "path": "/winner", "value": "p2"])))
        #expect(ops.contains(.object(["op": "replace", "path": "/clocks/p1", "value": 0])))
    }

    @Test func aBotMovesAtItsPaceOffTheServiceThreadAndItsCauseSaysSo() throws {
        let h = HubHarness()
        h.autoSolve = false
        let created = create(h, #"{"bots":{"p2":1},"first":"p2"}"#)
        #expect(created.map { $0["type"]?.stringValue ?? "" } == ["created", "joined", "snapshot", "diff", "event"])
        #expect(created[1]["bots"] == .object(["p2": 1]))
        #expect(h.pendingSolves.isEmpty, "the bot waits for its pace")
        h.now += 0.3
        h.due()
        guard case .bot(_, _, let seat, let level, _)? = h.pendingSolves.first else {
            Issue.record("no bot job: \(h.pendingSolves)")
            return
        }
        #expect(seat == "p2" && level == 1)
        h.finishSolves()
        let moved = try #require(h.take(1).first { $0["type"] == "diff" })
        #expect(moved["cause"]?["by"] == "p2" && moved["cause"]?["bot"] == true)
    }

    @Test func aResetsBotsSeatTheNextGamesBotsAndARestartKeepsThem() throws {
        let h = HubHarness()
        h.autoSolve = false
        let created = create(h, #"{"bots":{"p2":1}}"#)
        let game = try #require(created.first?["game"]?.stringValue)
        h.send(1, #"{"type":"resign","id":"r"}"#)
        #expect(h.take(1).last?["type"] == "ack")
        h.send(1, #"{"type":"reset","options":{"bots":{"p1":2}},"id":"x"}"#)
        #expect(h.take(1).last?["code"] == "bad-request", "p1 is the creator's seat")
        h.send(1, #"{"type":"reset","options":{"bots":{"p2":3}},"id":"y"}"#)
        #expect(h.take(1).last?["type"] == "ack")
        #expect(h.batches.last?.commands.first?.command["bots"] == .object(["p2": 3]))
        // The reset gives the first move to p2, the other seat: its new bot's.
        h.now += 0.3
        h.due()
        guard case .bot(_, _, "p2", let level, _)? = h.pendingSolves.last else {
            Issue.record("no bot job for p2 after the reset: \(h.pendingSolves)")
            return
        }
        #expect(level == 3)
        // Stored with the reset: a game loaded again seats the same bot.
        let loaded = GameLoader.load(game, from: h.store, games: .standard, windowSize: 128, asOf: h.now.unixTime)
        guard case .loaded(let again) = loaded else {
            Issue.record("not loaded: \(loaded)")
            return
        }
        #expect(again.bots == .object(["p2": 3]))
        #expect(GameRoom(loaded: again, windowSize: 128, now: h.now).bots.level(of: "p2") == 3)
    }

    @Test func botsAndClocksAreCheckedAtCreate() {
        let h = HubHarness()
        h.open(1)
        for (kind, options, code) in [("four", #"{"bots":{"p1":1}}"#, "bad-request"), ("four", #"{"bots":{"p2":4}}"#, "bad-request"),
                                      ("four", #"{"bots":{"p3":1}}"#, "bad-request"), ("klondike", #"{"bots":{"p2":1}}"#, "bad-request"),
                                      ("klondike", #"{"clock":"60+0"}"#, "bad-request"), ("race", #"{"bots":{"p2":1}}"#, "illegal-move")] {
            h.send(1, #"{"type":"create","kind":"\#(kind)","options":\#(options)}"#)
            #expect(h.take(1).first?["code"] == .string(code), "\(kind) \(options)")
        }
    }
}
