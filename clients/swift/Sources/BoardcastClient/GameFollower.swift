/// The state machine of one followed game on one connection at a time: it decides, the shell
/// (`GameSession`) does.
///
/// It does no I/O and reads no clock: it is fed events (a connection opened, a message came, the
/// connection dropped, a timer fired, the app sent a command) with the time they happened, and
/// answers with actions (open a connection, send this, deliver this state, wait this long, settle
/// this command). That keeps every guarantee of PROTOCOL section 21 testable without a network:
///
/// - snapshots and diffs are applied in `seq` order; a diff whose seq is not the held one plus
///   one makes it ask again with `since` (and a diff that does not apply, for a snapshot);
/// - a dropped connection is tried again with jittered backoff (the first try within 1 s, then
///   at most 5 s apart, forever until closed), signs in again, and re-joins with `since` and the
///   seat (or re-watches with `since`);
/// - commands not answered when the connection dropped are sent again with the same `id` after
///   the re-join, so the server applies each once; replies are matched by id;
/// - a command chosen from a state older than the newest the server has shown is refused
///   `stale` before it is sent.
public struct GameFollower: Sendable {
    // MARK: Types

    /// How the follower enters its game.
    public enum Start: Sendable, Equatable {
        /// `create` a game; once `created` names it, later connections `join` it.
        case create(kind: String, options: JSONValue)
        /// `join` as a player (token: the game token; nil for a signed-in user taking their seat back).
        case join(game: String, token: String?, seat: String?)
        /// `watch` as a spectator; `since`/`state`: a state the app already holds; `replay`: from seq 0.
        case watch(game: String, key: String?, replay: Bool)
    }

    public struct Settings: Sendable, Equatable {
        public var backoff: Backoff
        /// Seconds a connection may take to open before it is given up and tried again at once.
        public var connectTimeout: Double
        /// Seconds during which a re-join refused `forbidden` is tried again: our own dropped
        /// connection may still hold the seat until the server notices the drop.
        public var rejoinTimeout: Double
        /// Whether there is a token provider: every connection then signs in first (section 19).
        public var signsIn: Bool
        /// Seconds `leave` waits for its answer before closing anyway.
        public var leaveTimeout: Double

        public init(
            backoff: Backoff = Backoff(), connectTimeout: Double = 5, rejoinTimeout: Double = 120,
            signsIn: Bool = false, leaveTimeout: Double = 2
        ) {
            self.backoff = backoff
            self.connectTimeout = connectTimeout
            self.rejoinTimeout = rejoinTimeout
            self.signsIn = signsIn
            self.leaveTimeout = leaveTimeout
        }
    }

    public enum Timer: Hashable, Sendable {
        /// the wait before reconnection try number N (stale numbers are ignored)
        case reconnect(Int)
        /// connection N still not open
        case connectTimeout(Int)
        /// `leave` was not answered in time
        case leave
    }

    public enum Event: Sendable, Equatable {
        case start
        case opened(connection: Int)
        case received(connection: Int, JSONValue)
        /// a frame that is not a JSON message (the lines of `show`)
        case text(connection: Int, String)
        case closed(connection: Int, reason: String)
        /// the token provider's answer for that connection (nil: none)
        case token(connection: Int, String?)
        case timer(Timer)
        /// A game command from the app. `basedOn`: the seq it was chosen from (nil: the held
        /// seq now). `once`: never sent twice (chat): refused `disconnected` if its answer is lost.
        case command(id: String, body: JSONValue, basedOn: Int?, once: Bool)
        case leave
        case close
        /// let go of the connection (an iOS app going to the background)
        case suspend
        /// connect again and catch up with `since`
        case resume
    }

    public enum LogLevel: String, Sendable {
        case debug, info, warn
    }

    public enum Action: Sendable, Equatable {
        case connect(connection: Int)
        case disconnect(connection: Int)
        case send(connection: Int, JSONValue)
        case fetchToken(connection: Int)
        case schedule(Timer, after: Double)
        case state(StateChange)
        case event(JSONValue)
        case chat(JSONValue)
        case presence(JSONValue)
        case joined(JSONValue)
        case created(JSONValue)
        /// any other message of the game (hint, lobby, ...)
        case message(JSONValue)
        /// plain-text frame
        case text(String)
        /// an error the server sent without an id, or a refused sign-in
        case error(BoardcastError)
        /// a command's answer: the seq of its ack (nil outside a game), or its error
        case complete(id: String, Result<Int?, BoardcastError>)
        /// the first join, watch or create succeeded
        case ready
        case status(SessionStatus)
        /// closed for good: `left`, `closed`, `replaced` or `error`
        case finished(reason: String, error: BoardcastError?)
        case log(LogLevel, String)
    }

    enum Phase: Equatable {
        case idle, connecting, signingIn, joining, ready, waiting, suspended, closed
    }

    enum Exchange: Equatable {
        case auth, join, resync, leave
    }

    struct Pending: Equatable {
        var id: String
        var body: JSONValue
        var basedOn: Int?
        var once: Bool
        var sent: Bool
    }

    // MARK: State

    public let start: Start
    public let settings: Settings
    var random: SplitMix64

    var phase: Phase = .idle
    public private(set) var status: SessionStatus = .connecting
    /// the number of the current (or last) connection
    public private(set) var connection = 0
    /// failed tries since the last connection that got ready
    public private(set) var attempt = 0
    var reconnectNumber = 0
    /// when the connection that was ready was lost
    var lostAt: Double?

    public private(set) var game: String?
    public private(set) var token: String?
    public private(set) var key: String?
    public private(set) var kind: String?
    public private(set) var role: String
    /// this connection's player id or seat (players)
    public private(set) var you: String?
    /// the seq of `state`; nil before the first state
    public private(set) var seq: Int?
    /// the newest seq the server has shown: above `seq` while a gap is being filled
    public private(set) var shownSeq: Int?
    public private(set) var state: JSONValue?
    /// ask for a snapshot at the next (re)join: the held state cannot be trusted
    var fresh = false
    var resyncing = false
    public private(set) var joinedOnce = false
    var replay: Bool
    var leaving = false
    var chatN = -1

    var exchanges: [String: Exchange] = [:]
    var pending: [String: Pending] = [:]
    /// ids of `pending` in the order the app made them
    var order: [String] = []

    /// - Parameters:
    ///   - since, state: a state the app already holds at seq `since` (join and watch), to catch up from.
    ///   - seed: seeds the jitter and the ids of the follower's own requests (tests pass one).
    public init(start: Start, settings: Settings = Settings(), since: Int? = nil, state: JSONValue? = nil, seed: UInt64? = nil) {
        self.start = start
        self.settings = settings
        self.random = seed.map(SplitMix64.init(seed:)) ?? SplitMix64()
        switch start {
        case .create(let kind, _):
            self.kind = kind
            role = "player"
            replay = false
        case .join(let game, let token, let seat):
            self.game = game
            self.token = token
            self.you = seat
            role = "player"
            replay = false
        case .watch(let game, let key, let replay):
            self.game = game
            self.key = key
            role = "spectator"
            self.replay = replay || (since == 0 && state == nil)
        }
        if let since, let state {
            self.seq = since
            self.shownSeq = since
            self.state = state
        }
    }

    /// Whether the game has ended by its state's `status` (won, drawn, a race finished).
    public var ended: Bool {
        guard let status = state?["status"]?.stringValue else { return false }
        return status == "won" || status == "drawn" || status == "finished"
    }

    public var isClosed: Bool { phase == .closed }

    /// Unanswered commands, in the order they were made (sent or waiting for a connection).
    public var unanswered: [String] { order }

    // MARK: Events

    public mutating func handle(_ event: Event, now: Double) -> [Action] {
        var out: [Action] = []
        switch event {
        case .start:
            if phase == .idle { connect(&out) }
        case .opened(let c):
            guard c == connection, phase == .connecting else { break }
            phase = .signingIn
            setStatus(.joining, &out)
            if settings.signsIn { out.append(.fetchToken(connection: c)) } else { sendJoin(&out) }
        case .token(let c, let jwt):
            guard c == connection, phase == .signingIn else { break }
            if let jwt, !jwt.isEmpty {
                let id = newId("auth")
                exchanges[id] = .auth
                out.append(.send(connection: c, ["type": "auth", "jwt": .string(jwt), "id": .string(id)]))
            } else {
                sendJoin(&out)
            }
        case .received(let c, let message):
            guard c == connection, phase != .closed, phase != .waiting, phase != .suspended else { break }
            received(message, now: now, &out)
        case .text(let c, let line):
            guard c == connection else { break }
            out.append(.text(line))
        case .closed(let c, let reason):
            lost(c, reason, immediately: false, now: now, &out)
        case .timer(let timer):
            switch timer {
            case .reconnect(let n):
                if phase == .waiting && n == reconnectNumber { connect(&out) }
            case .connectTimeout(let c):
                if c == connection && phase == .connecting {
                    out.append(.log(.info, "no connection after \(settings.connectTimeout) s; trying again"))
                    // The try took its wait already: the next starts at once, so tries stay at most
                    // connectTimeout (5 s) apart even when connections hang.
                    lost(c, "connect timeout", immediately: true, now: now, &out)
                }
            case .leave:
                if leaving { finish("left", nil, &out) }
            }
        case .command(let id, let body, let basedOn, let once):
            command(id: id, body: body, basedOn: basedOn ?? seq, once: once, &out)
        case .leave:
            if phase == .ready {
                leaving = true
                let id = newId("leave")
                exchanges[id] = .leave
                out.append(.send(connection: connection, ["type": "leave", "id": .string(id)]))
                out.append(.schedule(.leave, after: settings.leaveTimeout))
            } else {
                finish("left", nil, &out)
            }
        case .close:
            finish("closed", nil, &out)
        case .suspend:
            guard phase != .closed, phase != .suspended, phase != .idle else { break }
            dropConnectionState(&out)
            if phase != .waiting { out.append(.disconnect(connection: connection)) }
            phase = .suspended
            setStatus(.suspended, &out)
        case .resume:
            guard phase == .suspended else { break }
            attempt = 0
            connect(&out)
        }
        return out
    }

    // MARK: Connections

    mutating func connect(_ out: inout [Action]) {
        connection += 1
        phase = .connecting
        setStatus(.connecting, &out)
        out.append(.connect(connection: connection))
        out.append(.schedule(.connectTimeout(connection), after: settings.connectTimeout))
    }

    mutating func setStatus(_ s: SessionStatus, _ out: inout [Action]) {
        guard s != status else { return }
        status = s
        out.append(.status(s))
    }

    /// What a (re)join sends: `join` with the seat and `since`, `watch` with `since`, or `create`
    /// while no `created` has named the game yet.
    public func joinBody() -> JSONValue {
        var body: [String: JSONValue]
        if case .create(let kind, let options) = start, game == nil {
            return ["type": "create", "kind": .string(kind), "options": options]
        }
        if role == "player" {
            body = ["type": "join", "game": .string(game ?? "")]
            if let token { body["token"] = .string(token) }
            // Our seat; a creator whose `joined` was lost with the connection is p1.
            var seat = you
            if seat == nil, case .create = start { seat = "p1" }
            if let seat { body["seat"] = .string(seat) }
        } else {
            body = ["type": "watch", "game": .string(game ?? "")]
            if let key { body["key"] = .string(key) }
        }
        if !fresh {
            if let seq {
                body["since"] = .number(Double(seq))
            } else if replay {
                body["replay"] = true
            }
        }
        return .object(body)
    }

    mutating func sendJoin(_ out: inout [Action]) {
        phase = .joining
        let id = newId("join")
        exchanges[id] = .join
        out.append(.send(connection: connection, withId(joinBody(), id)))
    }

    /// Asks again on the open connection: from the held state (a gap), or for a snapshot.
    mutating func resync(_ out: inout [Action]) {
        guard !resyncing, phase == .ready else { return }
        resyncing = true
        let id = newId("resync")
        exchanges[id] = .resync
        let body = joinBody()
        out.append(.log(.info, "resync: \(body["type"]?.stringValue ?? "") since \(body["since"]?.intValue.map(String.init) ?? "(snapshot)")"))
        out.append(.send(connection: connection, withId(body, id)))
    }

    /// The connection is gone: refuse what may not be sent twice, keep the rest, try again.
    mutating func lost(_ c: Int, _ why: String, immediately: Bool, now: Double, _ out: inout [Action]) {
        guard c == connection, [.connecting, .signingIn, .joining, .ready].contains(phase) else { return }
        let wasReady = phase == .ready
        if wasReady || lostAt == nil { lostAt = now }
        dropConnectionState(&out)
        out.append(.disconnect(connection: c))
        out.append(.log(wasReady ? .info : .debug, "connection lost: \(why)"))
        if leaving {
            finish("left", nil, &out)
            return
        }
        scheduleReconnect(immediately: immediately, &out)
    }

    mutating func dropConnectionState(_ out: inout [Action]) {
        exchanges.removeAll()
        resyncing = false
        for id in order {
            guard let p = pending[id], p.once, p.sent else { continue }
            removePending(id)
            out.append(.complete(id: id, .failure(BoardcastError(code: "disconnected", message: "the connection dropped before \(p.body["type"]?.stringValue ?? "the request") was answered"))))
        }
    }

    mutating func scheduleReconnect(immediately: Bool, _ out: inout [Action]) {
        let delay = immediately ? 0 : settings.backoff.delay(attempt: attempt, random: random.unit())
        attempt += 1
        reconnectNumber += 1
        phase = .waiting
        setStatus(.reconnecting, &out)
        out.append(.log(.info, "reconnecting: try \(attempt) in \(Int((delay * 1000).rounded())) ms"))
        out.append(.schedule(.reconnect(reconnectNumber), after: delay))
    }

    /// Closed for good: every unanswered command is refused.
    mutating func finish(_ reason: String, _ error: BoardcastError?, _ out: inout [Action]) {
        guard phase != .closed else { return }
        let hadSocket = [.connecting, .signingIn, .joining, .ready].contains(phase)
        phase = .closed
        leaving = false
        exchanges.removeAll()
        let refusal = error ?? .closed("the session is closed (\(reason))")
        for id in order {
            out.append(.complete(id: id, .failure(refusal)))
        }
        pending.removeAll()
        order.removeAll()
        if hadSocket { out.append(.disconnect(connection: connection)) }
        setStatus(.closed, &out)
        out.append(.finished(reason: reason, error: error))
    }

    // MARK: Messages

    mutating func received(_ m: JSONValue, now: Double, _ out: inout [Action]) {
        let type = m["type"]?.stringValue
        if type == "ack" || type == "error", let rawId = m["id"], rawId != .null {
            let id = rawId.stringValue ?? rawId.intValue.map(String.init) ?? rawId.serialized()
            if let exchange = exchanges.removeValue(forKey: id) {
                reply(to: exchange, m, now: now, &out)
                return
            }
            if let p = pending[id], p.sent {
                removePending(id)
                if type == "ack" {
                    out.append(.complete(id: id, .success(m["seq"]?.intValue)))
                } else {
                    out.append(.complete(id: id, .failure(BoardcastError(reply: m))))
                }
                return
            }
        }
        switch type {
        case "ack":
            break
        case "error":
            out.append(.error(BoardcastError(reply: m)))
        case "created":
            game = m["game"]?.stringValue ?? game
            token = m["token"]?.stringValue ?? token
            if let k = m["key"]?.stringValue { key = k }
            out.append(.created(m))
        case "joined":
            if let g = m["game"]?.stringValue, game == nil || g == game { game = g }
            kind = m["kind"]?.stringValue ?? kind
            role = m["role"]?.stringValue ?? role
            if let y = m["you"]?.stringValue { you = y }
            if let k = m["key"]?.stringValue, !k.isEmpty { key = k }
            out.append(.joined(m))
        case "snapshot":
            guard let s = m["seq"]?.intValue, let newState = m["state"] else {
                out.append(.log(.warn, "a snapshot without seq or state"))
                break
            }
            let previous = state
            kind = m["kind"]?.stringValue ?? kind
            state = newState
            seq = s
            shownSeq = max(shownSeq ?? s, s)
            out.append(.state(StateChange(seq: s, state: newState, previous: previous, via: .snapshot, cause: nil, ops: nil)))
        case "diff":
            applyDiff(m, &out)
        case "event":
            out.append(.event(m))
        case "presence":
            out.append(.presence(m))
        case "chat":
            // A re-join's reply carries the last lines again: drop those already had (`n`).
            if let n = m["n"]?.intValue {
                if n <= chatN { break }
                chatN = n
            }
            out.append(.chat(m))
        case "left":
            if !leaving {
                finish("replaced", BoardcastError(code: "left", message: "another connection took this place in the game", reply: m), &out)
            }
        default:
            out.append(.message(m))
        }
    }

    mutating func applyDiff(_ m: JSONValue, _ out: inout [Action]) {
        guard let held = seq, let current = state else { return }  // the snapshot on its way covers it
        guard let s = m["seq"]?.intValue else { return }
        if s <= held { return }  // had already (a re-join's overlap)
        shownSeq = max(shownSeq ?? s, s)
        if s != held + 1 {
            out.append(.log(.info, "gap: diff \(s) after \(held)"))
            resync(&out)
            return
        }
        let ops = m["ops"] ?? .array([])
        do {
            let next = try JSONPatch.apply(ops, to: current)
            state = next
            seq = s
            out.append(.state(StateChange(seq: s, state: next, previous: current, via: .diff, cause: m["cause"], ops: ops)))
        } catch {
            out.append(.log(.warn, "diff \(s) did not apply (\(error)); asking for a snapshot"))
            fresh = true
            resync(&out)
        }
    }

    mutating func reply(to exchange: Exchange, _ m: JSONValue, now: Double, _ out: inout [Action]) {
        let ok = m["type"]?.stringValue == "ack"
        switch exchange {
        case .auth:
            if !ok { out.append(.error(BoardcastError(reply: m))) }
            if phase == .signingIn { sendJoin(&out) }
        case .join:
            if ok {
                phase = .ready
                attempt = 0
                lostAt = nil
                fresh = false
                setStatus(.ready, &out)
                if !joinedOnce {
                    joinedOnce = true
                    out.append(.ready)
                }
                flush(&out)
            } else {
                joinFailed(BoardcastError(reply: m), now: now, &out)
            }
        case .resync:
            resyncing = false
            if ok { fresh = false } else { joinFailed(BoardcastError(reply: m), now: now, &out) }
        case .leave:
            finish("left", nil, &out)
        }
    }

    /// A refused join: tried again later (`unavailable`, `rate-limited`, or our own seat not yet
    /// freed), or the end of the session.
    mutating func joinFailed(_ error: BoardcastError, now: Double, _ out: inout [Action]) {
        var retry = error.code == "unavailable" || error.code == "rate-limited"
        let isJoin = role == "player" && game != nil
        var isCreate = false
        if case .create = start { isCreate = true }
        if !retry, isJoin, joinedOnce || isCreate, error.code == "forbidden" {
            // Most likely our own dropped connection still holds the seat: the server frees it
            // when it sees the drop (at once for a closed socket, within two ping intervals else).
            retry = now - (lostAt ?? now) < settings.rejoinTimeout
        }
        if retry {
            out.append(.log(.info, "join refused \(error.code) (\(error.message)); trying again"))
            lost(connection, "join refused", immediately: false, now: now, &out)
        } else {
            out.append(.log(.warn, "join refused: \(error)"))
            finish("error", error, &out)
        }
    }

    // MARK: Commands

    mutating func command(id: String, body: JSONValue, basedOn: Int?, once: Bool, _ out: inout [Action]) {
        if phase == .closed {
            out.append(.complete(id: id, .failure(.closed())))
            return
        }
        if pending[id] != nil {
            out.append(.complete(id: id, .failure(BoardcastError(code: "bad-request", message: "a request with id \(id) is already waiting"))))
            return
        }
        if let refusal = staleness(basedOn) {
            out.append(.complete(id: id, .failure(refusal)))
            return
        }
        var p = Pending(id: id, body: withId(body, id), basedOn: basedOn, once: once, sent: false)
        if phase == .ready {
            p.sent = true
            out.append(.send(connection: connection, p.body))
        }
        pending[id] = p
        order.append(id)
    }

    /// `stale` when the server has shown a seq newer than the one the command was chosen from.
    func staleness(_ basedOn: Int?) -> BoardcastError? {
        guard let basedOn else { return nil }
        let shown = max(seq ?? -1, shownSeq ?? -1)
        guard shown > basedOn else { return nil }
        return BoardcastError(code: "stale", message: "chosen from seq \(basedOn), but the server has shown seq \(shown): choose again")
    }

    /// After a (re)join: sends the unsent commands (checked for staleness first) and the sent but
    /// unanswered ones again, with their ids, in the order they were made.
    mutating func flush(_ out: inout [Action]) {
        for id in order {
            guard var p = pending[id] else { continue }
            if !p.sent, let refusal = staleness(p.basedOn) {
                removePending(id)
                out.append(.complete(id: id, .failure(refusal)))
                continue
            }
            if p.sent { out.append(.log(.debug, "sending \(p.body["type"]?.stringValue ?? "?") \(id) again")) }
            p.sent = true
            pending[id] = p
            out.append(.send(connection: connection, p.body))
        }
    }

    mutating func removePending(_ id: String) {
        pending.removeValue(forKey: id)
        order.removeAll { $0 == id }
    }

    // MARK: Ids

    /// A random message id (16 base-36 characters), for the follower's own requests and the app's.
    public static func randomId<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        return String((0..<16).map { _ in alphabet[Int(generator.next() % 36)] })
    }

    mutating func newId(_ what: String) -> String {
        return "\(what)-\(Self.randomId(using: &random))"
    }

    func withId(_ body: JSONValue, _ id: String) -> JSONValue {
        guard case .object(var o) = body else { return body }
        o["id"] = .string(id)
        return .object(o)
    }
}
