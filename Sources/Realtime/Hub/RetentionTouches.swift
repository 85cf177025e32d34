/// When games are touched for retention (`--retain-days`, PROTOCOL section 14): a join or
/// watch touches its game, and games with members are touched once a minute whether or not
/// anyone joined lately; commands touch their games with their own rows. Touches are stored
/// without a ticket: nobody waits for one.
final class RetentionTouches {
    private let rooms: RoomTable
    private let durability: Durability
    /// Seconds between two touches of one game, or nil: nothing is deleted, nothing touched.
    var interval: Double?
    private var lastSweep = Instant.distantPast

    init(rooms: RoomTable, durability: Durability) {
        self.rooms = rooms
        self.durability = durability
    }

    /// A member came in.
    func note(_ room: GameRoom, now: Instant, into effects: inout Effects) {
        guard let interval, now.since(room.touchNoted) >= interval else { return }
        room.touchNoted = now
        var batch = StoreBatch()
        batch.touches = [GameTouch(game: room.id, time: now.unixTime)]
        durability.store(batch, for: nil, into: &effects)
    }

    /// Once a minute (at most): every game with members, in one batch.
    func sweep(now: Instant, into effects: inout Effects) {
        guard let interval, now.since(lastSweep) >= min(60, interval) else { return }
        lastSweep = now
        var batch = StoreBatch()
        for room in rooms.all where room.members.count > 0 && now.since(room.touchNoted) >= interval {
            room.touchNoted = now
            batch.touches.append(GameTouch(game: room.id, time: now.unixTime))
        }
        if !batch.touches.isEmpty { durability.store(batch, for: nil, into: &effects) }
    }
}
