import Core

/// Every connection's protocol state, local ones and (on a cluster node that owns their
/// game) other nodes' ones: its game and role, its rate limit, and what it waits for with
/// the frames that arrived meanwhile. The one owner of `Session`s; only the service thread
/// touches it.
final class SessionTable {
    /// A bucket of this many frames refilled at this many a second (PROTOCOL section 2).
    static let rateLimit = 100.0
    /// Frames held for a waiting connection beyond this are refused (far past the rate limit's worth).
    static let maxHeld = 256

    /// Local connections, in the shell's numbering.
    private var local = Slab<Session>()
    /// Other nodes' connections, numbered here.
    private var remote = Slab<Session>(remote: true)

    var count: Int { local.count + remote.count }

    func open(_ id: ConnectionID, address: ClientAddress, user: SignedUser? = nil, now: Instant) {
        var session = Session(id: id, address: address, now: now)
        session.user = user
        local.place(session, at: id)
    }

    /// A session for another node's connection (its requests reach this node as its game's owner).
    func openRemote(now: Instant) -> ConnectionID {
        remote.insert { Session(id: $0, address: .unknown, now: now) }
    }

    /// Ends a session; returns it as it was, or nil if it was not open.
    @discardableResult
    func close(_ id: ConnectionID) -> Session? {
        id.isRemote ? remote.remove(id) : local.remove(id)
    }

    subscript(id: ConnectionID) -> Session? { id.isRemote ? remote[id] : local[id] }

    func isOpen(_ id: ConnectionID) -> Bool { self[id] != nil }

    @discardableResult
    func modify<T>(_ id: ConnectionID, _ body: (inout Session) -> T) -> T? {
        id.isRemote ? remote.modify(id, body) : local.modify(id, body)
    }

    // MARK: What a session is in

    func room(of id: ConnectionID) -> GameRoom? { self[id]?.room }

    /// Every connection in `room`, local or not: a walk over all sessions, for rare events only.
    func members(of room: GameRoom) -> [ConnectionID] {
        (local.values + remote.values).filter { $0.room === room }.map(\.id).sorted()
    }

    func join(_ id: ConnectionID, room: GameRoom, role: Role, key: AudienceKey, name: String) {
        modify(id) {
            $0.room = room
            $0.role = role
            $0.key = key
            $0.name = name
            $0.shownThrough = nil
        }
    }

    func leaveRoom(_ id: ConnectionID) {
        modify(id) {
            $0.room = nil
            $0.role = nil
            $0.name = nil
            $0.credential = nil
            $0.recipientSlot = -1
            $0.shownThrough = nil
        }
    }

    func setSlot(_ id: ConnectionID, _ slot: Int) { modify(id) { $0.recipientSlot = slot } }

    // MARK: Rate limit

    /// Takes one frame's token; false when the connection is over the limit.
    func admitFrame(_ id: ConnectionID, now: Instant) -> Bool {
        modify(id) { $0.bucket.take(now: now.monotonic) } ?? false
    }

    // MARK: Waiting and held frames

    func isWaiting(_ id: ConnectionID) -> Bool {
        guard let session = self[id] else { return false }
        return session.wait != nil || session.held.hasItems
    }

    func wait(of id: ConnectionID) -> Wait? { self[id]?.wait }

    func setWait(_ id: ConnectionID, _ wait: Wait?) { modify(id) { $0.wait = wait } }

    /// Clears the wait if it is still this one; true if it was.
    func endWait(_ id: ConnectionID, _ wait: Wait) -> Bool {
        modify(id) { session -> Bool in
            guard session.wait == wait else { return false }
            session.wait = nil
            return true
        } ?? false
    }

    /// Keeps a frame for later, behind the others; false when too many wait already.
    func hold(_ id: ConnectionID, _ item: HeldItem) -> Bool {
        modify(id) { session -> Bool in
            guard session.held.count < Self.maxHeld else { return false }
            session.held.append(item)
            return true
        } ?? false
    }

    /// Puts a request back in front of the held ones (it is answered first once the wait ends).
    func holdFirst(_ id: ConnectionID, _ item: HeldItem) { modify(id) { $0.held.prepend(item) } }

    /// The next held item, if the connection is not waiting.
    func nextHeld(_ id: ConnectionID) -> HeldItem? {
        modify(id) { session -> HeldItem? in
            guard session.wait == nil else { return nil }
            return session.held.popFirst()
        } ?? nil
    }

    /// The first held item whatever the wait (a failed load answers the request that caused it).
    func takeFirstHeld(_ id: ConnectionID) -> HeldItem? { modify(id) { $0.held.popFirst() } ?? nil }
}

/// One connection's protocol state.
struct Session {
    let id: ConnectionID
    let address: ClientAddress
    var room: GameRoom?
    var role: Role?
    /// Which of its game's audiences it is in: what it may see, and when.
    var key: AudienceKey = .spectators
    /// Its name in its game's chat: its player id, or `s1`, `s2`... for a spectator.
    var name: String?
    /// The token it joined its game with (kept in memory only): to join the game again through
    /// another node if this one loses the game.
    var credential: String?
    /// Who it is signed in as (PROTOCOL section 19), as its last good token said; it counts
    /// only until that token's `exp` (`signedIn(at:)`). On a game's owner node, the user another
    /// node forwarded with the connection's request.
    var user: SignedUser?
    /// Its index in its room's audience once it receives broadcasts; -1 before.
    var recipientSlot = -1
    /// Taken in quietly by a copy of its game that is behind what its client was shown through
    /// another owner (a claim answered late, PROTOCOL 11.1): the seq its client has seen. Such a
    /// copy is stale; if this node loses the game, the member goes on from here, not from the copy.
    var shownThrough: Int?
    var bucket: TokenBucket
    /// Chat's own limit (PROTOCOL section 15): times of its recent lines.
    var chatTimes = RecentLimit.chat
    /// `auth`'s own limit: each costs a signature check on the service thread.
    var authTimes = RecentLimit.auth
    /// Set while the connection waits for something slow (a game loading, history read from
    /// storage, a solver, a forwarded request); frames that arrive meanwhile are held and
    /// answered in order after.
    var wait: Wait?
    var held = HeldQueue()

    init(id: ConnectionID, address: ClientAddress, now: Instant) {
        self.id = id
        self.address = address
        bucket = TokenBucket(now: now.monotonic)
    }

    /// What it may see of its game: a seat's own view in a game with seat views, otherwise the spectators'.
    var view: Viewer { key.viewer }

    /// The user it is signed in as at `now`, if its token has not expired.
    func signedIn(at now: Instant) -> SignedUser? {
        guard let user, user.isValid(at: now.unixTime) else { return nil }
        return user
    }
}

/// A per-connection limit: at most `count` in any `window` seconds.
struct RecentLimit {
    /// Chat (PROTOCOL section 15): five lines in ten seconds.
    static let chat = RecentLimit(count: 5, window: 10)
    /// Sign-ins (section 19): a page renews a token every few minutes; twenty in twenty seconds
    /// bounds what one connection costs the service thread in signature checks (up to 60 µs each).
    static let auth = RecentLimit(count: 20, window: 20)

    let count: Int
    let window: Double
    private var times: [Double] = []

    init(count: Int, window: Double) {
        self.count = count
        self.window = window
    }

    /// Records one now; nil if allowed, else the seconds until the next one is.
    mutating func take(now: Double) -> Double? {
        times.removeAll { now - $0 >= window }
        guard times.count < count else { return window - (now - times[0]) }
        times.append(now)
        return nil
    }
}

/// What a connection is waiting for.
enum Wait: Equatable {
    /// A resting game being loaded from storage (`join`/`watch` of it).
    case gameLoad(String)
    /// An entry of the pending-request table: a history page, a command lookup, a solver answer.
    case pending(UInt64)
    /// Its game is being rebuilt from storage after a failed commit.
    case rewind(String)
    /// A request carried to the node that owns its game (a cluster).
    case remote(UInt64)
    /// Who owns a game, asked of the cluster.
    case owner(String)
    /// Whether this node still owns a game, asked of a shared store (its copy looks behind).
    case ownerCheck(String)
}

/// What a waiting connection sent meanwhile, kept parsed (parsing needs no state).
enum HeldItem {
    case request(ClientMessageParser.Parsed, arrival: Instant?)
    /// A cluster node's marker after a forwarded request: answered once everything before it is.
    case marker(UInt64)
}

/// A FIFO with O(1) pops from the front.
struct HeldQueue {
    private var items: [HeldItem] = []
    private var head = 0

    var hasItems: Bool { head < items.count }
    var count: Int { items.count - head }

    mutating func append(_ item: HeldItem) { items.append(item) }

    mutating func prepend(_ item: HeldItem) {
        if head > 0 {
            head -= 1
            items[head] = item
        } else {
            items.insert(item, at: 0)
        }
    }

    mutating func popFirst() -> HeldItem? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll()
            head = 0
        }
        return item
    }
}

/// The protocol's rate limit: a bucket of `SessionTable.rateLimit` frames refilled at that
/// many a second. Sixteen bytes a connection: the tokens fit a `Float`.
struct TokenBucket {
    private var tokens: Float
    private var last: Double

    init(now: Double) {
        tokens = Float(SessionTable.rateLimit)
        last = now
    }

    mutating func take(now: Double) -> Bool {
        let capacity = Float(SessionTable.rateLimit)
        tokens = min(capacity, tokens + Float(max(0, now - last) * SessionTable.rateLimit))
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
