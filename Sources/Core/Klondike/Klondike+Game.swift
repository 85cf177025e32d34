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
