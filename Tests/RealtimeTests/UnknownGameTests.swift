import Core
import Testing
@testable import Realtime

/// A game the hub has never heard of, written only against `Core.Game`: two seats take turns
/// adding one to their own tally; the first to three wins. `pass` is a command of its own.
private struct Tally: TurnBasedGame {
    enum Command: Sendable, Equatable { case add, pass, start, reset }

    static let kind = "tally"
    static let commandTypes = ["pass"]
    var counts = [0, 0]
    var mover: Int?
    var started = false
    var winner: Int?

    init(stored options: JSON, time: Double) throws(GameError) {
        guard options["target"] == nil else { throw .badRequest("no-target", "tally has no target option") }
    }

    static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON {
        _ = try Tally(stored: options, time: 0)
        return .object([])
    }

    static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON? {
        verb == "pass" ? .object(["type": "pass"]) : nil
    }

    static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<Command> {
        switch type {
        case "tap":
            guard message["target"] == "/mine" else { throw .badRequest("target", "tap /mine") }
            return ReadCommand(.add, cause: .object(["type": "tap", "target": "/mine"]))
        case "pass": return ReadCommand(.pass, cause: .object(["type": "pass"]))
        case "reset": return ReadCommand(.reset, cause: .object(["type": "reset"]))
        default: throw GameError(.unknownType, rule: "unknown-type", "tally has no \(type)")
        }
    }

    func command(for issued: ServerCommand) -> Command? { issued == .start && !started ? .start : nil }

    var seats: [String] { ["p1", "p2"] }
    var turn: String? { mover.map { seats[$0] } }
    var status: GameStatus { winner != nil ? .won : started ? .playing : .waiting }

    func state(for viewer: Viewer) -> JSON {
        .object([("counts", .array(counts.map(JSON.int))), ("turn", turn.map(JSON.string) ?? .null), ("status", .string(status.word))])
    }

    func text(for viewer: Viewer, heading: String) -> [String] { ["\(counts[0]) - \(counts[1])", heading] }

    mutating func apply(_ command: Command, context: MoveContext) -> Result<GameOutcome, GameError> {
        let before = state(for: .spectator)
        switch command {
        case .start:
            started = true
            mover = 0
        case .add, .pass:
            guard let mover, seats[mover] == context.player else { return .failure(.illegal("turn", "not your turn")) }
            if command == .add { counts[mover] += 1 }
            if counts[mover] == 3 {
                winner = mover
                self.mover = nil
            } else {
                self.mover = 1 - mover
            }
        case .reset:
            guard isOver else { return .failure(.illegal("playing", "not over")) }
            self = try! Tally(stored: .object([]), time: 0)
            started = true
            mover = 0
        }
        let after = state(for: .spectator)
        let ops = ["counts", "turn", "status"].filter { before[$0] != after[$0] }.map {
            PatchOp.replace(path: "/" + $0, value: after[$0]!)
        }
        return .success(GameOutcome(Diff(ops), events: winner != nil && command != .reset ? [GameEvent(name: "won")] : []))
    }
}

/// A game with a status word of its own: one tap and it is `tallied`, which is over.
private struct Sprint: Game {
    static let kind = "sprint"
    static let tallied = GameStatus("tallied", phase: .over)
    static var statuses: [GameStatus] { [.playing, tallied] }
    var done = false

    init(stored options: JSON, time: Double) {}
    static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) -> JSON { .object([]) }
    static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<Bool> {
        guard type == "tap" else { throw GameError(.unknownType, rule: "unknown-type", "sprint has no \(type)") }
        return ReadCommand(true, cause: .object(["type": "tap"]))
    }
    mutating func apply(_ command: Bool, context: MoveContext) -> Result<GameOutcome, GameError> {
        guard !done else { return .failure(.illegal("done", "tallied already")) }
        done = true
        return .success(GameOutcome(Diff([.replace(path: "/status", value: "tallied")])))
    }
    var status: GameStatus { done ? Self.tallied : .playing }
    func state(for viewer: Viewer) -> JSON { .object(["status": .string(status.word)]) }
    func text(for viewer: Viewer, heading: String) -> [String] { [heading] }
}

/// Everything the hub gives a game comes to a game it does not know: create, seats and the
/// start, play, spectators, show, shorthand, replay, and rest and reload from storage.
@Suite struct UnknownGameTests {
    private func harness() -> HubHarness {
        var config = Hub.Config(games: GameCatalog(GameCatalog.standard.games + [Tally.self]))
        config.idleSeconds = 60
        return HubHarness(config: config)
    }

    private func types(_ messages: [JSON]) -> [String] { messages.map { $0["type"]?.stringValue ?? "text" } }

    @Test func aGameUnknownToTheHubIsCreatedPlayedWatchedReplayedAndReloaded() throws {
        let h = harness()
        h.open(1)
        h.open(2)
        h.open(3)
        h.send(1, #"{"type":"create","kind":"tally","options":{"target":3}}"#)
        #expect(h.take(1).first?["code"] == "bad-request")
        h.send(1, #"{"type":"create","kind":"tally","id":"c"}"#)
        let created = h.take(1)
        #expect(types(created) == ["created", "joined", "snapshot", "ack"])
        #expect(created[1]["you"] == "p1")
        let game = try #require(created[0]["game"]?.stringValue)
        let token = try #require(created[0]["token"]?.stringValue)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)","id":"j"}"#)
        let joined = h.take(2)
        #expect(types(joined) == ["joined", "snapshot", "diff", "ack"])
        #expect(joined[0]["you"] == "p2")
        #expect(joined[2]["cause"] == .object(["type": "start", "by": "server"]))

        h.send(2, #"{"type":"tap","target":"/mine","id":"early"}"#)
        #expect(h.take(2).last?["code"] == "illegal-move")
        h.send(3, #"{"type":"tap","target":"/mine"}"#)
        #expect(h.take(3).last?["code"] == "forbidden")
        h.send(1, #"{"type":"undo"}"#)
        #expect(h.take(1).last?["code"] == "unknown-type")
        h.send(1, #"{"type":"hint"}"#)
        #expect(h.take(1).last?["code"] == "unknown-type")
        for (player, line) in [(1, #"{"type":"tap","target":"/mine"}"#), (2, "pass"), (1, "tap mine"), (2, "pass"),
                               (1, #"{"type":"tap","target":"/mine"}"#)] {
            h.send(ConnectionID(player), line)
        }
        let seen = h.take(3)
        #expect(types(seen).filter { $0 == "diff" }.count == 5)
        #expect(seen.last { $0["type"] == "event" }?["event"] == "won")
        h.send(3, "show")
        #expect(h.take(3).first == .string("3 - 0"))

        h.send(3, #"{"type":"watch","game":"\#(game)","replay":true}"#)
        let replay = h.take(3)
        #expect(types(replay).prefix(2) == ["joined", "snapshot"])
        #expect(replay[1]["state"]?["counts"] == .array([0, 0]))
        #expect(types(replay).filter { $0 == "diff" }.count == 6)

        for id in [1, 2, 3] { h.close(ConnectionID(id)) }
        h.now += 61
        h.tick()
        #expect(h.hub.liveGameCount == 0)
        h.open(4)
        h.send(4, #"{"type":"watch","game":"\#(game)","id":"w"}"#)
        #expect(h.loads == [game])
        let back = h.take(4)
        #expect(types(back) == ["joined", "snapshot", "ack"])
        #expect(back[1]["seq"] == 6)
        #expect(back[1]["state"]?["status"] == "won")
        let response = try #require(h.http("/api/games/\(game)"))
        #expect(response.status == 200)
        #expect(try JSONText.parse(response.body)["kind"] == "tally")
    }

    @Test func aStatusWordOfItsOwnIsFilteredByItselfAndByItsPhase() throws {
        var config = Hub.Config(games: GameCatalog(GameCatalog.standard.games + [Sprint.self]))
        config.idleSeconds = 60
        let h = HubHarness(config: config)
        h.open(1)
        h.send(1, #"{"type":"create","kind":"sprint"}"#)
        let game = try #require(h.take(1).first?["game"]?.stringValue)
        h.open(2)
        h.now += 1
        let (klondike, _) = h.createKlondike(2)
        func games(_ query: String) throws -> [String] {
            let response = try #require(h.http("/api/games", query: query))
            #expect(response.status == 200, "\(query)")
            return try JSONText.parse(response.body).arrayValue?.compactMap { $0["game"]?.stringValue } ?? []
        }
        #expect(try Set(games("status=playing")) == [game, klondike])
        h.send(1, "tap 1 1")
        #expect(try games("status=tallied") == [game])
        #expect(try games("status=over") == [game])
        #expect(try games("status=playing") == [klondike])
        h.close(1)
        h.close(2)
        h.now += 61
        h.tick()
        #expect(try games("limit=500&status=over") == [game])
        #expect(try games("limit=500&status=tallied") == [game])
    }
}
