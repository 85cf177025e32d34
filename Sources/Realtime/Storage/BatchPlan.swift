/// A batch sorted, game by game, into what a store must check and what it then writes.
///
/// The rules, the same on both back-ends: a created game whose id is stored is refused
/// (`.idTaken`); with a fence, a game the batch writes whose stored (owner, epoch) differs from
/// the fence is refused (`.notOwner`), or `.noSuchGame` when it is not stored; a refused game
/// has none of its rows written (its touches are kept, but for `.idTaken`: they would touch
/// another game). SQLite applies them here (`refusing`); PostgreSQL applies them in the one
/// statement that writes the batch, under the rows' locks (`PostgresSchema`, `boardcast_write`).
struct BatchPlan {
    /// The last row of each game the batch creates, in id order.
    private(set) var createdGames: [StoredGame] = []
    /// The last row of each other game, in id order.
    private(set) var updatedGames: [StoredGame] = []
    /// In the batch's order.
    private(set) var commands: [StoredCommand] = []
    /// One per game, the latest time, in id order.
    private(set) var touches: [GameTouch] = []
    /// Chat lines, in the batch's order: written with their game, refused with it.
    private(set) var chat: [StoredChat] = []
    let seedsAdded: [ProvenSeed]
    let seedsTaken: [ProvenSeed]
    let fence: StoreFence?
    /// Every game the batch names, in the one order a shared store locks their rows, so two
    /// nodes' writes (and a claim) never wait for each other in a cycle.
    let lockOrder: [String]
    /// The games whose stored owner and epoch must match the fence: every game the batch
    /// writes but does not create, with the epoch the fence gives it.
    let fenced: [(game: String, epoch: Int64)]
    private(set) var refused: [String: WriteRefusal] = [:]

    var outcome: WriteOutcome { WriteOutcome(refused: refused) }

    /// Throws `unfencedGame` for a fenced batch that writes a game without giving its epoch.
    init(_ batch: StoreBatch) throws {
        seedsAdded = batch.provenSeedsAdded
        seedsTaken = batch.provenSeedsTaken
        fence = batch.fence
        var latest: [String: StoredGame] = [:]
        for game in batch.games { latest[game.id] = game }
        for id in latest.keys.sorted() {
            if batch.newGames.contains(id) { createdGames.append(latest[id]!) } else { updatedGames.append(latest[id]!) }
        }
        commands = batch.commands
        chat = batch.chat
        var touched: [String: Double] = [:]
        for touch in batch.touches { touched[touch.game] = max(touched[touch.game] ?? touch.time, touch.time) }
        touches = touched.keys.sorted().map { GameTouch(game: $0, time: touched[$0]!) }

        var names = Set(latest.keys)
        names.formUnion(batch.commands.map(\.game))
        names.formUnion(batch.chat.map(\.game))
        let written = names.subtracting(createdGames.map(\.id))
        names.formUnion(touched.keys)
        lockOrder = names.sorted()
        if let fence {
            fenced = try written.sorted().map { id in
                guard let epoch = fence.epochs[id] else { throw StorageError.unfencedGame(game: id, node: fence.node) }
                return (id, epoch)
            }
        } else {
            fenced = []
        }
    }

    /// Applies the rules for a store that has looked up the batch's games: `stored` holds at
    /// least every created game's id that is stored; `owners` each fenced game's stored owner
    /// (nil for a store without owners, which checks no fence).
    mutating func refuse(stored: Set<String>, owners: [String: GameOwnership]?) {
        var refusals: [String: WriteRefusal] = [:]
        for game in createdGames where stored.contains(game.id) { refusals[game.id] = .idTaken }
        if let fence, let owners {
            for (id, epoch) in fenced {
                guard let current = owners[id] else {
                    refusals[id] = .noSuchGame
                    continue
                }
                if current != GameOwnership(node: fence.node, epoch: epoch) { refusals[id] = .notOwner(current: current) }
            }
        }
        apply(refusals)
    }

    /// Drops every row of the refused games (touches only for `.idTaken`).
    mutating func apply(_ refusals: [String: WriteRefusal]) {
        guard !refusals.isEmpty else { return }
        refused.merge(refusals) { $1 }
        createdGames.removeAll { refusals[$0.id] != nil }
        updatedGames.removeAll { refusals[$0.id] != nil }
        commands.removeAll { refusals[$0.game] != nil }
        chat.removeAll { refusals[$0.game] != nil }
        touches.removeAll { refusals[$0.game] == .idTaken }
    }
}
