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
    // MARK: State

    public let start: Start
    public let settings: Settings
    var random: SplitMix64

    var phase: Phase = .idle
    public internal(set) var status: SessionStatus = .connecting
    /// the number of the current (or last) connection
    public internal(set) var connection = 0
    /// failed tries since the last connection that got ready
    public internal(set) var attempt = 0
    var reconnectNumber = 0
    /// when the connection that was ready was lost
    var lostAt: Double?

    public internal(set) var game: String?
    public internal(set) var token: String?
    public internal(set) var key: String?
    public internal(set) var kind: String?
    public internal(set) var role: String
    /// this connection's player id or seat (players)
    public internal(set) var you: String?
    /// the seq of `state`; nil before the first state
    public internal(set) var seq: Int?
    /// the newest seq the server has shown: above `seq` while a gap is being filled
    public internal(set) var shownSeq: Int?
    public internal(set) var state: JSONValue?
    /// ask for a snapshot at the next (re)join: the held state cannot be trusted
    var fresh = false
    var resyncing = false
    public internal(set) var joinedOnce = false
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
}
