import Core

/// One live game: its state, its members by view, a window of its recent diffs, and the
/// output that waits for storage.
///
/// Output waits in the outbox until the storage ticket it depends on is durable, so a diff
/// never leaves before its command is stored, and everything a connection is sent about
/// this game keeps the order in which it was decided.
final class GameRoom {
    let id: String
    let kind: GameKind
    private(set) var game: AnyGame
    let tokenHash: String
    /// The stored creation options, secret parts included: never shown.
    let options: JSON
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

    /// The connections of this node that receive broadcasts, by what they may see (only a
    /// race has more than the spectators' view); each session knows its own slot.
    private(set) var audiences: [RaceViewer: Audience] = [:]
    /// Other nodes' connections that receive broadcasts: their node gets each broadcast once
    /// (published), so they are counted here, never walked by a local fan-out.
    private var remoteAudience: Set<ConnectionID> = []
    private(set) var memberCount = 0
    private(set) var playerCount = 0
    private var nextPlayer = 1
    /// A race's seats and who holds each now; the seats taken at least once since the deal.
    private var seatHolders: [String: ConnectionID] = [:]
    private var seatsTaken: Set<String> = []
    /// Merged presence: counts changed since the last update; queued in the room table's list.
    var presenceDirty = false
    var presenceQueued = false
    var lastPresenceSent = Instant.distantPast

    /// The storage ticket of the newest write for this game (0: nothing ever waited).
    private(set) var lastTicket: UInt64 = 0
    private var outbox: [Pending] = []
    private var outboxHead = 0

    enum Output: Equatable {
        /// To every recipient at release time, whatever its view.
        case broadcast(OutFrame)
        /// A diff, one frame per group of views (every game but a race has one view).
        case viewBroadcast([ViewFrame], seq: Int)
        case reply(ConnectionID, OutFrame)
        /// An acknowledgement. If the write it waits for fails, a state-changing command's
        /// (`isCommand`) becomes an `unavailable` error; any other is sent again after the rewind.
        case ack(ConnectionID, id: JSON, seq: Int?, isCommand: Bool)
        /// The connection starts receiving broadcasts (its state is current as of `seq`).
        case subscribe(ConnectionID, seq: Int)
        /// A cluster node's marker: everything this room owed the connection before it is out.
        case marker(ConnectionID, UInt64)
        /// Work that must see everything before it durable (a storage read of this game).
        case afterDurable(HubAction)
    }

    struct ViewFrame: Equatable {
        var viewers: [RaceViewer]
        var frame: OutFrame
    }

    struct Pending {
        var ticket: UInt64
        var output: Output
        /// When the move that produced it arrived, for the latency metric.
        var arrival: Instant?
    }

    init(id: String, game: AnyGame, tokenHash: String, options: JSON, created: Instant, windowSize: Int) {
        self.id = id
        self.kind = game.kind
        self.game = game
        self.tokenHash = tokenHash
        self.options = options
        self.created = created.unixTime
        self.updated = created.unixTime
        lastActivity = created
        window = DiffWindow(capacity: windowSize)
        appliedIDs = AppliedIDs(recentCapacity: windowSize)
    }

    /// A room rebuilt from storage by `GameLoader`.
    init(loaded: LoadedGame, windowSize: Int, now: Instant) {
        id = loaded.stored.id
        kind = loaded.game.kind
        game = loaded.game
        tokenHash = loaded.stored.tokenHash
        options = loaded.stored.options
        created = loaded.stored.created
        updated = loaded.stored.updated
        // As old as its last stored command: a game loaded only to be looked at rests again soon.
        lastActivity = now + min(0, loaded.stored.updated - now.unixTime)
        seq = loaded.seq
        window = DiffWindow(capacity: windowSize)
        appliedIDs = loaded.appliedIDs
        nextPlayer = loaded.nextPlayer
        fillWindow(loaded)
    }

    private func fillWindow(_ loaded: LoadedGame) {
        for (offset, text) in loaded.recentDiffs.enumerated() {
            window.append(diffText: text, seq: loaded.seq - loaded.recentDiffs.count + offset + 1)
        }
    }

    // MARK: Members

    /// Counts a new member. A player gets the next player id, or in a race the seat given.
    func addMember(asPlayer: Bool, seat: String?, id: ConnectionID) -> Role {
        memberCount += 1
        presenceDirty = true
        guard asPlayer else { return .spectator }
        playerCount += 1
        if let seat {
            seatHolders[seat] = id
            seatsTaken.insert(seat)
            return .player(seat)
        }
        defer { nextPlayer += 1 }
        return .player("p\(nextPlayer)")
    }

    /// Takes a member out (and out of its audience); says which other member changed slot.
    func removeMember(_ id: ConnectionID, role: Role?, view: RaceViewer, slot: Int) -> SlotMove? {
        memberCount -= 1
        if role?.isPlayer == true { playerCount -= 1 }
        if case .seat(let seat) = view, seatHolders[seat] == id { seatHolders[seat] = nil }
        presenceDirty = true
        return unsubscribe(id, view: view, slot: slot)
    }

    var spectatorCount: Int { memberCount - playerCount }

    // MARK: Race seats

    var seats: [String] {
        if case .race(let race) = game { return race.seats }
        return []
    }

    /// The seat a join takes: the one asked for if nobody (else) holds it, or the first free one.
    func freeSeat(asked: String?, by id: ConnectionID) -> String? {
        func free(_ seat: String) -> Bool { seatHolders[seat] == nil || seatHolders[seat] == id }
        if let asked { return seats.contains(asked) && free(asked) ? asked : nil }
        return seats.first(where: free)
    }

    /// Every seat has been taken once: the race may start.
    var everySeatTaken: Bool { !seats.isEmpty && seatsTaken.count == seats.count }

    // MARK: Recipients

    /// A member starts receiving broadcasts; returns its slot in its audience.
    func subscribe(_ id: ConnectionID, view: RaceViewer) -> Int {
        if id.isRemote {
            remoteAudience.insert(id)
            return Int.max
        }
        let slot = audiences[view, default: []].count
        audiences[view, default: []].append(id)
        return slot
    }

    /// A recipient moved to another slot of its audience (the session must learn its new slot).
    struct SlotMove: Equatable {
        var id: ConnectionID
        var slot: Int
    }

    /// Swap-remove: O(1), and every other recipient keeps a slot it can be told about.
    func unsubscribe(_ id: ConnectionID, view: RaceViewer, slot: Int) -> SlotMove? {
        if id.isRemote {
            remoteAudience.remove(id)
            return nil
        }
        guard slot >= 0, var audience = audiences[view], slot < audience.count, audience[slot] == id else { return nil }
        audiences[view] = nil  // keep the array unique while it changes
        let last = audience.removeLast()
        var move: SlotMove?
        if slot < audience.count {
            audience[slot] = last
            move = SlotMove(id: last, slot: slot)
        }
        if !audience.isEmpty { audiences[view] = audience }
        return move
    }

    var hasRemoteRecipients: Bool { !remoteAudience.isEmpty }

    /// Everyone who receives broadcasts, whatever their view or node.
    var allRecipients: [ConnectionID] { audiences.values.flatMap { $0 } + remoteAudience.sorted() }

    // MARK: Commands

    /// Applies a command; on success records it (seq, window, applied id, activity) and
    /// returns one frame per group of views (the spectators' group first) with the events.
    func apply(_ command: GameCommand, cause: JSON, player: String, clientID: String?, now: Instant)
        -> Result<(frames: [ViewFrame], events: [GameEvent]), GameError> {
        let outcome: GameOutcome
        switch game.apply(command, context: MoveContext(player: player, time: now.unixTime)) {
        case .success(let result): outcome = result
        case .failure(let error): return .failure(error)
        }
        seq += 1
        let cause = cause.adding(by: player)
        var frames: [ViewFrame] = []
        var full: OutFrame?
        for view in outcome.views {
            let frame = ServerMessage.diff(game: id, seq: seq, encodedOps: view.diff.encodedOps, cause: cause).frame
            if view.viewers.contains(.spectator) {
                full = frame
                frames.insert(ViewFrame(viewers: view.viewers, frame: frame), at: 0)
            } else {
                frames.append(ViewFrame(viewers: view.viewers, frame: frame))
            }
        }
        window.append(full ?? ServerMessage.diff(game: id, seq: seq, encodedOps: outcome.fullDiff.encodedOps,
                                                 cause: cause).frame, seq: seq)
        if let clientID { appliedIDs.insert(clientID, seq: seq) }
        updated = now.unixTime
        lastActivity = now
        return .success((frames, outcome.events))
    }

    /// A stored or remembered diff (the spectators' form) as `viewer` may see it: a seated
    /// racer's copy hides rivals' cards, derived from the full diff by its paths.
    func frame(_ full: OutFrame, for viewer: RaceViewer) -> OutFrame {
        guard kind == .race, case .seat = viewer,
              let message = try? JSONText.parse(full.text), let seq = message["seq"]?.intValue,
              let ops = message["ops"]?.arrayValue, let cause = message["cause"] else { return full }
        let diff = Diff(ops.compactMap(PatchOp.init(json:)))
        return ServerMessage.diff(game: id, seq: seq, encodedOps: RaceView.diff(diff, for: viewer).encodedOps,
                                  cause: cause).frame
    }

    /// The snapshot of the current state as `viewer` sees it, encoded once per seq however many join.
    func snapshotFrame(for viewer: RaceViewer) -> OutFrame {
        if let cached = snapshotCache[viewer], cached.seq == seq { return cached.frame }
        let frame = ServerMessage.snapshot(game: id, kind: kind, seq: seq, state: game.publicState(for: viewer)).frame
        snapshotCache[viewer] = (seq, frame)
        return frame
    }

    private var snapshotCache: [RaceViewer: (seq: Int, frame: OutFrame)] = [:]

    /// The state at seq 0, rebuilt from the stored options (replays are rare: not kept in memory).
    func initialSnapshotFrame(for viewer: RaceViewer) -> OutFrame {
        let initial = (try? AnyGame.restore(kind: kind, options: options, time: created)) ?? game
        return ServerMessage.snapshot(game: id, kind: kind, seq: 0, state: initial.publicState(for: viewer)).frame
    }

    /// The `show` drawing of the current state, drawn once per seq and view however often it is asked for.
    func textBoardFrames(for viewer: RaceViewer) -> [OutFrame] {
        if let cached = textBoardCache[viewer], cached.seq == seq { return cached.frames }
        let header = "\(kind.rawValue) \(id)  seq \(seq)  \(game.status)"
        let frames = ([header] + game.textBoard(for: viewer)).map { OutFrame($0) }
        textBoardCache[viewer] = (seq, frames)
        return frames
    }

    private var textBoardCache: [RaceViewer: (seq: Int, frames: [OutFrame])] = [:]

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
            deliver(pending.output, pending.arrival)
        }
        compactOutbox()
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

    private func compactOutbox() {
        if outboxHead == outbox.count {
            outbox.removeAll(keepingCapacity: outbox.count <= 64)
            outboxHead = 0
        } else if outboxHead > 256 && outboxHead * 2 > outbox.count {
            outbox.removeFirst(outboxHead)
            outboxHead = 0
        }
    }

    /// Replaces the game with the one storage holds (after a failed write), keeping the members.
    func rewind(to loaded: LoadedGame) {
        game = loaded.game
        seq = loaded.seq
        updated = loaded.stored.updated
        window.removeAll()
        fillWindow(loaded)
        appliedIDs = loaded.appliedIDs
        nextPlayer = max(nextPlayer, loaded.nextPlayer)
        snapshotCache = [:]
        textBoardCache = [:]
    }

    var lobbyEntry: LobbyEntry {
        LobbyEntry(game: id, kind: kind, status: game.status, seq: seq, players: playerCount,
                   spectators: spectatorCount, created: created, updated: updated,
                   seats: kind == .race ? seats.count : nil)
    }

    var storedGame: StoredGame {
        StoredGame(id: id, kind: kind.rawValue, options: options, tokenHash: tokenHash, created: created,
                   updated: updated, status: game.status, seq: seq)
    }
}
