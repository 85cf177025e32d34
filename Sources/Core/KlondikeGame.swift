// Klondike behind the game interface: its options, messages, views, text and solver hints.

extension Klondike: Game {
    public static let kind = "klondike"
    public static var commandTypes: [String] { KlondikeMessages.types }

    public static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON {
        try KlondikeOptionFields.stored(creating: options, random: &random)
    }

    public init(stored options: JSON, time: Double) throws(GameError) {
        let fields = try KlondikeOptionFields(options)
        try self.init(options: KlondikeOptions(draw: fields.draw ?? 1, deal: fields.deal ?? .seed(0),
                                               entropy: KlondikeOptionFields.entropy(options)),
                      time: time)
    }

    public static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<KlondikeCommand> {
        try KlondikeMessages.read(type, message).0
    }

    public var isOver: Bool { isWon }

    public func state(for viewer: Viewer) -> JSON { publicState }

    public func text(for viewer: Viewer, heading: String) -> [String] { [heading] + textBoard() }

    public func hintPlan(for asker: HintContext) -> HintPlan { .search(hintKey) }

    public func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)] { KlondikeSolverHints.hints(from: self, budget: budget) }

    public static var provesDeals: Bool { true }

    public static func dealRequest(creating options: JSON) throws(GameError) -> DealRequest? {
        try KlondikeOptionFields(options).dealRequest
    }

    public func dealRequest(for command: ReadCommand<KlondikeCommand>) -> DealRequest? {
        KlondikeMessages.dealRequest(command, currentDraw: draw)
    }

    public func dealing(_ command: ReadCommand<KlondikeCommand>, seed: UInt64) -> ReadCommand<KlondikeCommand> {
        guard let (dealt, stored) = KlondikeMessages.dealing(command, seed: seed, wrap: { .reset($0) }) else { return command }
        return ReadCommand(dealt, cause: command.cause, stored: stored)
    }

    /// The key of this position in hint caches (a race's tables share it).
    var hintKey: PositionKey { PositionKey(kind: "klondike", bytes: positionKey.bytes) }
}

/// The solver's verdict on a position, as hints: on a win, one hint per position of the line,
/// so that following hints alone follows that line to the win and never loops; otherwise the
/// rules' own hint with the verdict.
enum KlondikeSolverHints {
    static func hints(from table: Klondike, budget: Int) -> [(PositionKey, Hint)] {
        let solution = KlondikeSolver.solve(table, budget: budget)
        guard solution.verdict == .winnable, !table.isWon else {
            let winnable: JSON = table.isWon ? true : solution.verdict == .unwinnable ? false : .null
            let hint = table.hint()
            return [(table.hintKey, Hint(from: hint?.from, to: hint?.to, winnable: winnable))]
        }
        var answers: [(PositionKey, Hint)] = []
        var position = table
        for move in solution.moves {
            answers.append((position.hintKey, Hint(from: move.from, to: move.to, winnable: true)))
            guard let command = move.command,
                  case .success = position.apply(command, context: MoveContext(player: "solver", time: 0)) else {
                return answers
            }
        }
        answers.append((position.hintKey, Hint(from: nil, to: nil, winnable: true)))  // the won table
        return answers
    }
}

/// Proves Klondike deals winnable for `winnable: true` (PROTOCOL section 12), in pools by draw.
public struct KlondikeDealProver: DealProver {
    public init() {}

    public var pools: [Int] { [1, 3] }

    public func prove(_ request: DealRequest, candidates: [UInt64], budget: Int) -> DealProof {
        if let given = request.given {
            guard let deal = try? KlondikeOptionFields(given).deal else { return .notProven }
            let solution = try? KlondikeSolver.solve(deal: deal, draw: request.pool, budget: budget)
            return solution?.verdict == .winnable ? .givenDealProven : .notProven
        }
        // About four deals in five are winnable and most are decided in milliseconds: a
        // small budget per candidate finds one well inside the protocol's two seconds.
        for seed in candidates {
            let solution = try? KlondikeSolver.solve(deal: .seed(seed), draw: request.pool, budget: budget / 8)
            if solution?.verdict == .winnable { return .seed(seed) }
        }
        return .notProven
    }
}
