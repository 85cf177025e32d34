import Core

/// What a game owed its members when its write failed, to settle once it is rebuilt
/// (or handed to another node): `Durability` takes it back and settles it.
struct Rewind {
    var room: GameRoom
    var reason: String
    /// Acks of commands whose write failed: they become `unavailable` errors.
    var failedAcks: [(ConnectionID, JSON)] = []
    /// Other acks that were not sent yet: sent again once the game is back.
    var acks: [(ConnectionID, JSON)] = []
    /// Acks of command ids sent again: confirmed once the game is back only if the store has them.
    var resentAcks: [UnsentAck] = []
    var members: [ConnectionID] = []
    /// Other nodes' forwarded requests, answered in full once the acks above are settled.
    var markers: [(ConnectionID, UInt64)] = []
    /// Joins and watches that arrived meanwhile: answered from the rebuilt game.
    var waiters: [ConnectionID] = []
    /// Storage could not be read either: the rebuild is tried again then.
    var retryAt: Instant?
    /// A try is under way.
    var retrying = false

    /// The seq of the last diff its members were sent live, when the write failed.
    var releasedSeq = 0
    /// Members whose reply (a join's catch-up, any answer) was dropped with the failed output.
    var interrupted: Set<ConnectionID> = []

    mutating func note(_ id: ConnectionID) {
        if !members.contains(id) { members.append(id) }
    }

    /// A member receiving the live stream, with nothing of its own dropped, that was sent
    /// every stored diff: it needs nothing again once the game is rebuilt.
    func sawEverythingStored(_ id: ConnectionID, session: Session, storedSeq: Int) -> Bool {
        session.recipientSlot >= 0 && session.key != .delayed && !interrupted.contains(id) && storedSeq == releasedSeq
    }
}

/// What an ack answers, which decides what becomes of it when the write it waits for fails.
enum AckedRequest: Equatable {
    /// A state-changing command applied now: refused (`unavailable`) if its write fails.
    case command
    /// A command id sent again, applied before at the ack's seq: confirmed only if the store has it.
    case resent
    /// Anything else (a join, a watch, a `say`): answered again once the game is back.
    case other
}

/// An ack dropped with a failed or refused write, to settle.
struct UnsentAck {
    var connection: ConnectionID
    var requestID: JSON
    /// The seq it would have carried (for a command id sent again: the seq it was applied at).
    var seq: Int?
    var request: AckedRequest

    init(_ connection: ConnectionID, _ requestID: JSON, _ seq: Int?, of request: AckedRequest) {
        self.connection = connection
        self.requestID = requestID
        self.seq = seq
        self.request = request
    }
}
