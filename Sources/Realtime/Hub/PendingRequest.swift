import Core

/// What the hub waits for off the service thread, filed in its one `PendingTable`.
enum PendingRequest {
    /// A member reading a game's old diffs from storage before it joins the live stream.
    case history(HistoryCatchUp)
    /// A replay reading the game's chat, to show it with the diffs.
    case replayChat(HistoryCatchUp)
    /// A re-sent command id the game's memory only has as a hash: storage knows its seq.
    case commandLookup(PendingLookup)
    /// `/api/games` past the live lobby.
    case listing(HTTPRequestID, LobbyQuery)
    /// A `create` or a command waiting for a seed to be proven (a game's `SeedRequest`).
    case proof(PendingProof)
    /// Everyone asking for the hint of one position: one solve answers them all.
    case hint(PositionKey, askers: [CommandOrigin])
    /// A bot of this seat thinking of its move.
    case bot(GameRoom, seat: String)
    /// Which of these live games this node still owns (a shared store, after its lease ran out).
    case ownershipCheck(games: [String])

    /// The game it is about, when it is about a live one.
    var room: GameRoom? {
        switch self {
        case .history(let catchUp), .replayChat(let catchUp): return catchUp.room
        case .commandLookup(let lookup): return lookup.room
        case .bot(let room, _): return room
        case .proof(let proof):
            if case .command(let room, _) = proof.waiting { return room }
            return nil
        default: return nil
        }
    }
}

/// A connection reading a game's old diffs before it joins the live stream.
struct HistoryCatchUp {
    var connection: ConnectionID
    var room: GameRoom
    var after: Int
    var requestID: JSON?
    /// The ack of a `create`: if the game's row fails to store, it becomes an error.
    var isCreation = false
    /// A delayed spectator: answered at once, not behind the room's outbox.
    var direct = false
    /// A replay: the chat said along the way, shown after the diff it followed.
    var replaying = false
    /// Taken in from another owner without a word to the client.
    var quiet = false
    var chat: [ChatLine] = []
}

struct PendingLookup {
    var connection: ConnectionID
    var room: GameRoom
    var gesture: ParsedGesture
    var requestID: JSON
    var arrival: Instant?
}

/// A create or a command (a reset) waiting for its seed to be proven.
struct PendingProof {
    enum Waiting {
        case create(kind: GameKind, options: JSON)
        case command(room: GameRoom, gesture: ParsedGesture)
    }

    var origin: CommandOrigin
    var waiting: Waiting
    /// What must be proven. When the client named it (`given`), an unprovable one is its
    /// mistake (`illegal-move`), not the server's (`unavailable`).
    var request: SeedRequest
}
