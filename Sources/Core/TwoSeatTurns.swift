// The part of a game where two seats take turns (PROTOCOL section 16): p1 and p2, the join that
// takes the last seat starts the game, `first` moves first, a move passes the turn, a resign or a
// clock that ran out gives the game to the other seat, and a reset once it is over starts a new
// one with the other seat first. Four in a row's rules and a game developer's own share it.

public struct TwoSeatTurns: Sendable, Equatable {
    public enum Phase: String, Sendable { case waiting, playing, won, drawn }

    public static let seats = ["p1", "p2"]

    public private(set) var first: Int
    public private(set) var mover: Int?
    public private(set) var phase: Phase = .waiting
    public private(set) var winner: Int?
    public private(set) var moves = 0
    /// When the game started (or was reset): the `seconds` of its end events count from here.
    private var startTime: Double

    /// A game not started yet; `options["first"]` (`p1` or `p2`, default `p1`) moves first.
    public init(options: JSON, time: Double) throws(GameError) {
        switch options["first"] {
        case nil, .null?: first = 0
        case .string(let seat)? where Self.seats.contains(seat): first = Self.seats.firstIndex(of: seat)!
        default: throw .badRequest("bad-first", "first must be p1 or p2")
        }
        startTime = time
    }

    /// `create`'s options as stored: who moves first.
    public static func storedOptions(_ options: JSON) throws(GameError) -> JSON {
        .object([("first", .string(seats[try TwoSeatTurns(options: options, time: 0).first]))])
    }

    public var turn: String? { mover.map { Self.seats[$0] } }
    public var isOver: Bool { phase == .won || phase == .drawn }

    /// `turn`, `first`, `status`, `winner` and `moves`, as the state shows them.
    public func field(_ key: String) -> JSON {
        switch key {
        case "turn": turn.map(JSON.string) ?? .null
        case "first": .string(Self.seats[first])
        case "status": .string(phase.rawValue)
        case "winner": winner.map { .string(Self.seats[$0]) } ?? .null
        case "moves": .int(moves)
        default: .null
        }
    }

    /// The seat index of a player id, or `bad-request`.
    public static func seat(of player: String) throws(GameError) -> Int {
        guard let seat = seats.firstIndex(of: player) else {
            throw .badRequest("no-such-seat", "\"\(player)\" is not a seat of this game (p1, p2)")
        }
        return seat
    }

    public mutating func start(time: Double) throws(GameError) -> [GameEvent] {
        guard phase == .waiting else { throw .illegal("started", "the game has already started") }
        (phase, mover, startTime) = (.playing, first, time)
        return [GameEvent(name: "start")]
    }

    /// Checks that `seat` may move now.
    public func checkMove(by seat: Int) throws(GameError) {
        guard phase == .playing, let mover else { throw notPlaying }
        guard mover == seat else { throw .illegal("not-your-turn", "it is \(Self.seats[mover])'s turn") }
    }

    /// After a move of the seat to move: the turn passes, or the game ends.
    public mutating func moved(_ result: MoveResult, time: Double) -> [GameEvent] {
        moves += 1
        switch result {
        case .next:
            mover = mover.map { 1 - $0 }
            return []
        case .won(let reason):
            return end(winner: mover ?? 0, reason: reason, time: time)
        case .drawn:
            (phase, mover) = (.drawn, nil)
            return [GameEvent(name: "drawn", fields: endFields(time))]
        }
    }

    public enum MoveResult: Sendable, Equatable {
        case next
        /// The mover won, for this reason (the `won` event's `reason`).
        case won(String)
        case drawn
    }

    public mutating func resign(_ seat: Int, time: Double) throws(GameError) -> [GameEvent] {
        guard phase == .playing else { throw notPlaying }
        return end(winner: 1 - seat, reason: "resign", time: time)
    }

    /// The seat's clock ran out (PROTOCOL section 17): the other seat wins.
    public mutating func timeout(_ seat: Int, time: Double) throws(GameError) -> [GameEvent] {
        guard phase == .playing, mover == seat else { throw notPlaying }
        return end(winner: 1 - seat, reason: "time", time: time)
    }

    /// A new game once this one is over, the other seat first.
    public mutating func reset(time: Double) throws(GameError) -> [GameEvent] {
        guard isOver else {
            throw phase == .waiting ? notPlaying : .illegal("still-playing", "a game is reset only once it is won or drawn")
        }
        first = 1 - first
        (phase, mover, winner, moves, startTime) = (.playing, first, nil, 0, time)
        return [GameEvent(name: "reset")]
    }

    private mutating func end(winner seat: Int, reason: String, time: Double) -> [GameEvent] {
        (phase, winner, mover) = (.won, seat, nil)
        let fields: [(key: String, value: JSON)] = [("by", .string(Self.seats[seat])), ("reason", .string(reason))]
        return [GameEvent(name: "won", fields: fields + endFields(time))]
    }

    private func endFields(_ time: Double) -> [(key: String, value: JSON)] {
        [("moves", .int(moves)), ("seconds", GameEvent.seconds(from: startTime, to: time))]
    }

    private var notPlaying: GameError {
        phase == .waiting ? .illegal("waiting", "the game has not started: both seats must be taken")
            : .illegal("game-over", "the game is over: reset for a new one")
    }
}
