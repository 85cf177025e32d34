import Core

/// One live game: its state, its members, a window of its recent diffs, what its delayed
/// spectators see, its recent chat, and the output that waits for storage.
///
/// Output waits in the outbox until the storage ticket it depends on is durable, so a diff
/// never leaves before its command is stored, and everything a connection is sent about
/// this game keeps the order in which it was decided.
final class GameRoom {
    let id: String
    let kind: GameKind
    private(set) var game: AnyGame
    let tokenHash: String
    /// The stored creation options, secret parts included (a watch key): never shown.
    let options: JSON
    /// Who may watch (section 19), from the options.
    let watchPolicy: WatchPolicy
    /// The signed-in users who played, by player id; stored with the options.
    private(set) var users = GameUsers() {
        didSet { rebuildStoredOptions() }
    }
    /// The highest player id (`pN`) handed out in a game without seats. Stored with the options,
    /// so a node that takes the game over never hands out one again: a player who has not moved
    /// yet still comes back to its own id through any node.
    private(set) var issuedPlayers = 0 {
        didSet { rebuildStoredOptions() }
    }
    static let issuedPlayersOption = "issuedPlayers"
    /// The options as stored: with the users, kept here so a move's summary row does not rebuild them.
    private var storedOptions: JSON
    /// Whether members see `names` (the server signs users in).
    var showsNames = false
    /// Unix seconds: shown in the lobby and stored.
    let created: Double
    /// Unix seconds of the last command (or of creation): the lobby's `updated`.
    private(set) var updated: Double
    /// When the last command (or the load) happened here: what `--idle` counts from.
    private(set) var lastActivity: Instant
    private(set) var seq = 0
    /// The most recent diff frames; older ones are read from storage.
    private(set) var window: DiffWindow
    private(set) var appliedIDs: AppliedIDs
    /// In a store shared by nodes: the epoch this node holds the game at, which fences its writes.
    var epoch: Int64 = 1
    /// The seq at which a `since` past it made this node ask the store whether it still owns the
    /// game: asked once per seq, so a `since` that is simply wrong is answered after one check.
    var ownershipDoubtedAt = -1
    /// The seq of the last diff that went out to members (what they have all seen live).
    private(set) var releasedSeq = 0
    /// When storage last noted the game as touched for a join, a watch or its members
    /// (retention): at most once a touch interval, so a crowd joining is not a write each.
    var touchNoted = Instant.distantPast
    /// How many times the game was won or finished (a reset plays it again): a chat mute lasts
    /// until the next one.
    private(set) var endings = 0
    var members = RoomMembers()
    /// Set for a game created with a `delay`: what its spectators see, and when.
    private(set) var delayLine: DelayLine?
    var chat = ChatLog()
    /// Merged presence: counts changed since the last update; queued in the room table's list.
    var presenceDirty = false
    var presenceQueued = false
    var lastPresenceSent = Instant.distantPast

    /// The storage ticket of the newest write for this game (0: nothing ever waited).
    private(set) var lastTicket: UInt64 = 0
    private var outbox: [Pending] = []
    private var outboxHead = 0

    enum Output: Equatable {
        /// To every member at release time (and, delayed, to delayed spectators).
        case broadcast(OutFrame)
        /// A diff, one frame per group of views (a game without seat views has one), and the
        /// command that made it (a delayed spectators' copy applies it again when it is due).
        case viewBroadcast([ViewFrame], seq: Int, command: AppliedCommand)
        /// A chat line, to those who may read its room.
        case chat(ChatLine, OutFrame)
        case reply(ConnectionID, OutFrame)
        /// An acknowledgement; what it answers decides what becomes of it if the write it waits for fails.
        case ack(ConnectionID, id: JSON, seq: Int?, of: AckedRequest)
        /// The connection starts receiving broadcasts (its state is current as of `seq`).
        case subscribe(ConnectionID, seq: Int)
        /// A cluster node's marker: everything this room owed the connection before it is out.
        case marker(ConnectionID, UInt64)
        /// Work that must see everything before it durable (a storage read of this game).
        case afterDurable(HubAction)
    }

    struct ViewFrame: Equatable {
        var viewers: [Viewer]
        var frame: OutFrame
    }

    struct Pending {
        var ticket: UInt64
        var output: Output
        /// When the move that produced it arrived, for the latency metric.
        var arrival: Instant?
    }

    init(id: String, game: AnyGame, tokenHash: String, options: JSON, created: Instant, memory: RoomMemory) {
        self.id = id
        self.kind = game.kind
        self.game = game
        self.tokenHash = tokenHash
        self.options = options
        storedOptions = options
        watchPolicy = WatchPolicy(stored: options)
        self.created = created.unixTime
        self.updated = created.unixTime
        lastActivity = created
        touchNoted = created  // its row, written now, is touched already
        window = DiffWindow(capacity: memory.windowSize)
        appliedIDs = AppliedIDs(recentCapacity: memory.windowSize)
        chat = ChatLog(keepsEverything: memory.keepsEverything)
        if let delay = Self.delay(of: options) { delayLine = DelayLine(delay: delay, game: game, seq: 0) }
    }

    /// Notes that a signed-in user plays as `player`; true if the stored game must be written again.
    func record(_ user: SignedUser, as player: String) -> Bool { users.record(user, as: player) }

    /// A player id handed out: true if it is past every one stored (the game's row is stored again).
    func noteIssued(_ player: String) -> Bool {
        guard seats.isEmpty, let number = RoomMembers.playerNumber(player), number > max(issuedPlayers, 1) else { return false }
        issuedPlayers = number
        return true
    }

    private func rebuildStoredOptions() {
        var stored = users.stored.map { options.setting(GameUsers.option, to: $0) } ?? options
        if issuedPlayers > 1 { stored = stored.setting(Self.issuedPlayersOption, to: .int(issuedPlayers)) }
        storedOptions = stored
    }

    /// A room rebuilt from storage by `GameLoader`.
    init(loaded: LoadedGame, windowSize: Int, now: Instant) {
        id = loaded.stored.id
        kind = loaded.game.kind
        game = loaded.game
        tokenHash = loaded.stored.tokenHash
        options = loaded.stored.options.removing(GameUsers.option).removing(Self.issuedPlayersOption)
        issuedPlayers = loaded.stored.options[Self.issuedPlayersOption]?.intValue ?? 0
        storedOptions = loaded.stored.options
        watchPolicy = WatchPolicy(stored: options)
        users = GameUsers(stored: loaded.stored.options[GameUsers.option])
        created = loaded.stored.created
        updated = loaded.stored.updated
        // As old as its last stored command: a game loaded only to be looked at rests again soon.
        lastActivity = now + min(0, loaded.stored.updated - now.unixTime)
        releasedSeq = loaded.seq
        window = DiffWindow(capacity: windowSize)
        appliedIDs = loaded.appliedIDs
        restore(loaded, now: now)
    }

    /// The `delay` of stored options, when there is one.
    static func delay(of options: JSON) -> Double? {
        guard let delay = options["delay"]?.doubleValue, delay > 0 else { return nil }
        return delay
    }

    private func restore(_ loaded: LoadedGame, now: Instant) {
        seq = loaded.seq
        members.continuePlayerIDs(from: max(loaded.nextPlayer, users.nextPlayerNumber, issuedPlayers + 1))
        chat = ChatLog(recent: loaded.recentChat)
        if let seated = loaded.bots { seatBots(seated) }
        delayLine = nil
        if let delay = Self.delay(of: options), let delayed = loaded.delayed {
            var line = DelayLine(delay: delay, game: delayed.game, seq: delayed.seq)
            // What was said and done within the delay is still due to spectators, when it would have been.
            for item in delayed.pending {
                line.push(item.output, now: now + (item.time - now.unixTime))
            }
            delayLine = line
        }
        for (offset, text) in loaded.recentDiffs.enumerated() {
            window.append(diffText: text, seq: loaded.seq - loaded.recentDiffs.count + offset + 1, keepFrom: keepFrom)
        }
    }

    // MARK: What spectators see

    /// The seq spectators see (behind `seq` by the delay, if any): the lobby's seq.
    var spectatorSeq: Int { delayLine?.seq ?? seq }

    /// The game as members of this audience see it now.
    func game(for key: AudienceKey) -> AnyGame { key == .delayed ? delayLine?.game ?? game : game }
    func seq(for key: AudienceKey) -> Int { key == .delayed ? spectatorSeq : seq }

    /// Where a new member receives broadcasts.
    func audienceKey(for role: Role, seat: String?) -> AudienceKey {
        if let seat, game.hasSeatViews { return .seat(seat) }
        if role.isPlayer { return .players }
        return delayLine == nil ? .spectators : .delayed
    }

    /// Over (its status's phase): the spectators' chat room opens to players, and mutes end.
    var isOver: Bool { game.isOver }

    private var keepFrom: Int { delayLine.map { $0.seq + 1 } ?? .max }

    // MARK: Seats

    /// The game's seats (empty for a game any number of players share).
    var seats: [String] { game.seats }
    /// The seats bots play (section 18): held from the start, never free for a join. From the
    /// create's options, or from the last reset that named them (`seatBots`).
    private(set) lazy var bots: BotSeats = botSeats(options)

    private func botSeats(_ options: JSON) -> BotSeats {
        (try? BotSeats.read(options, seats: seats, levels: game.botLevels)) ?? BotSeats()
    }

    /// A reset's `bots` (already checked): the seats the server plays from now on.
    func seatBots(_ bots: JSON) { self.bots = botSeats(.object(["bots": bots])) }
    /// The seats a person may take.
    var peopleSeats: [String] {
        let bots = self.bots.seats
        return seats.filter { !bots.contains($0) }
    }

    var everySeatTaken: Bool { members.everySeatTaken(of: peopleSeats) }

    /// `joined` for a member of this game: its delay, clock and bots, and the server's time; the
    /// players' names where users sign in, and for a player the watch key (section 19).
    func joinedFrame(role: Role, seq: Int, now: Instant, user: SignedUser? = nil) -> OutFrame {
        let bots = self.bots
        var access = JoinedAccess()
        if showsNames { access.names = users.names }
        if watchPolicy != .anyone { access.watch = watchPolicy.rawValue }
        if role.isPlayer { access.key = WatchKey.of(options) }
        return ServerMessage.joined(game: id, kind: kind, role: role, seq: seq, delay: Self.delay(of: options),
                                    clock: options["clock"], bots: bots.isEmpty ? JSON?.none : bots.json, now: now.unixTime,
                                    access: access).frame
    }

    /// `presence`, with the players' names where users sign in.
    var presenceFrame: OutFrame {
        ServerMessage.presence(game: id, players: members.players, spectators: members.spectators,
                               names: showsNames ? users.names : JSON?.none).frame
    }

    /// A chat line as members get it: a signed-in player's carries their name.
    func chatFrame(_ line: ChatLine) -> OutFrame {
        line.frame(game: id, name: showsNames ? users.holder(of: line.by)?.name ?? line.name : nil)
    }

    /// `/api/games/GAME`: the lobby object, for a game watched by link only with its key.
    func apiAnswer(key: String?) -> HTTPResponse {
        guard watchPolicy == .anyone || WatchKey.matches(key, options: options) else {
            return .text(404, "no game \(id)\n")
        }
        return .json(lobbyEntry.json.encoded)
    }

    // MARK: Commands

    /// Applies a command; on success records it (seq, window, applied id, activity) and
    /// returns one frame per group of views (the spectators' group first) with the events.
    func apply(_ command: GameCommand, cause: JSON, player: String, author: CommandAuthor = .player, clientID: String?,
               now: Instant)
        -> Result<(frames: [ViewFrame], events: [GameEvent], applied: AppliedCommand), GameError> {
        let applied = AppliedCommand(command: command, player: player, time: now.unixTime)
        let wasOver = isOver
        let outcome: GameOutcome
        switch game.apply(command, context: MoveContext(player: player, time: applied.time)) {
        case .success(let result): outcome = result
        case .failure(let error): return .failure(error)
        }
        seq += 1
        let cause = author.cause(cause, player: player)
        // The spectators' group comes first: its frame is the one stored and kept in the window.
        var frames: [ViewFrame] = []
        frames.reserveCapacity(1 + outcome.otherViews.count)
        outcome.forEachView { viewers, diff in
            frames.append(ViewFrame(viewers: viewers,
                                    frame: ServerMessage.diff(game: id, seq: seq, encodedOps: diff.encodedOps, cause: cause).frame))
        }
        window.append(frames[0].frame, seq: seq, keepFrom: keepFrom)
        if let clientID { appliedIDs.insert(clientID, seq: seq) }
        updated = now.unixTime
        lastActivity = now
        if isOver && !wasOver { endings += 1 }
        return .success((frames, outcome.events, applied))
    }

    /// A stored or remembered diff (the spectators' form) as `viewer` may see it: in a game with
    /// seat views, the game derives a seat's copy from the full diff.
    func frame(_ full: OutFrame, for viewer: Viewer) -> OutFrame {
        guard game.hasSeatViews, case .seat = viewer,
              let message = try? JSONText.parse(full.text), let seq = message["seq"]?.intValue,
              let ops = message["ops"]?.arrayValue, let cause = message["cause"] else { return full }
        let diff = Diff(ops.compactMap(PatchOp.init(json:)))
        return ServerMessage.diff(game: id, seq: seq, encodedOps: game.diff(diff, for: viewer).encodedOps,
                                  cause: cause).frame
    }

    /// The snapshot members of this audience see now, encoded once per seq however many join.
    func snapshotFrame(for key: AudienceKey) -> OutFrame {
        let seq = seq(for: key)
        let cacheKey = SnapshotKey(viewer: key.viewer, delayed: key == .delayed)
        if let cached = snapshotCache[cacheKey], cached.seq == seq { return cached.frame }
        let frame = ServerMessage.snapshot(game: id, kind: kind, seq: seq,
                                           state: game(for: key).publicState(for: key.viewer)).frame
        snapshotCache[cacheKey] = (seq, frame)
        return frame
    }

    private struct SnapshotKey: Hashable {
        var viewer: Viewer
        var delayed: Bool
    }

    private var snapshotCache: [SnapshotKey: (seq: Int, frame: OutFrame)] = [:]

    /// The state at seq 0, rebuilt from the stored options (replays are rare: not kept in memory).
    func initialSnapshotFrame(for viewer: Viewer, games: GameCatalog) -> OutFrame {
        let initial = (try? games.restore(kind: kind, options: options, time: created)) ?? game
        return ServerMessage.snapshot(game: id, kind: kind, seq: 0, state: initial.publicState(for: viewer)).frame
    }

    /// The `show` drawing of what this audience sees, drawn once per seq however often asked for.
    func textBoardFrames(for key: AudienceKey) -> [OutFrame] {
        let seq = seq(for: key)
        let cacheKey = SnapshotKey(viewer: key.viewer, delayed: key == .delayed)
        if let cached = textBoardCache[cacheKey], cached.seq == seq { return cached.frames }
        let shown = game(for: key)
        let header = "\(kind.rawValue) \(id)  seq \(seq)  \(shown.status)"
        let frames = shown.text(for: key.viewer, heading: header).map { OutFrame($0) }
        textBoardCache[cacheKey] = (seq, frames)
        return frames
    }

    private var textBoardCache: [SnapshotKey: (seq: Int, frames: [OutFrame])] = [:]

    // MARK: The delayed spectators

    /// Queues the spectators' copy of what the players just got.
    func delay(_ output: DelayLine.Output, now: Instant) { delayLine?.push(output, now: now) }

    var hasDelayedOutput: Bool { !(delayLine?.isEmpty ?? true) }
    var nextDelayedDue: Instant? { delayLine?.nextDue }

    /// What is now due to delayed spectators, in order.
    func releaseDelayed(now: Instant) -> [DelayLine.Output] { delayLine?.release(now: now) ?? [] }

    // MARK: Output

    func noteTicket(_ ticket: UInt64) {
        if ticket > lastTicket { lastTicket = ticket }
    }

    /// Queues output behind everything already waiting, gated on this game's newest ticket.
    func enqueue(_ output: Output, arrival: Instant? = nil) {
        outbox.append(Pending(ticket: lastTicket, output: output, arrival: arrival))
    }

    var hasWaitingOutput: Bool { outboxHead < outbox.count }

    /// Hands every output whose ticket is durable to `deliver`, in order.
    func release(committed: UInt64, deliver: (Output, Instant?) -> Void) {
        while outboxHead < outbox.count, outbox[outboxHead].ticket <= committed {
            let pending = outbox[outboxHead]
            outboxHead += 1
            if case .viewBroadcast(_, let seq, _) = pending.output { releasedSeq = seq }
            deliver(pending.output, pending.arrival)
        }
        if outboxHead == outbox.count {
            outbox.removeAll(keepingCapacity: outbox.count <= 64)
            outboxHead = 0
        } else if outboxHead > 256 && outboxHead * 2 > outbox.count {
            outbox.removeFirst(outboxHead)
            outboxHead = 0
        }
    }

    /// Takes out every output gated on `ticket` or later: their write failed. What is
    /// queued from now on waits only for what is left.
    func discardOutput(fromTicket ticket: UInt64) -> [Output] {
        lastTicket = min(lastTicket, ticket - 1)
        var kept: [Pending] = []
        var dropped: [Output] = []
        for pending in outbox[outboxHead...] {
            if pending.ticket >= ticket { dropped.append(pending.output) } else { kept.append(pending) }
        }
        outbox = kept
        outboxHead = 0
        return dropped
    }

    func waits(onAnyOf tickets: ClosedRange<UInt64>) -> Bool {
        outbox[outboxHead...].contains { tickets.contains($0.ticket) }
    }

    /// Replaces the game with the one storage holds (after a failed write), keeping the members.
    func rewind(to loaded: LoadedGame, now: Instant) {
        game = loaded.game
        releasedSeq = loaded.seq
        updated = loaded.stored.updated
        window.removeAll()
        appliedIDs = loaded.appliedIDs
        restore(loaded, now: now)
        snapshotCache = [:]
        textBoardCache = [:]
    }

    var lobbyEntry: LobbyEntry {
        LobbyEntry(game: id, kind: kind, status: game(for: .delayed).status, seq: spectatorSeq, players: members.players,
                   spectators: members.spectators, created: created, updated: updated,
                   seats: seats.isEmpty ? nil : seats.count, delay: delayLine?.delay, clock: options["clock"],
                   bots: bots.isEmpty ? JSON?.none : bots.json, names: showsNames ? users.names : JSON?.none,
                   watch: watchPolicy == .anyone ? nil : watchPolicy.rawValue)
    }

    var storedGame: StoredGame {
        StoredGame(id: id, kind: kind.rawValue, options: storedOptions, tokenHash: tokenHash, created: created,
                   updated: updated, status: game.status, seq: seq)
    }
}
