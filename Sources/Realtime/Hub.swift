import Core
import Crypto
import Foundation
import Logging

/// Where accepted commands go to become durable. `submit` never waits for disk;
/// the hub hears back through `committed(upTo:)`.
public protocol CommitSink: AnyObject {
    func submit(_ batch: StoreBatch) -> UInt64
}

/// The protocol's logic for every connection and game, with no sockets: it reacts
/// to what connections send and tells a `Transport` what to send back.
///
/// Confined to one thread (the lws service thread in the server), so it needs no locks.
public final class Hub {
    private let transport: any Transport
    private let sink: (any CommitSink)?
    private let metrics: ServerMetrics
    private let logger: Logger
    private let clock: @Sendable () -> Double
    private var random = SystemRandomNumberGenerator()

    private var connections: [ConnectionID: ClientState] = [:]
    private var rooms: [String: GameRoom] = [:]
    private var lobbyFollowers: Set<ConnectionID> = []
    private var lobbyDirty = false
    private var lobbyCache: OutFrame?
    private var lastLobbySent = -Double.infinity
    private var committed: UInt64 = 0

    static let rateLimit = 100.0

    final class ClientState {
        var game: String?
        var bucket: TokenBucket

        init(now: Double) { bucket = TokenBucket(capacity: Hub.rateLimit, perSecond: Hub.rateLimit, now: now) }
    }

    public init(transport: any Transport, sink: (any CommitSink)?, metrics: ServerMetrics, logger: Logger,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.transport = transport
        self.sink = sink
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
    }

    public var gameCount: Int { rooms.count }

    // MARK: Connection events

    public func connectionOpened(_ id: ConnectionID, query: [String: String]) {
        connections[id] = ClientState(now: clock())
        metrics.connections.increment()
        metrics.connectionsOpened.increment()
        logger.info("connection opened", metadata: ["conn": "\(id)"])
        if let game = query["watch"] {
            handle(id, ClientRequest(id: nil, command: .watch(game: game, since: nil, replay: false)))
        } else if let game = query["game"], let token = query["token"] {
            handle(id, ClientRequest(id: nil, command: .join(game: game, token: token, since: nil)))
        }
    }

    public func connectionClosed(_ id: ConnectionID) {
        guard connections[id] != nil else { return }
        leaveGame(id)
        connections[id] = nil
        lobbyFollowers.remove(id)
        metrics.connections.decrement()
        logger.info("connection closed", metadata: ["conn": "\(id)"])
    }

    public func connectionReceived(_ id: ConnectionID, text: [UInt8]) {
        guard admitFrame(id) else { return }
        switch ClientMessageParser.parse(text) {
        case .request(let request): handle(id, request)
        case .failure(let error, let requestID): reply(id, error: error, requestID: requestID)
        }
    }

    public func connectionReceivedBinary(_ id: ConnectionID) {
        guard admitFrame(id) else { return }
        reply(id, error: .bad("binary frames are not part of the protocol: send text"), requestID: nil)
    }

    /// Counts a frame against the connection's rate limit; a frame over it is answered
    /// `rate-limited` unread (so its error carries no id).
    private func admitFrame(_ id: ConnectionID) -> Bool {
        guard let client = connections[id] else { return false }
        metrics.messagesIn.increment()
        guard client.bucket.take(now: clock()) else {
            reply(id, error: ProtocolError(.rateLimited, "over \(Int(Hub.rateLimit)) frames a second"), requestID: nil)
            return false
        }
        return true
    }

    /// Storage made every ticket up to this one durable: release what waited for it.
    public func committed(upTo ticket: UInt64) {
        guard ticket > committed else { return }
        committed = ticket
        for room in rooms.values where room.hasWaitingOutput { release(room) }
    }

    /// Periodic work: merged presence and lobby updates.
    public func tick() {
        for room in rooms.values where room.presenceDirty {
            room.presenceDirty = false
            let frame = OutFrame(ServerMessage.presence(game: room.id, players: room.playerCount,
                                                        spectators: room.spectatorCount))
            room.enqueue(.toMany(Array(room.members.keys), frame))
            release(room)
            lobbyChanged()
        }
        let now = clock()
        if lobbyDirty && !lobbyFollowers.isEmpty && now - lastLobbySent >= 1 {
            lobbyDirty = false
            lastLobbySent = now
            let frame = lobbyFrame()
            for follower in lobbyFollowers { deliver(frame, to: follower) }
        }
    }

    // MARK: HTTP views

    public func lobbyJSON() -> String { ServerMessage.lobbyArray(lobbyEntries()) }

    /// Something the lobby shows changed: followers hear of it on the next tick.
    private func lobbyChanged() {
        lobbyDirty = true
        lobbyCache = nil
    }

    /// The lobby message, encoded once per change however often clients ask for it.
    private func lobbyFrame() -> OutFrame {
        if let lobbyCache { return lobbyCache }
        let frame = OutFrame(ServerMessage.lobby(lobbyEntries()))
        lobbyCache = frame
        return frame
    }

    func lobbyEntries() -> [LobbyEntry] {
        rooms.values.map(\.lobbyEntry).sorted { ($0.updated, $0.game) > ($1.updated, $1.game) }
    }

    // MARK: Requests

    func handle(_ id: ConnectionID, _ request: ClientRequest) {
        switch request.command {
        case .create(let kind, let options): create(id, kind: kind, options: options, requestID: request.id)
        case .join(let game, let token, let since):
            enter(id, game: game, token: token, since: since, replay: false, requestID: request.id)
        case .watch(let game, let since, let replay):
            enter(id, game: game, token: nil, since: since, replay: replay, requestID: request.id)
        case .leave: leave(id, requestID: request.id)
        case .list(let follow): list(id, follow: follow, requestID: request.id)
        case .show: show(id, requestID: request.id)
        case .hint: hint(id, requestID: request.id)
        case .gesture(let type, let message): gesture(id, type: type, message: message, requestID: request.id)
        }
    }

    private func create(_ id: ConnectionID, kind: GameKind, options: JSON, requestID: JSON?) {
        let now = clock()
        let game: AnyGame
        let storedOptions: JSON
        do {
            (game, storedOptions) = try AnyGame.create(kind: kind, options: options, time: now, random: &random)
        } catch {
            reply(id, error: error, requestID: requestID)
            return
        }
        let token = Secrets.token(using: &random)
        var gameID = Secrets.gameID(using: &random)
        while rooms[gameID] != nil { gameID = Secrets.gameID(using: &random) }
        let room = GameRoom(id: gameID, game: game, tokenHash: Secrets.hash(token), options: storedOptions, created: now)
        rooms[gameID] = room
        metrics.games.set(Double(rooms.count))
        lobbyChanged()
        if let sink { room.noteTicket(sink.submit(StoreBatch(games: [room.storedGame]))) }
        logger.info("game created", metadata: ["game": "\(gameID)", "kind": "\(kind.rawValue)", "conn": "\(id)"])
        // The token is handed out only once the game is durable (the outbox waits for its ticket).
        leaveGame(id)
        room.enqueue(.to(id, OutFrame(ServerMessage.created(game: gameID, token: token))))
        admit(id, to: room, asPlayer: true, since: nil, replay: false, requestID: requestID)
    }

    private func enter(_ id: ConnectionID, game gameID: String, token: String?, since: Int?, replay: Bool,
                       requestID: JSON?) {
        guard let room = rooms[gameID] else {
            reply(id, error: ProtocolError(.notFound, "no game \(gameID)"), requestID: requestID)
            return
        }
        if let token, !Secrets.matches(token, hash: room.tokenHash) {
            reply(id, error: ProtocolError(.forbidden, "wrong token for \(gameID)"), requestID: requestID)
            return
        }
        leaveGame(id)
        admit(id, to: room, asPlayer: token != nil, since: since, replay: replay, requestID: requestID)
    }

    private func admit(_ id: ConnectionID, to room: GameRoom, asPlayer: Bool, since: Int?, replay: Bool,
                       requestID: JSON?) {
        connections[id]?.game = room.id
        let role: Role = asPlayer ? .player(room.addPlayer(id)) : { room.addSpectator(id); return .spectator }()
        room.enqueue(.to(id, OutFrame(ServerMessage.joined(game: room.id, kind: room.kind, role: role, seq: room.seq))))
        if replay {
            let start = ServerMessage.snapshot(game: room.id, kind: room.kind, seq: 0, state: room.initialState)
            room.enqueue(.to(id, OutFrame(start)))
            for frame in room.diffs(after: 0) { room.enqueue(.to(id, frame)) }
        } else if let since, since <= room.seq {
            for frame in room.diffs(after: since) { room.enqueue(.to(id, frame)) }
        } else {
            let snapshot = ServerMessage.snapshot(game: room.id, kind: room.kind, seq: room.seq, state: room.game.publicState)
            room.enqueue(.to(id, OutFrame(snapshot)))
        }
        if let requestID { room.enqueue(.to(id, OutFrame(ServerMessage.ack(id: requestID, seq: room.seq)))) }
        release(room)
    }

    private func leave(_ id: ConnectionID, requestID: JSON?) {
        guard let gameID = connections[id]?.game, let room = rooms[gameID] else {
            reply(id, error: ProtocolError(.notJoined, "not in a game"), requestID: requestID)
            return
        }
        leaveGame(id)
        room.enqueue(.to(id, OutFrame(ServerMessage.left(game: gameID))))
        if let requestID { room.enqueue(.to(id, OutFrame(ServerMessage.ack(id: requestID, seq: nil)))) }
        release(room)
    }

    /// Takes a connection out of its game; a plane drops the player's selection.
    private func leaveGame(_ id: ConnectionID) {
        guard let gameID = connections[id]?.game, let room = rooms[gameID] else { return }
        connections[id]?.game = nil
        guard case .player(let player)? = room.removeMember(id) else { return }
        dropSelection(of: player, in: room)
    }

    /// A plane forgets a departed player's selection, as a diff with cause `leave`.
    func dropSelection(of player: String, in room: GameRoom) {
        guard case .plane(let plane) = room.game, plane.selectedPlayers.contains(player) else { return }
        let cause: JSON = .object(["type": "leave"])
        _ = apply(.plane(.leave), cause: cause, stored: cause, player: player, in: room, clientID: nil, arrival: nil)
        release(room)
    }

    func adopt(_ room: GameRoom) {
        rooms[room.id] = room
        metrics.games.set(Double(rooms.count))
    }

    private func list(_ id: ConnectionID, follow: Bool?, requestID: JSON?) {
        if follow == true { lobbyFollowers.insert(id) }
        if follow == false { lobbyFollowers.remove(id) }
        let lobby = lobbyFrame()
        // An ack carries the seq of the connection's game whenever it is in one.
        if let room = currentRoom(id) {
            room.enqueue(.to(id, lobby))
            if let requestID { room.enqueue(.to(id, OutFrame(ServerMessage.ack(id: requestID, seq: room.seq)))) }
            release(room)
        } else {
            deliver(lobby, to: id)
            if let requestID { deliver(OutFrame(ServerMessage.ack(id: requestID, seq: nil)), to: id) }
        }
    }

    private func show(_ id: ConnectionID, requestID: JSON?) {
        guard let room = currentRoom(id) else {
            reply(id, error: ProtocolError(.notJoined, "show needs a game: join or watch one"), requestID: requestID)
            return
        }
        for line in room.textBoardFrames { room.enqueue(.to(id, line)) }
        if let requestID { room.enqueue(.to(id, OutFrame(ServerMessage.ack(id: requestID, seq: room.seq)))) }
        release(room)
    }

    private func hint(_ id: ConnectionID, requestID: JSON?) {
        guard let room = currentRoom(id) else {
            reply(id, error: ProtocolError(.notJoined, "hint needs a game: join or watch one"), requestID: requestID)
            return
        }
        guard case .klondike(let klondike) = room.game else {
            reply(id, error: ProtocolError(.unknownType, "plane has no hint"), requestID: requestID, room: room)
            return
        }
        let hint = klondike.hint()
        room.enqueue(.to(id, OutFrame(ServerMessage.hint(from: hint?.from, to: hint?.to))))
        if let requestID { room.enqueue(.to(id, OutFrame(ServerMessage.ack(id: requestID, seq: room.seq)))) }
        release(room)
    }

    private func gesture(_ id: ConnectionID, type: String, message: JSON, requestID: JSON?) {
        let arrival = ContinuousClock.now
        guard let room = currentRoom(id) else {
            do {
                try GestureParser.validateForAnyKind(type: type, message: message)
                reply(id, error: ProtocolError(.notJoined, "\(type) needs a game: create, join or watch one"), requestID: requestID)
            } catch {
                reply(id, error: error, requestID: requestID)
            }
            return
        }
        let parsed: ParsedGesture
        do {
            parsed = try GestureParser.parse(type: type, message: message, kind: room.kind)
        } catch {
            reply(id, error: error, requestID: requestID, room: room)
            return
        }
        guard case .player(let player)? = room.members[id]?.role else {
            reply(id, error: ProtocolError(.forbidden, "spectators cannot \(type)"), requestID: requestID, room: room)
            return
        }
        let clientID = requestID?.encoded
        if let clientID, let seq = room.seqForClientID(clientID) {
            room.enqueue(.to(id, OutFrame(ServerMessage.ack(id: requestID!, seq: seq))))
            release(room)
            return
        }
        switch apply(parsed.command, cause: parsed.cause, stored: parsed.stored, player: player, in: room,
                     clientID: clientID, arrival: arrival) {
        case .success:
            if let requestID { room.enqueue(.to(id, OutFrame(ServerMessage.ack(id: requestID, seq: room.seq)))) }
        case .failure(let error):
            reply(id, error: ProtocolError(error), requestID: requestID, room: room)
        }
        release(room)
    }

    /// Applies one command to a room: the diff and events are queued for every member
    /// and the command goes to storage. Nothing changes if the game refuses it.
    private func apply(_ command: GameCommand, cause: JSON, stored: JSON, player: String, in room: GameRoom,
                       clientID: String?, arrival: ContinuousClock.Instant?) -> Result<Void, GameError> {
        let now = clock()
        let outcome: MoveOutcome
        switch room.game.apply(command, context: MoveContext(player: player, time: now)) {
        case .success(let result): outcome = result
        case .failure(let error): return .failure(error)
        }
        let causeWithBy = JSON.object((cause.objectPairs ?? []) + [("by", .string(player))])
        let frame = room.record(diff: outcome.diff, cause: causeWithBy, clientID: clientID, time: now)
        if let sink {
            let row = StoredCommand(game: room.id, seq: room.seq, command: stored, player: player, clientID: clientID, time: now)
            room.noteTicket(sink.submit(StoreBatch(games: [room.storedGame], commands: [row])))
        }
        room.enqueue(.toMembers(frame, seq: room.seq), arrival: arrival)
        for event in outcome.events {
            room.enqueue(.toMembers(OutFrame(ServerMessage.event(game: room.id, seq: room.seq, event: event)), seq: room.seq))
        }
        lobbyChanged()
        return .success(())
    }

    // MARK: Output

    private func currentRoom(_ id: ConnectionID) -> GameRoom? {
        connections[id]?.game.flatMap { rooms[$0] }
    }

    /// An error goes out behind the connection's earlier replies in its game, if it is in one.
    private func reply(_ id: ConnectionID, error: ProtocolError, requestID: JSON?, room: GameRoom? = nil) {
        metrics.countError(error.code)
        logger.info("refused", metadata: ["conn": "\(id)", "code": "\(error.code.rawValue)", "why": "\(error.message)"])
        let frame = OutFrame(ServerMessage.error(error, id: requestID))
        if let room = room ?? currentRoom(id) {
            room.enqueue(.to(id, frame))
            release(room)
        } else {
            deliver(frame, to: id)
        }
    }

    private func release(_ room: GameRoom) {
        room.release(committed: sink == nil ? .max : committed) { output, arrival in
            switch output {
            case .to(let connection, let frame):
                deliver(frame, to: connection)
            case .toMany(let recipients, let frame):
                broadcast(frame, to: recipients)
            case .toMembers(let frame, let seq):
                broadcast(frame, to: room.recipients(ofSeq: seq))
                if let arrival { metrics.moveLatency.record(ContinuousClock.now - arrival) }
            }
        }
    }

    /// The fan-out loop: the same frame to many connections, counted once.
    private func broadcast(_ frame: OutFrame, to recipients: [ConnectionID]) {
        // Members are live connections (a closed one leaves its game first), so no lookup here.
        for connection in recipients { transport.send(frame, to: connection) }
        metrics.messagesOut.increment(by: Int64(recipients.count))
        metrics.bytesOut.increment(by: Int64(recipients.count * frame.count))
    }

    private func deliver(_ frame: OutFrame, to connection: ConnectionID) {
        guard connections[connection] != nil else { return }
        metrics.messagesOut.increment()
        metrics.bytesOut.increment(by: Int64(frame.count))
        transport.send(frame, to: connection)
    }
}

/// The protocol's rate limit: a bucket of `capacity` frames refilled at `perSecond`.
struct TokenBucket {
    let capacity: Double
    let perSecond: Double
    private var tokens: Double
    private var last: Double

    init(capacity: Double, perSecond: Double, now: Double) {
        self.capacity = capacity
        self.perSecond = perSecond
        tokens = capacity
        last = now
    }

    mutating func take(now: Double) -> Bool {
        tokens = min(capacity, tokens + max(0, now - last) * perSecond)
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

/// Game ids, tokens and token hashes.
enum Secrets {
    private static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// Six characters of [a-z0-9]: short enough to read aloud, 2 billion of them.
    static func gameID(using random: inout some RandomNumberGenerator) -> String {
        String(decoding: (0..<6).map { _ in idAlphabet.randomElement(using: &random)! }, as: UTF8.self)
    }

    /// 128 random bits from the system's secure source, base64url without padding.
    static func token(using random: inout SystemRandomNumberGenerator) -> String {
        var bytes = [UInt8]()
        for _ in 0..<2 {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func matches(_ token: String, hash expected: String) -> Bool {
        let actual = Array(hash(token).utf8)
        let wanted = Array(expected.utf8)
        guard actual.count == wanted.count else { return false }
        return zip(actual, wanted).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
