// What goes in and out of the state machine: how it starts, its settings, the events the shell
// feeds it and the actions it answers with.
extension GameFollower {
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
}
