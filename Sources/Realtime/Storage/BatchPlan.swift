/// A batch sorted into the rows a store writes and the games it refuses, once the store has
/// looked up the games the batch names (under their row locks, for a shared store). Both
/// back-ends write from a plan, so they refuse the same games for the same reasons.
struct BatchPlan {
    private(set) var refused: [String: WriteRefusal] = [:]
    /// The last row of each game the batch creates, still to be inserted.
    private(set) var newGames: [StoredGame] = []
    /// The last row of each other game.
    private(set) var updatedGames: [StoredGame] = []
    /// In the batch's order.
    private(set) var commands: [StoredCommand] = []
    /// One per game, the latest time.
    private(set) var touches: [GameTouch] = []
    /// In the batch's order.
    private(set) var chat: [StoredChat] = []
    let seedsAdded: [WinnableSeed]
    let seedsTaken: [WinnableSeed]

    var outcome: WriteOutcome { WriteOutcome(refused: refused) }

    /// Every game id the batch names, sorted: the one order in which a shared store locks their
    /// rows, so two nodes' writes (and a claim) never wait for each other in a cycle.
    static func gameIDs(of batch: StoreBatch) -> [String] {
        var ids = Set(batch.games.map(\.id))
        ids.formUnion(batch.commands.map(\.game))
        ids.formUnion(batch.touches.map(\.game))
        ids.formUnion(batch.chat.map(\.game))
        return ids.sorted()
    }

    /// The ids among `batch.newGames` that the batch has a row for: those a store must look up.
    static func createdIDs(of batch: StoreBatch) -> [String] {
        guard !batch.newGames.isEmpty else { return [] }
        return Set(batch.games.map(\.id)).intersection(batch.newGames).sorted()
    }

    /// - Parameters:
    ///   - stored: which of the batch's games are stored now (at least every created one).
    ///   - owners: each stored game's owner, when the store checks fences; nil for a store
    ///     without owners, which writes a fenced batch as an unfenced one.
    init(_ batch: StoreBatch, stored: Set<String>, owners: [String: GameOwnership]?) throws {
        seedsAdded = batch.winnableSeedsAdded
        seedsTaken = batch.winnableSeedsTaken
        let created = Set(Self.createdIDs(of: batch))
        for id in created where stored.contains(id) { refused[id] = .idTaken }
        if let fence = batch.fence, let owners {
            let written = Set(batch.games.map(\.id)).union(batch.commands.map(\.game)).union(batch.chat.map(\.game))
                .subtracting(created)
            for id in written.sorted() {
                guard let expected = fence.epochs[id] else {
                    throw StorageError.unfencedGame(game: id, node: fence.node)
                }
                if let current = owners[id] {
                    if current != GameOwnership(node: fence.node, epoch: expected) {
                        refused[id] = .notOwner(current: current)
                    }
                } else {
                    refused[id] = .noSuchGame
                }
            }
        }
        for game in Self.lastRowPerGame(batch.games) where refused[game.id] == nil {
            if created.contains(game.id) { newGames.append(game) } else { updatedGames.append(game) }
        }
        commands = batch.commands.filter { refused[$0.game] == nil }
        chat = batch.chat.filter { refused[$0.game] == nil }
        var latest: [String: Double] = [:]
        for touch in batch.touches where refused[touch.game] != .idTaken {
            latest[touch.game] = max(latest[touch.game] ?? touch.time, touch.time)
        }
        touches = latest.keys.sorted().map { GameTouch(game: $0, time: latest[$0]!) }
    }

    /// Refuses created games that turned out to be taken after all: a shared store learns it
    /// from its insert, when another node created the same id since the look-up.
    mutating func refuseTaken(_ ids: Set<String>) {
        guard !ids.isEmpty else { return }
        for id in ids { refused[id] = .idTaken }
        newGames.removeAll { ids.contains($0.id) }
        commands.removeAll { ids.contains($0.game) }
        touches.removeAll { ids.contains($0.game) }
        chat.removeAll { ids.contains($0.game) }
    }

    private static func lastRowPerGame(_ games: [StoredGame]) -> [StoredGame] {
        guard games.count > 1 else { return games }
        var latest: [String: Int] = [:]
        for (i, game) in games.enumerated() { latest[game.id] = i }
        return games.indices.filter { latest[games[$0].id] == $0 }.map { games[$0] }
    }
}
