import Core

/// The `bots` option (PROTOCOL section 18): seats the server plays itself, with their levels.
/// Never the creator's seat, `p1`.
struct BotSeats: Sendable, Equatable {
    private(set) var levels: [(seat: String, level: Int)] = []

    static func == (a: BotSeats, b: BotSeats) -> Bool {
        a.levels.map(\.seat) == b.levels.map(\.seat) && a.levels.map(\.level) == b.levels.map(\.level)
    }

    var isEmpty: Bool { levels.isEmpty }
    var seats: [String] { levels.map(\.seat) }
    func level(of seat: String) -> Int? { levels.first { $0.seat == seat }?.level }

    /// `{"p2":2}` (the shorthand's `bot=2` and `bots=2,2` arrive as this object), checked against
    /// the game's seats and bot levels.
    static func read(_ options: JSON, seats: [String], levels allowed: ClosedRange<Int>?) throws(ProtocolError) -> BotSeats {
        var bots = BotSeats()
        if let bot = options["bot"], bot != .null { throw .bad("bot=L is the terminal's shorthand: a message says bots {\"p2\":L}") }
        switch options["bots"] {
        case nil, .null?: return bots
        case .object(let pairs)?:
            for pair in pairs {
                guard let level = pair.value.intValue else { throw .bad("bots gives each seat a level: {\"p2\":2}") }
                bots.levels.append((pair.key, level))
            }
        default:
            throw .bad("bots must be an object of seats and levels, such as {\"p2\":2}")
        }
        guard let allowed else { throw .bad("this game has no seats for bots") }
        for (seat, level) in bots.levels {
            guard seat != seats.first else { throw .bad("\(seat) is the creator's seat: bots take the others") }
            guard seats.contains(seat) else { throw .bad("this game has no seat \(seat): \(seats.joined(separator: ", "))") }
            guard allowed.contains(level) else {
                throw .bad("a bot's level is \(allowed.lowerBound) to \(allowed.upperBound), not \(level)")
            }
        }
        guard Set(bots.seats).count == bots.levels.count else { throw .bad("a seat has two bots") }
        bots.levels.sort { seats.firstIndex(of: $0.seat)! < seats.firstIndex(of: $1.seat)! }
        return bots
    }

    var json: JSON { .object(levels.map { (key: $0.seat, value: .int($0.level)) }) }
}
