import Foundation

/// A client of one Boardcast server (PROTOCOL section 21).
///
/// ```swift
/// let client = BoardcastClient(url: URL(string: "ws://127.0.0.1:8080/ws")!)
/// let game = try await client.create(kind: "four", options: ["bots": ["p2": 2]])
/// for await state in game.states { draw(state) }
/// ```
public final class BoardcastClient: Sendable {
    public typealias TokenProvider = @Sendable () async throws -> String?
    public typealias Log = @Sendable (GameFollower.LogLevel, String) -> Void

    /// The server's WebSocket address, `ws://HOST:PORT/ws`.
    public let url: URL
    let tokenProvider: TokenProvider?
    let transport: any WebSocketTransport
    let settings: GameFollower.Settings
    let log: Log
    private let sessions = Locked<Registry>(Registry())

    /// What `close()` closes.
    private struct Registry {
        var closed = false
        var list: [ObjectIdentifier: GameSession] = [:]
        var lobbies: [Int: Task<Void, Never>] = [:]
        var nextLobby = 0
    }

    /// - Parameters:
    ///   - url: the server's WebSocket address (`http(s)://` is read as `ws(s)://`).
    ///   - token: a sign-in token provider (PROTOCOL section 19), called on every (re)connection;
    ///     its JWT is sent as `auth` before anything else (nil: none).
    ///   - transport: the WebSocket implementation (default: the platform's).
    ///   - settings: backoff and timeouts.
    ///   - log: where the library's log goes (default: nowhere).
    public init(
        url: URL, token: TokenProvider? = nil, transport: (any WebSocketTransport)? = nil,
        settings: GameFollower.Settings = GameFollower.Settings(), log: Log? = nil
    ) {
        var url = url
        if var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            if parts.scheme == "http" { parts.scheme = "ws" }
            if parts.scheme == "https" { parts.scheme = "wss" }
            url = parts.url ?? url
        }
        self.url = url
        self.tokenProvider = token
        self.transport = transport ?? defaultTransport()
        var settings = settings
        settings.signsIn = token != nil
        self.settings = settings
        self.log = log ?? { _, _ in }
    }

    // MARK: Sessions, started at once

    /// A session that creates a game and joins it as its first player. It starts connecting at
    /// once; subscribe to its streams, then `try await session.ready()`.
    public func creating(kind: String, options: JSONValue = [:]) -> GameSession {
        open(.create(kind: kind, options: options))
    }

    /// A session that joins a game as a player.
    /// - Parameters:
    ///   - token: the game token (nil: a signed-in user taking their place back).
    ///   - seat: the seat or player id to ask for (`p2`).
    ///   - since, state: a state the app already holds, to catch up from.
    public func joining(game: String, token: String?, seat: String? = nil, since: Int? = nil, state: JSONValue? = nil) -> GameSession {
        open(.join(game: game, token: token, seat: seat), since: since, state: state)
    }

    /// A session that watches a game as a spectator.
    /// - Parameters:
    ///   - key: the watch key of a game watched by link.
    ///   - since, state: a state the app already holds, to catch up from.
    ///   - replay: from the deal (seq 0), every state in order (also `since: 0` without a state).
    public func watching(game: String, key: String? = nil, since: Int? = nil, state: JSONValue? = nil, replay: Bool = false) -> GameSession {
        open(.watch(game: game, key: key, replay: replay), since: since, state: state)
    }

    // MARK: Sessions, once joined

    /// Creates a game and joins it as its first player; returns once joined.
    public func create(kind: String, options: JSONValue = [:]) async throws -> GameSession {
        try await readied(creating(kind: kind, options: options))
    }

    /// Joins a game as a player; returns once joined.
    public func join(game: String, token: String?, seat: String? = nil) async throws -> GameSession {
        try await readied(joining(game: game, token: token, seat: seat))
    }

    /// Watches a game as a spectator; returns once watching.
    public func watch(game: String, key: String? = nil, since: Int? = nil, state: JSONValue? = nil, replay: Bool = false) async throws -> GameSession {
        try await readied(watching(game: game, key: key, since: since, state: state, replay: replay))
    }

    private func readied(_ session: GameSession) async throws -> GameSession {
        do {
            try await session.ready()
        } catch {
            await session.close()
            throw error
        }
        return session
    }

    private func open(_ start: GameFollower.Start, since: Int? = nil, state: JSONValue? = nil) -> GameSession {
        let outputs = SessionOutputs()
        let label: String
        switch start {
        case .create(let kind, _): label = "new \(kind)"
        case .join(let game, _, _), .watch(let game, _, _): label = game
        }
        let driver = SessionDriver(
            machine: GameFollower(start: start, settings: settings, since: since, state: state),
            url: url, transport: transport, tokenProvider: tokenProvider, label: label, log: log, outputs: outputs)
        let session = GameSession(driver: driver, outputs: outputs)
        let id = ObjectIdentifier(session)
        let closed = sessions.withLock { s -> Bool in
            if !s.closed { s.list[id] = session }
            return s.closed
        }
        Task { [weak self] in
            await driver.feed(closed ? .close : .start)
            await driver.finished()
            _ = self?.sessions.withLock { $0.list.removeValue(forKey: id) }
        }
        return session
    }

    // MARK: The lobby

    /// The live games once (PROTOCOL sections 3, 10): the `games` of a `lobby` message.
    /// - Throws: `unavailable`-like failures as `BoardcastError` (`disconnected` when the
    ///   connection fails, `timeout` after `timeout` seconds).
    public func games(timeout: Double = 10) async throws -> [JSONValue] {
        let connection = transport.connect(to: url)
        defer { connection.close() }
        let id = "list-\(UInt64.random(in: 0...UInt64.max))"
        let provider = tokenProvider
        return try await withThrowingTaskGroup(of: [JSONValue].self) { group in
            group.addTask {
                var games: [JSONValue] = []
                var authId: String?
                for await event in connection.events {
                    switch event {
                    case .opened:
                        if let provider, let jwt = try? await provider(), !jwt.isEmpty {
                            authId = "auth-\(id)"
                            connection.send(JSONValue.object(["type": "auth", "jwt": .string(jwt), "id": .string(authId!)]).serialized())
                        } else {
                            connection.send(JSONValue.object(["type": "list", "id": .string(id)]).serialized())
                        }
                    case .text(let text):
                        guard let m = try? JSONValue(parsing: text) else { continue }
                        if m["type"]?.stringValue == "lobby", let list = m["games"]?.arrayValue { games = list }
                        if let authId, m["id"]?.stringValue == authId {
                            connection.send(JSONValue.object(["type": "list", "id": .string(id)]).serialized())
                        }
                        if m["id"]?.stringValue == id {
                            if m["type"]?.stringValue == "error" { throw BoardcastError(reply: m) }
                            return games
                        }
                    case .closed(let reason):
                        throw BoardcastError(code: "disconnected", message: "the lobby's connection closed: \(reason)")
                    }
                }
                throw BoardcastError(code: "disconnected", message: "the lobby's connection closed")
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
                throw BoardcastError(code: "timeout", message: "no lobby within \(timeout) s")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// The lobby followed (`list` with `follow`): the live games now, then each time they change
    /// (at most once a second), across reconnections, until the stream is dropped or the client
    /// closed.
    public func lobby() -> AsyncStream<[JSONValue]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [JSONValue].self)
        let number = sessions.withLock { s -> Int? in
            if s.closed { return nil }
            s.nextLobby += 1
            return s.nextLobby
        }
        guard let number else {
            continuation.finish()
            return stream
        }
        let task = Task { [weak self] in
            await self?.followLobby(continuation)
            continuation.finish()
            _ = self?.sessions.withLock { $0.lobbies.removeValue(forKey: number) }
        }
        sessions.withLock { $0.lobbies[number] = task }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func followLobby(_ output: AsyncStream<[JSONValue]>.Continuation) async {
        var attempt = 0
        var random = SplitMix64()
        while !Task.isCancelled {
            let connection = transport.connect(to: url)
            for await event in connection.events {
                switch event {
                case .opened:
                    if let tokenProvider, let jwt = try? await tokenProvider(), !jwt.isEmpty {
                        connection.send(JSONValue.object(["type": "auth", "jwt": .string(jwt)]).serialized())
                    }
                    connection.send(JSONValue.object(["type": "list", "follow": true, "id": "lobby"]).serialized())
                case .text(let text):
                    guard let m = try? JSONValue(parsing: text), m["type"]?.stringValue == "lobby", let games = m["games"]?.arrayValue else {
                        continue
                    }
                    attempt = 0
                    output.yield(games)
                case .closed(let reason):
                    log(.debug, "lobby: connection lost: \(reason)")
                }
            }
            connection.close()
            if Task.isCancelled { break }
            let delay = settings.backoff.delay(attempt: attempt, random: random.unit())
            attempt += 1
            try? await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded())))
        }
    }

    /// Closes every session and lobby: nothing reconnects after this.
    public func close() async {
        let (list, lobbies) = sessions.withLock { s -> ([GameSession], [Task<Void, Never>]) in
            s.closed = true
            defer {
                s.list.removeAll()
                s.lobbies.removeAll()
            }
            return (Array(s.list.values), Array(s.lobbies.values))
        }
        for lobby in lobbies { lobby.cancel() }
        for session in list { await session.close() }
    }
}
