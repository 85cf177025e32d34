import Foundation

/// The shell around a `GameFollower`: it feeds the follower every event in order (one actor, so
/// one event at a time) and carries out its actions: connections, frames, timers, the token
/// provider, and the session's published state and streams.
actor SessionDriver {
    private var machine: GameFollower
    private let url: URL
    private let transport: any WebSocketTransport
    private let tokenProvider: (@Sendable () async throws -> String?)?
    private let log: @Sendable (GameFollower.LogLevel, String) -> Void
    private let label: String
    private let outputs: SessionOutputs
    private let epoch = ContinuousClock.now

    private var connections: [Int: any WebSocketConnection] = [:]
    private var timers: [GameFollower.Timer: Task<Void, Never>] = [:]
    private var waiters: [String: CheckedContinuation<Int?, any Error>] = [:]
    private var readyWaiters: [CheckedContinuation<Void, any Error>] = []
    private var readyResult: Result<Void, BoardcastError>?
    private var finishedWaiters: [CheckedContinuation<Void, Never>] = []
    private var isFinished = false
    private var idGenerator = SplitMix64()
    /// plain-text lines since the last `show` began
    private var textLines: [String] = []
    private var lastHint: JSONValue?
    private var pacer = SendPacer()
    private var pacing: Task<Void, Never>?

    init(
        machine: GameFollower, url: URL, transport: any WebSocketTransport,
        tokenProvider: (@Sendable () async throws -> String?)?,
        label: String, log: @escaping @Sendable (GameFollower.LogLevel, String) -> Void, outputs: SessionOutputs
    ) {
        self.label = label
        self.machine = machine
        self.url = url
        self.transport = transport
        self.tokenProvider = tokenProvider
        self.log = log
        self.outputs = outputs
        outputs.update(machine)
    }

    private var now: Double {
        let elapsed = ContinuousClock.now - epoch
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Log lines start with the game id once known (a created game has none at first).
    private func say(_ level: GameFollower.LogLevel, _ message: String) {
        log(level, "\(machine.game ?? label): \(message)")
    }

    func feed(_ event: GameFollower.Event) {
        let actions = machine.handle(event, now: now)
        outputs.update(machine)
        for action in actions { perform(action) }
    }

    /// Sends the frames the pacer lets go, and comes back for the rest when their turn comes.
    private func send(_ due: (send: [SendPacer.Frame], wait: Double?)) {
        for frame in due.send { connections[frame.connection]?.send(frame.text) }
        guard let wait = due.wait, pacing == nil else { return }
        pacing = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(max(1, Int((wait * 1000).rounded(.up)))))
            await self?.paced()
        }
    }

    private func paced() {
        pacing = nil
        guard !isFinished else { return }
        send(pacer.due(now: now))
    }

    // MARK: App calls

    func ready() async throws {
        if let readyResult { return try readyResult.get() }
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            readyWaiters.append(c)
        }
    }

    func finished() async {
        if isFinished { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            finishedWaiters.append(c)
        }
    }

    func newId() -> String {
        GameFollower.randomId(using: &idGenerator)
    }

    /// Sends a command and waits for its answer: the seq of its ack, or a `BoardcastError`.
    func request(id: String, body: JSONValue, basedOn: Int?, once: Bool) async throws -> Int? {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Int?, any Error>) in
            if waiters[id] != nil {
                c.resume(throwing: BoardcastError(code: "bad-request", message: "a request with id \(id) is already waiting"))
                return
            }
            waiters[id] = c
            feed(.command(id: id, body: body, basedOn: basedOn, once: once))
        }
    }

    /// `hint` (PROTOCOL sections 5, 12, 16): the `hint` message that came before its ack.
    func hint() async throws -> JSONValue? {
        lastHint = nil
        _ = try await request(id: newId(), body: ["type": "hint"], basedOn: Int.max, once: false)
        return lastHint
    }

    /// `show` (PROTOCOL section 7): the plain-text lines that came before its ack.
    func show() async throws -> [String] {
        textLines = []
        _ = try await request(id: newId(), body: ["type": "show"], basedOn: Int.max, once: false)
        defer { textLines = [] }
        return textLines
    }

    // MARK: Actions

    private func perform(_ action: GameFollower.Action) {
        switch action {
        case .connect(let c):
            let connection = transport.connect(to: url)
            connections[c] = connection
            Task { [weak self] in
                for await event in connection.events {
                    guard let self else { return }
                    await self.transportEvent(c, event)
                }
                await self?.transportEvent(c, .closed("the connection ended"))
            }
        case .disconnect(let c):
            connections.removeValue(forKey: c)?.close()
            pacer.forget(connection: c)
            timers.removeValue(forKey: .connectTimeout(c))?.cancel()
        case .send(let c, let message):
            send(pacer.enqueue(SendPacer.Frame(connection: c, text: message.serialized()), now: now))
        case .fetchToken(let c):
            let provider = tokenProvider
            Task { [weak self] in
                var jwt: String?
                do {
                    jwt = try await provider?()
                } catch {
                    // The app's provider failed: go on unsigned (a join that needs it is refused).
                    await self?.say(.warn, "the token provider failed: \(error)")
                }
                await self?.feed(.token(connection: c, jwt))
            }
        case .schedule(let timer, let delay):
            timers[timer]?.cancel()
            timers[timer] = Task { [weak self] in
                if delay > 0 { try? await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded()))) }
                if Task.isCancelled { return }
                await self?.timerFired(timer)
            }
        case .state(let change):
            outputs.changes.publish(change)
        case .event(let m):
            outputs.events.publish(m)
        case .chat(let m):
            outputs.chat.publish(m)
        case .presence(let m):
            outputs.presence.publish(m)
        case .message(let m):
            if m["type"]?.stringValue == "hint" { lastHint = m }
            outputs.messages.publish(m)
        case .text(let line):
            textLines.append(line)
        case .joined(let m):
            let offset = m["now"]?.stringValue.flatMap(ServerTime.parse).map { $0.timeIntervalSinceNow }
            outputs.view.withLock { v in
                v.joined = m
                if let offset { v.serverOffset = offset }
            }
        case .created:
            break
        case .error(let error):
            say(.warn, "server error: \(error)")
            outputs.errors.publish(error)
        case .complete(let id, let result):
            guard let waiter = waiters.removeValue(forKey: id) else { return }
            switch result {
            case .success(let seq): waiter.resume(returning: seq)
            case .failure(let error): waiter.resume(throwing: error)
            }
        case .ready:
            settleReady(.success(()))
        case .status(let status):
            outputs.statuses.publish(status)
        case .finished(let reason, let error):
            say(error == nil ? .debug : .info, "session finished: \(reason)\(error.map { " (\($0))" } ?? "")")
            outputs.view.withLock { $0.finished = SessionEnd(reason: reason, error: error) }
            settleReady(.failure(error ?? .closed("the session closed before it joined (\(reason))")))
            for (_, timer) in timers { timer.cancel() }
            timers.removeAll()
            for (_, connection) in connections { connection.close() }
            connections.removeAll()
            pacing?.cancel()
            pacing = nil
            for (_, waiter) in waiters { waiter.resume(throwing: error ?? BoardcastError.closed()) }
            waiters.removeAll()
            isFinished = true
            outputs.finishAll()
            for w in finishedWaiters { w.resume() }
            finishedWaiters.removeAll()
        case .log(let level, let message):
            say(level, message)
        }
    }

    private func settleReady(_ result: Result<Void, BoardcastError>) {
        guard readyResult == nil else { return }
        readyResult = result
        for w in readyWaiters { w.resume(with: result.mapError { $0 as any Error }) }
        readyWaiters.removeAll()
    }

    private func timerFired(_ timer: GameFollower.Timer) {
        timers.removeValue(forKey: timer)
        feed(.timer(timer))
    }

    private func transportEvent(_ c: Int, _ event: TransportEvent) {
        switch event {
        case .opened:
            timers.removeValue(forKey: .connectTimeout(c))?.cancel()
            feed(.opened(connection: c))
        case .text(let text):
            // A JSON message starts with `{`; anything else is a plain-text line (`show`).
            if text.first(where: { !$0.isWhitespace }) == "{", let message = try? JSONValue(parsing: text),
                case .object = message
            {
                feed(.received(connection: c, message))
            } else {
                feed(.text(connection: c, text))
            }
        case .closed(let reason):
            connections.removeValue(forKey: c)
            pacer.forget(connection: c)
            feed(.closed(connection: c, reason: reason))
        }
    }
}

/// What a session shows the app: a copy of the follower's fields, readable without `await`,
/// and the streams.
final class SessionOutputs: Sendable {
    struct View: Sendable {
        var game: String?
        var token: String?
        var key: String?
        var kind: String?
        var role: String = "player"
        var you: String?
        var seq: Int?
        var shownSeq: Int?
        var state: JSONValue?
        var status: SessionStatus = .connecting
        var ended = false
        /// The latest `joined` as the server sent it (section 3: the game's options, seats, `now`).
        var joined: JSONValue?
        /// The server's clock minus this device's, in seconds, from the latest `joined`'s `now`.
        var serverOffset: TimeInterval?
        /// Why the session ended for good, once it has.
        var finished: SessionEnd?
    }

    let view = Locked(View())
    let changes = Broadcast<StateChange>(replaysLatest: true)
    let events = Broadcast<JSONValue>()
    let chat = Broadcast<JSONValue>()
    let presence = Broadcast<JSONValue>()
    let messages = Broadcast<JSONValue>()
    let errors = Broadcast<BoardcastError>()
    let statuses = Broadcast<SessionStatus>(replaysLatest: true)

    func update(_ machine: GameFollower) {
        view.withLock { v in
            v.game = machine.game
            v.token = machine.token
            v.key = machine.key
            v.kind = machine.kind
            v.role = machine.role
            v.you = machine.you
            v.seq = machine.seq
            v.shownSeq = machine.shownSeq
            v.state = machine.state
            v.status = machine.status
            v.ended = machine.ended
        }
    }

    func finishAll() {
        changes.finish()
        events.finish()
        chat.finish()
        presence.finish()
        messages.finish()
        errors.finish()
        statuses.finish()
    }
}
