import Foundation

/// One game created, joined or watched, on a WebSocket connection of its own (a connection is in
/// at most one game, PROTOCOL section 3). It keeps the game's state for the app and survives the
/// network by itself (see `GameFollower` for the guarantees).
///
/// Its fields are readable without `await` from any thread; they are a copy that the session's
/// actor replaces at each change.
public final class GameSession: Sendable {
    let driver: SessionDriver
    let outputs: SessionOutputs

    init(driver: SessionDriver, outputs: SessionOutputs) {
        self.driver = driver
        self.outputs = outputs
    }

    // MARK: What the session holds

    /// The game id (for a created game, once `created` has arrived).
    public var game: String? { outputs.view.withLock { $0.game } }
    /// The game token (players): share it to let someone join.
    public var token: String? { outputs.view.withLock { $0.token } }
    /// The watch key of a game watched by link (PROTOCOL section 19).
    public var key: String? { outputs.view.withLock { $0.key } }
    public var kind: String? { outputs.view.withLock { $0.kind } }
    /// `player` or `spectator`.
    public var role: String { outputs.view.withLock { $0.role } }
    /// This connection's player id or seat (`p1`, ...); nil for spectators.
    public var you: String? { outputs.view.withLock { $0.you } }
    /// The seq of `state`; nil before the first state.
    public var seq: Int? { outputs.view.withLock { $0.seq } }
    /// The current state; nil before the first snapshot.
    public var state: JSONValue? { outputs.view.withLock { $0.state } }
    public var status: SessionStatus { outputs.view.withLock { $0.status } }
    /// Whether the state's `status` says the game has ended (won, drawn, a race finished).
    public var ended: Bool { outputs.view.withLock { $0.ended } }
    /// The latest `joined` as the server sent it: the game's options (`delay`, `bots`, `clock`),
    /// its seats and names, and the server's `now`. Nil before the first.
    public var joined: JSONValue? { outputs.view.withLock { $0.joined } }
    /// The server's time now, as this device's clock and the offset learnt from the latest
    /// `joined`'s `now` tell it (section 17: a running clock shows `clocks[running] - (now - since)`).
    /// Nil before the first `joined`.
    public func serverNow() -> Date? {
        outputs.view.withLock { $0.serverOffset }.map { Date().addingTimeInterval($0) }
    }
    /// Why the session ended for good; nil while it lives. The streams end at the same moment.
    public var end: SessionEnd? { outputs.view.withLock { $0.finished } }
    /// The seq and the state together, read at one instant (nil before the first state).
    public var current: (seq: Int, state: JSONValue)? {
        outputs.view.withLock { v in v.seq.flatMap { seq in v.state.map { (seq, $0) } } }
    }

    /// The current state decoded as a game's typed state: `try session.decodedState(FourInARowState.self)`.
    public func decodedState<T: Decodable>(_ type: T.Type) throws -> T? {
        try state?.decode(type)
    }

    // MARK: Streams

    /// Every change from now on, in seq order, starting with the latest one if there is a state;
    /// it ends when the session closes. Subscribe before `ready()` to see every state from the
    /// first (a replay's every seq).
    public var changes: AsyncStream<StateChange> { outputs.changes.subscribe() }

    /// The states of `changes`.
    public var states: AsyncMapSequence<AsyncStream<StateChange>, JSONValue> {
        outputs.changes.subscribe().map(\.state)
    }

    /// `event` messages from now on (`won`, `drawn`, `start`, `reset`, ...).
    public var events: AsyncStream<JSONValue> { outputs.events.subscribe() }
    /// `chat` lines from now on (each once, also across re-joins).
    public var chat: AsyncStream<JSONValue> { outputs.chat.subscribe() }
    /// `presence` messages from now on.
    public var presence: AsyncStream<JSONValue> { outputs.presence.subscribe() }
    /// Any other message of the game (`hint`, ...).
    public var messages: AsyncStream<JSONValue> { outputs.messages.subscribe() }
    /// Errors the server sent without an id, and refused sign-ins.
    public var errors: AsyncStream<BoardcastError> { outputs.errors.subscribe() }
    /// The connection's status, starting with the current one.
    public var statuses: AsyncStream<SessionStatus> { outputs.statuses.subscribe() }

    /// Waits until the first create, join or watch has succeeded (the state is then held).
    /// - Throws: the server's refusal (`not-found`, `forbidden`, ...), or `closed`.
    public func ready() async throws {
        try await driver.ready()
    }

    /// Waits for a state for which `predicate` holds (the current one first).
    /// - Throws: `closed` if the session closes first.
    @discardableResult
    public func until(_ predicate: @Sendable (JSONValue) -> Bool) async throws -> JSONValue {
        for await change in changes {
            if predicate(change.state) { return change.state }
        }
        throw BoardcastError.closed()
    }

    // MARK: Commands

    /// The answer to a command: its id, and the seq of the diff it caused.
    public struct CommandResult: Sendable, Equatable {
        public let id: String
        public let seq: Int?
    }

    /// Sends a game command (PROTOCOL sections 5, 6, 13, 16) and waits for its ack.
    ///
    /// Sent exactly once across reconnections: if the connection drops before the answer, it is
    /// sent again with the same id after the re-join. `basedOn` is the seq of the state the
    /// command was chosen from (default: the session's seq now); if the server has shown a newer
    /// seq, the command is refused `stale` and never sent: choose again from the new state.
    /// - Throws: `BoardcastError` with the server's code (`illegal-move`, ...), `stale` or `closed`.
    @discardableResult
    public func command(_ body: JSONValue, basedOn: Int? = nil, id: String? = nil) async throws -> CommandResult {
        guard case .object(var members) = body, members["type"]?.stringValue != nil else {
            throw BoardcastError(code: "bad-request", message: "a command is an object with a type")
        }
        members["id"] = nil
        var commandId: String
        if let id { commandId = id } else { commandId = await driver.newId() }
        let seq = try await driver.request(id: commandId, body: .object(members), basedOn: basedOn, once: false)
        return CommandResult(id: commandId, seq: seq)
    }

    /// A tap on a target: a pointer such as `/columns/3` or `/stock`.
    @discardableResult
    public func tap(_ target: String, basedOn: Int? = nil) async throws -> CommandResult {
        try await command(["type": "tap", "target": .string(target)], basedOn: basedOn)
    }

    /// A tap on a point of a plane.
    @discardableResult
    public func tap(x: Double, y: Double, basedOn: Int? = nil) async throws -> CommandResult {
        try await command(["type": "tap", "x": .number(x), "y": .number(y)], basedOn: basedOn)
    }

    @discardableResult
    public func doubleTap(_ target: String, basedOn: Int? = nil) async throws -> CommandResult {
        try await command(["type": "double-tap", "target": .string(target)], basedOn: basedOn)
    }

    @discardableResult
    public func doubleTap(x: Double, y: Double, basedOn: Int? = nil) async throws -> CommandResult {
        try await command(["type": "double-tap", "x": .number(x), "y": .number(y)], basedOn: basedOn)
    }

    /// A drag between two pointers (`/tableau/2/4` to `/foundations/0`).
    @discardableResult
    public func drag(from: String, to: String, basedOn: Int? = nil) async throws -> CommandResult {
        try await command(["type": "drag", "from": .string(from), "to": .string(to)], basedOn: basedOn)
    }

    /// A drag between two points of a plane.
    @discardableResult
    public func drag(from: (x: Double, y: Double), to: (x: Double, y: Double), basedOn: Int? = nil) async throws -> CommandResult {
        try await command(
            [
                "type": "drag", "from": ["x": .number(from.x), "y": .number(from.y)],
                "to": ["x": .number(to.x), "y": .number(to.y)],
            ], basedOn: basedOn)
    }

    /// What a shake of the phone sends: a new deal, a cleared plane, a new game once one ended.
    @discardableResult
    public func reset(options: JSONValue? = nil, basedOn: Int? = nil) async throws -> CommandResult {
        var body: [String: JSONValue] = ["type": "reset"]
        if let options { body["options"] = options }
        return try await command(.object(body), basedOn: basedOn)
    }

    @discardableResult
    public func undo(basedOn: Int? = nil) async throws -> CommandResult {
        try await command(["type": "undo"], basedOn: basedOn)
    }

    @discardableResult
    public func resign(basedOn: Int? = nil) async throws -> CommandResult {
        try await command(["type": "resign"], basedOn: basedOn)
    }

    /// Chat (PROTOCOL section 15). Never sent twice: a line whose answer was lost with the
    /// connection is refused `disconnected` (the server would post it again); a line said while
    /// disconnected goes out after the re-join.
    /// - Parameter to: `players` or `spectators` (default: the sender's own room).
    @discardableResult
    public func say(_ text: String, to room: String? = nil) async throws -> CommandResult {
        var body: [String: JSONValue] = ["type": "say", "text": .string(text)]
        if let room { body["to"] = .string(room) }
        let id = await driver.newId()
        // Chat is not a move: no staleness check (a line may follow any state).
        let seq = try await driver.request(id: id, body: .object(body), basedOn: Int.max, once: true)
        return CommandResult(id: id, seq: seq)
    }

    /// A hint (PROTOCOL sections 5, 12, 16): the `hint` message (`from`, `to`, maybe
    /// `winnable`), or nil if none came.
    public func hint() async throws -> JSONValue? {
        try await driver.hint()
    }

    /// The board drawn as text (PROTOCOL section 7): the lines of `show`.
    public func show() async throws -> [String] {
        try await driver.show()
    }

    /// Mutes a spectator (`s3`) in this game (PROTOCOL section 15).
    public func mute(_ who: String) async throws {
        let id = await driver.newId()
        _ = try await driver.request(id: id, body: ["type": "mute", "who": .string(who)], basedOn: Int.max, once: false)
    }

    // MARK: Life

    /// Leaves the game (a `leave` when connected) and closes the session.
    public func leave() async {
        await driver.feed(.leave)
        await driver.finished()
    }

    /// Closes the session: its connection closes, unanswered commands are refused `closed`,
    /// the streams end. Nothing reconnects after it.
    public func close() async {
        await driver.feed(.close)
    }

    /// Lets go of the connection without leaving the game: for an iOS app going to the
    /// background (call it from `scenePhase` `.background`). Commands sent and not yet answered
    /// are kept and sent again with their ids after `resume()`.
    public func suspend() async {
        await driver.feed(.suspend)
    }

    /// Connects again after `suspend()` and catches up from the held state with `since`.
    public func resume() async {
        await driver.feed(.resume)
    }
}
