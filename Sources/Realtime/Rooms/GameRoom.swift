import Core

/// One live game: its state, its members, its history of diffs, and the output
/// that waits for storage.
///
/// Output waits in `outbox` until the storage ticket it depends on is durable, so a
/// diff never leaves before its command is stored, and everything a connection is
/// sent about this game keeps the order in which it was decided.
final class GameRoom {
    let id: String
    let kind: GameKind
    var game: AnyGame
    let tokenHash: String
    let options: JSON
    let created: Double
    var updated: Double
    /// The public state at seq 0, for replays from the deal.
    let initialState: JSON
    private(set) var seq = 0
    /// `history[n - 1]` is the diff message of seq n, kept to answer `since`.
    private(set) var history: [OutFrame] = []
    /// Client ids of applied commands (as JSON text) and the seq each caused.
    private var appliedIDs: [String: Int] = [:]

    private(set) var members: [ConnectionID: Member] = [:]
    private(set) var playerCount = 0
    private var nextPlayer = 1
    var presenceDirty = false

    /// The storage ticket of the newest command of this game (0: nothing ever waited).
    private(set) var lastTicket: UInt64 = 0
    private var outbox: [Pending] = []
    private var outboxHead = 0

    struct Member {
        var role: Role
        /// The seq of the state this member was given; it gets only diffs after it.
        var since: Int
    }

    enum Output {
        case toMembers(OutFrame, seq: Int)
        case to(ConnectionID, OutFrame)
        case toMany([ConnectionID], OutFrame)
    }

    struct Pending {
        var ticket: UInt64
        var output: Output
        /// When the move that produced it arrived, for the latency metric.
        var arrival: ContinuousClock.Instant?
    }

    init(id: String, game: AnyGame, tokenHash: String, options: JSON, created: Double) {
        self.id = id
        self.kind = game.kind
        self.game = game
        self.tokenHash = tokenHash
        self.options = options
        self.created = created
        self.updated = created
        initialState = game.publicState
    }

    // MARK: Members

    func addPlayer(_ connection: ConnectionID) -> String {
        let you = "p\(nextPlayer)"
        nextPlayer += 1
        members[connection] = Member(role: .player(you), since: seq)
        playerCount += 1
        presenceDirty = true
        return you
    }

    func addSpectator(_ connection: ConnectionID) {
        members[connection] = Member(role: .spectator, since: seq)
        presenceDirty = true
    }

    /// Removes a member and returns the role it had.
    @discardableResult
    func removeMember(_ connection: ConnectionID) -> Role? {
        guard let member = members.removeValue(forKey: connection) else { return nil }
        if case .player = member.role { playerCount -= 1 }
        presenceDirty = true
        return member.role
    }

    var spectatorCount: Int { members.count - playerCount }

    /// Player ids continue after those already used, so `by` in history stays unambiguous.
    func notePlayerSeen(_ player: String) {
        if player.hasPrefix("p"), let n = Int(player.dropFirst()), n >= nextPlayer { nextPlayer = n + 1 }
    }

    // MARK: Commands

    func seqForClientID(_ key: String) -> Int? { appliedIDs[key] }

    /// Records an applied command's diff; returns the diff message frame.
    func record(diff: Diff, cause: JSON, clientID: String?, time: Double) -> OutFrame {
        seq += 1
        let frame = OutFrame(ServerMessage.diff(game: id, seq: seq, encodedOps: diff.encodedOps, cause: cause))
        history.append(frame)
        if let clientID { appliedIDs[clientID] = seq }
        updated = time
        return frame
    }

    func diffs(after since: Int) -> ArraySlice<OutFrame> {
        history[min(since, history.count)...]
    }

    /// The `show` drawing of the current state, drawn once per seq however often it is asked for.
    var textBoardFrames: [OutFrame] {
        if let cached = textBoardCache, cached.seq == seq { return cached.frames }
        let header = "\(kind.rawValue) \(id)  seq \(seq)  \(game.status)"
        let frames = ([header] + game.textBoard).map(OutFrame.init)
        textBoardCache = (seq, frames)
        return frames
    }

    private var textBoardCache: (seq: Int, frames: [OutFrame])?

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
        if outboxHead == outbox.count {
            outbox.removeAll(keepingCapacity: true)
            outboxHead = 0
        } else if outboxHead > 256 && outboxHead * 2 > outbox.count {
            outbox.removeFirst(outboxHead)
            outboxHead = 0
        }
    }

    /// The members a diff of `seq` goes to: those whose state is older than it.
    func recipients(ofSeq diffSeq: Int) -> [ConnectionID] {
        members.compactMap { $0.value.since < diffSeq ? $0.key : nil }
    }

    var lobbyEntry: LobbyEntry {
        LobbyEntry(game: id, kind: kind, status: game.status, seq: seq, players: playerCount,
                   spectators: spectatorCount, created: created, updated: updated)
    }

    var storedGame: StoredGame {
        StoredGame(id: id, kind: kind.rawValue, options: options, tokenHash: tokenHash, created: created,
                   updated: updated, status: game.status, seq: seq)
    }
}
