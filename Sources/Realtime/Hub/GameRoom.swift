import Core

/// One live game: its state, its members, a window of its recent diffs, and the
/// output that waits for storage.
///
/// Output waits in `outbox` until the storage ticket it depends on is durable, so a
/// diff never leaves before its command is stored, and everything a connection is
/// sent about this game keeps the order in which it was decided.
final class GameRoom {
    let id: String
    let kind: GameKind
    var game: AnyGame
    let tokenHash: String
    /// The stored creation options, secret parts included: never shown.
    let options: JSON
    let created: Double
    /// The time of the last command (or of creation): the lobby's `updated`, and what `--idle` counts from.
    var updated: Double
    private(set) var seq = 0
    /// The most recent diff frames; older ones are read from storage.
    private(set) var window: DiffWindow
    private(set) var appliedIDs: AppliedIDs

    /// The connections that receive this game's broadcasts, by what they may see (only a
    /// race has more than the spectators' view), each knowing its own slot.
    private(set) var audiences: [RaceViewer: ContiguousArray<Connection>] = [:]
    private(set) var memberCount = 0
    /// Recipients on other nodes of a cluster: while there are any, broadcasts are published.
    private(set) var remoteRecipients = 0
    /// A race's seats and who holds each now; the seats taken at least once since the deal.
    private(set) var seatHolders: [String: Connection] = [:]
    private(set) var seatsTaken: Set<String> = []
    private(set) var playerCount = 0
    private var nextPlayer = 1
    var presenceDirty = false
    /// In the hub's list of rooms whose presence is due, so a crowd of joiners puts it there once.
    var presenceQueued = false
    var lastPresenceSent = -Double.infinity

    /// The storage ticket of the newest write for this game (0: nothing ever waited).
    private(set) var lastTicket: UInt64 = 0
    private var outbox: [Pending] = []
    private var outboxHead = 0

    enum Output {
        /// To every recipient at release time, whatever its view.
        case broadcast(OutFrame)
        /// A diff, one frame per group of views (every game but a race has one view).
        case viewBroadcast([(viewers: [RaceViewer], frame: OutFrame)], seq: Int)
        case reply(Connection, OutFrame)
        /// An acknowledgement. If the write it waits for fails, a state-changing command's
        /// (`isCommand`) becomes an `unavailable` error; any other is sent again after the rewind.
        case ack(Connection, id: JSON, seq: Int?, isCommand: Bool)
        /// The connection starts receiving broadcasts (its state is current as of `seq`).
        case subscribe(Connection, seq: Int)
        /// Work that must see everything before it durable (a storage read of this game).
        case afterDurable(HubAction)
    }

    struct Pending {
        var ticket: UInt64
        var output: Output
        /// When the move that produced it arrived, for the latency metric.
        var arrival: ContinuousClock.Instant?
    }

    init(id: String, game: AnyGame, tokenHash: String, options: JSON, created: Double, windowSize: Int) {
        self.id = id
        self.kind = game.kind
        self.game = game
        self.tokenHash = tokenHash
        self.options = options
        self.created = created
        self.updated = created
        window = DiffWindow(capacity: windowSize)
        appliedIDs = AppliedIDs(recentCapacity: windowSize)
    }

    /// A room rebuilt from storage by `GameLoader`.
    init(loaded: LoadedGame, windowSize: Int) {
        id = loaded.stored.id
        kind = loaded.game.kind
        game = loaded.game
        tokenHash = loaded.stored.tokenHash
        options = loaded.stored.options
        created = loaded.stored.created
        updated = loaded.stored.updated
        seq = loaded.seq
        window = DiffWindow(capacity: windowSize)
        for (offset, text) in loaded.recentDiffs.enumerated() {
            window.append(OutFrame(text), seq: loaded.seq - loaded.recentDiffs.count + offset + 1)
        }
        appliedIDs = loaded.appliedIDs
        nextPlayer = loaded.nextPlayer
    }

    // MARK: Members

    /// Counts a new member. A player gets the next player id, or in a race the seat given.
    func addMember(asPlayer: Bool, seat: String? = nil) -> Role {
        memberCount += 1
        presenceDirty = true
        guard asPlayer else { return .spectator }
        playerCount += 1
        if let seat { return .player(seat) }
        defer { nextPlayer += 1 }
        return .player("p\(nextPlayer)")
    }

    func removeMember(_ connection: Connection) {
        memberCount -= 1
        if connection.session.role?.isPlayer == true { playerCount -= 1 }
        if case .seat(let seat) = connection.session.view, seatHolders[seat] === connection { seatHolders[seat] = nil }
        presenceDirty = true
        unsubscribe(connection)
    }

    var spectatorCount: Int { memberCount - playerCount }

    // MARK: Race seats

    var seats: [String] {
        if case .race(let race) = game { return race.seats }
        return []
    }

    /// The seat a join takes: the one asked for if nobody (else) holds it, or the first free one.
    func freeSeat(asked: String?, by connection: Connection) -> String? {
        func free(_ seat: String) -> Bool { seatHolders[seat] == nil || seatHolders[seat] === connection }
        if let asked { return seats.contains(asked) && free(asked) ? asked : nil }
        return seats.first(where: free)
    }

    func take(seat: String, by connection: Connection) {
        seatHolders[seat] = connection
        seatsTaken.insert(seat)
    }

    /// Every seat has been taken once: the race may start.
    var everySeatTaken: Bool { !seats.isEmpty && seatsTaken.count == seats.count }

    // MARK: Recipients

    func subscribe(_ connection: Connection) {
        guard connection.session.recipientSlot < 0 else { return }
        if connection.remote != nil {
            // Another node's connection: its node delivers the one publication of each broadcast,
            // so it is counted, not listed where every local fan-out would walk past it.
            connection.session.recipientSlot = Int.max
            remoteAudience[ObjectIdentifier(connection)] = connection
            remoteRecipients += 1
            return
        }
        let view = connection.session.view
        connection.session.recipientSlot = audiences[view, default: []].count
        audiences[view, default: []].append(connection)
    }

    /// Swap-remove: O(1), and every recipient keeps knowing its slot.
    func unsubscribe(_ connection: Connection) {
        if connection.remote != nil {
            if remoteAudience.removeValue(forKey: ObjectIdentifier(connection)) != nil { remoteRecipients -= 1 }
            connection.session.recipientSlot = -1
            return
        }
        let slot = connection.session.recipientSlot
        let view = connection.session.view
        guard slot >= 0, var audience = audiences[view], slot < audience.count, audience[slot] === connection else { return }
        audiences[view] = nil  // keep the array unique while it changes
        let last = audience.removeLast()
        if slot < audience.count {
            audience[slot] = last
            last.session.recipientSlot = slot
        }
        if !audience.isEmpty { audiences[view] = audience }
        connection.session.recipientSlot = -1
    }

    /// Everyone who receives broadcasts, whatever their view or node.
    var allRecipients: [Connection] { audiences.values.flatMap { $0 } + remoteAudience.values }

    /// Other nodes' connections that receive broadcasts (through their node).
    private var remoteAudience: [ObjectIdentifier: Connection] = [:]

    // MARK: Commands

    /// Records an applied command: bumps seq, keeps the spectators' diff in the window, and
    /// returns one frame per group of views (the spectators' group first) for the broadcast.
    func record(_ outcome: GameOutcome, cause: JSON, clientID: String?, time: Double)
        -> [(viewers: [RaceViewer], frame: OutFrame)] {
        seq += 1
        var frames: [(viewers: [RaceViewer], frame: OutFrame)] = []
        var full: OutFrame?
        for view in outcome.views {
            let frame = ServerMessage.diff(game: id, seq: seq, encodedOps: view.diff.encodedOps, cause: cause).frame
            if view.viewers.contains(.spectator) {
                full = frame
                frames.insert((view.viewers, frame), at: 0)
            } else {
                frames.append((view.viewers, frame))
            }
        }
        window.append(full ?? ServerMessage.diff(game: id, seq: seq, encodedOps: outcome.fullDiff.encodedOps,
                                                 cause: cause).frame, seq: seq)
        if let clientID { appliedIDs.insert(clientID, seq: seq) }
        updated = time
        return frames
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
    func snapshotFrame(for viewer: RaceViewer = .spectator) -> OutFrame {
        if let cached = snapshotCache[viewer], cached.seq == seq { return cached.frame }
        let frame = ServerMessage.snapshot(game: id, kind: kind, seq: seq, state: game.publicState(for: viewer)).frame
        snapshotCache[viewer] = (seq, frame)
        return frame
    }

    private var snapshotCache: [RaceViewer: (seq: Int, frame: OutFrame)] = [:]

    /// The state at seq 0, rebuilt from the stored options (replays are rare: not kept in memory).
    func initialSnapshotFrame(for viewer: RaceViewer = .spectator) -> OutFrame {
        let initial = (try? AnyGame.restore(kind: kind, options: options, time: created)) ?? game
        return ServerMessage.snapshot(game: id, kind: kind, seq: 0, state: initial.publicState(for: viewer)).frame
    }

    /// The `show` drawing of the current state, drawn once per seq and view however often it is asked for.
    func textBoardFrames(for viewer: RaceViewer = .spectator) -> [OutFrame] {
        if let cached = textBoardCache[viewer], cached.seq == seq { return cached.frames }
        let header = "\(kind.rawValue) \(id)  seq \(seq)  \(game.status)"
        let frames = ([header] + game.textBoard(for: viewer)).map(OutFrame.init)
        textBoardCache[viewer] = (seq, frames)
        return frames
    }

    private var textBoardCache: [RaceViewer: (seq: Int, frames: [OutFrame])] = [:]

    // MARK: Output

    func noteTicket(_ ticket: UInt64) {
        if ticket > lastTicket { lastTicket = ticket }
    }

    /// Queues output behind everything already waiting, gated on this game's newest ticket.
    func enqueue(_ output: Output, arrival: ContinuousClock.Instant? = nil) {
        outbox.append(Pending(ticket: lastTicket, output: output, arrival: arrival))
    }

    var hasWaitingOutput: Bool { outboxHead < outbox.count }

    /// Hands every output whose ticket is durable to `deliver`, in order.
    func release(committed: UInt64, deliver: (Output, ContinuousClock.Instant?) -> Void) {
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

    /// The first ticket this room still waits for, if any.
    var oldestWaitingTicket: UInt64? { hasWaitingOutput ? outbox[outboxHead...].map(\.ticket).min() : nil }

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
        for (offset, text) in loaded.recentDiffs.enumerated() {
            window.append(OutFrame(text), seq: loaded.seq - loaded.recentDiffs.count + offset + 1)
        }
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

/// The last `capacity` diff frames of a game, by seq: what `since` is answered from
/// without storage.
struct DiffWindow {
    let capacity: Int
    private var frames: [OutFrame] = []
    /// Index in `frames` of the oldest kept frame (a ring once full).
    private var start = 0
    /// The seq of the newest frame (0: none yet).
    private(set) var lastSeq = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { frames.count }
    /// The seq of the oldest frame kept (lastSeq + 1 when empty).
    var firstSeq: Int { lastSeq - frames.count + 1 }

    mutating func append(_ frame: OutFrame, seq: Int) {
        if frames.isEmpty { lastSeq = seq - 1 }
        precondition(seq == lastSeq + 1, "diffs enter the window in seq order")
        if frames.count < capacity {
            frames.append(frame)
        } else {
            frames[start] = frame
            start = (start + 1) % capacity
        }
        lastSeq = seq
    }

    mutating func removeAll() {
        frames.removeAll()
        start = 0
        lastSeq = 0
    }

    /// Every diff after `since`, if the window still holds them all.
    func frames(after since: Int) -> [OutFrame]? {
        guard since >= firstSeq - 1 else { return nil }
        guard since < lastSeq else { return [] }
        return ((since + 1)...lastSeq).map { frames[(start + $0 - firstSeq) % frames.count] }
    }
}

/// Ids of a game's applied commands. The recent ones map to their seq in memory; older
/// ones are kept only as 64-bit hashes, so a re-sent old id is recognised without
/// keeping every id, and its seq is then read from storage.
struct AppliedIDs: Sendable {
    let recentCapacity: Int
    private var recent: [String: Int] = [:]
    private var recentOrder: [String] = []
    private var recentStart = 0
    private var hashes: Set<UInt64> = []

    init(recentCapacity: Int) { self.recentCapacity = max(1, recentCapacity) }

    enum Lookup: Equatable {
        case applied(seq: Int)
        /// Applied long ago (or a hash collision): ask storage.
        case maybe
        case new
    }

    func lookup(_ clientID: String) -> Lookup {
        if let seq = recent[clientID] { return .applied(seq: seq) }
        return hashes.contains(Self.hash(clientID)) ? .maybe : .new
    }

    mutating func insert(_ clientID: String, seq: Int) {
        hashes.insert(Self.hash(clientID))
        recent[clientID] = seq
        if recentOrder.count < recentCapacity {
            recentOrder.append(clientID)
        } else {
            recent[recentOrder[recentStart]] = nil
            recentOrder[recentStart] = clientID
            recentStart = (recentStart + 1) % recentCapacity
        }
    }

    /// FNV-1a: stable across processes (Swift's `Hasher` is seeded per process).
    static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h &*= 0x100_0000_01b3
        }
        return h
    }
}
