// Klondike behind the game interface: its options, messages, views, text, solver hints and
// proven deals (`winnable: true`).

extension Klondike: Game {
    public static let kind = "klondike"

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

    public func state(for viewer: Viewer) -> JSON { publicState }

    public func text(for viewer: Viewer, heading: String) -> [String] { [heading] + textBoard() }
}

extension Klondike: HintingGame {
    public func hintPlan(for asker: HintContext) -> HintPlan { .search(hintKey) }

    public func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)] { KlondikeSolverHints.hints(from: self, budget: budget) }

    /// The key of this position in hint caches (a race's tables share it).
    var hintKey: PositionKey { PositionKey(kind: "klondike", bytes: positionKey.bytes) }
}

extension Klondike: ProvenSeeds {
    public static func seedRequest(creating options: JSON) throws(GameError) -> SeedRequest? {
        try KlondikeOptionFields(options).seedRequest
    }

    public static func options(_ options: JSON, seed: UInt64) -> JSON { KlondikeOptionFields.seeding(options, seed: seed) }

    public func seedRequest(for command: ReadCommand<KlondikeCommand>) -> SeedRequest? {
        KlondikeMessages.seedRequest(command, currentDraw: draw)
    }

    public func seeded(_ command: ReadCommand<KlondikeCommand>, seed: UInt64) -> ReadCommand<KlondikeCommand> {
        guard let (dealt, stored) = KlondikeMessages.dealing(command, seed: seed, wrap: { .reset($0) }) else { return command }
        return ReadCommand(dealt, cause: command.cause, stored: stored)
    }
}
