import Core

/// Everything that can happen to the realtime layer, as one value: the shell turns lws
/// callbacks, storage and solver results and the ticker into these and
/// hands each to `Hub.handle(_:at:)`, with the time it read once.
enum HubEvent: Sendable {
    /// A WebSocket connection was accepted (`query`: the upgrade's `?watch=` / `?game=&token=`;
    /// `user`: who its `Authorization: Bearer` token, already verified, signs it in as).
    case opened(ConnectionID, ClientAddress, query: [String: String], user: SignedUser? = nil)
    /// One whole text message.
    case frame(ConnectionID, [UInt8])
    case binaryFrame(ConnectionID)
    case closed(ConnectionID)
    /// `/api/...`.
    case http(HTTPRequestID, path: String, query: String?)
    /// Storage made every ticket up to this one durable; `refused` games had nothing of theirs written.
    case committed(upTo: UInt64, refused: [String: WriteRefusal])
    /// The writes of these tickets failed (and every later one until `resumeStorage`).
    case storageFailed(ClosedRange<UInt64>, reason: String)
    case read(StorageAnswer)
    case solved(SolveResult)
    /// The ticker (every 100 ms in the server).
    case tick
    /// The instant of the last `HubAction.wake` has come.
    case due
    /// The store stopped answering the health probe (`problem`), or answers again (nil).
    case storeHealth(problem: String?)
}

/// The answer to a `read` action, from a reader thread.
enum StorageAnswer: Sendable {
    case loaded(game: String, LoadResult)
    case history(token: UInt64, frames: [String])
    case command(token: UInt64, seq: Int?)
    case listing(token: UInt64, games: [StoredGame]?)
    case chat(token: UInt64, lines: [StoredChat])
    case acquired(game: String, Acquisition)
    /// Owners of the games asked about (a game missing from the answer is no longer stored),
    /// and the games the store could not be asked about (it failed on the way).
    case ownerships(token: UInt64, [String: GameOwnership], unchecked: [String] = [])
}
