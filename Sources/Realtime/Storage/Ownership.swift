/// Who may add to a game's history in a store shared by several nodes (PROTOCOL 11.1).
///
/// The store records one owner per game and an epoch that grows by one at every change of
/// owner and is never reused. A node writes a game's rows only while the store still names
/// it owner at the epoch it claimed, checked under the game row's lock in the write's own
/// transaction: a node paused past its lease, or cut off, cannot add to a game another node
/// has claimed meanwhile.
public struct GameOwnership: Sendable, Hashable, CustomStringConvertible {
    /// The owning node's name; nil while the game rests (nobody owns it).
    public var node: String?
    public var epoch: Int64

    public init(node: String?, epoch: Int64) {
        self.node = node
        self.epoch = epoch
    }

    public var description: String { "\(node ?? "nobody")@\(epoch)" }
}

/// A `StoreBatch`'s claim to be written by `node`, which believes it holds each game in
/// `epochs` at that epoch. Every game whose rows or commands a fenced batch carries needs an
/// epoch, except games the batch creates: those start owned by `node` at `epochs[id] ?? 1`.
public struct StoreFence: Sendable, Equatable {
    public var node: String
    public var epochs: [String: Int64]

    public init(node: String, epochs: [String: Int64] = [:]) {
        self.node = node
        self.epochs = epochs
    }

    /// The epoch a game created under this fence starts at.
    func startingEpoch(of game: String) -> Int64 { epochs[game] ?? 1 }
}

/// Why a store wrote none of a game's rows while it wrote the rest of the batch.
public enum WriteRefusal: Sendable, Hashable {
    /// The batch created the game, and a game with its id was already stored.
    case idTaken
    /// The store names another owner or epoch than the fence: `current` is what it holds.
    case notOwner(current: GameOwnership)
    /// The fence names the game but the store has no such game (deleted by retention).
    case noSuchGame
}

/// What a write stored: everything but the games it lists as refused.
public struct WriteOutcome: Sendable, Equatable {
    public var refused: [String: WriteRefusal]

    public init(refused: [String: WriteRefusal] = [:]) {
        self.refused = refused
    }

    /// Every row of the batch was written.
    public var wroteEverything: Bool { refused.isEmpty }
}

/// The answer to `SharedGameStore.claim`.
public enum ClaimOutcome: Sendable, Equatable {
    /// The caller owns the game now, at this (new) epoch.
    case claimed(GameOwnership)
    /// The epoch had moved on: nothing changed, and this is who owns it now.
    case lost(current: GameOwnership)
    case notFound
}

/// A store that several nodes share, which records who owns each game (PostgreSQL).
/// SQLite has one writer per file, so it has no owners: it is not a `SharedGameStore`, and
/// it ignores `StoreBatch.fence`.
public protocol SharedGameStore: GameStore {
    /// The game's owner and epoch, nil if there is no such game.
    func ownership(of game: String) throws -> GameOwnership?
    /// Makes `node` the owner, at epoch + 1, if the epoch is still `expectedEpoch`: one
    /// compare-and-set, so of two nodes claiming at once exactly one wins. A claim waits for
    /// a write in flight on the game (it holds the row's lock) and happens after it.
    func claim(game: String, node: String, expectedEpoch: Int64) throws -> ClaimOutcome
    /// Gives the game up (owner nobody, epoch + 1) if `node` still owns it at `epoch`; false otherwise.
    func release(game: String, node: String, epoch: Int64) throws -> Bool
}
