/// A game that may need a seed a search has proven (Klondike's `winnable: true`, PROTOCOL section
/// 12) before it is made or a command is applied. The catalog's `prover` runs the search off the
/// service thread and keeps a pool of proven seeds per `SeedRequest.pool`; a game that does not
/// conform is asked nothing, so its moves cost no look.
public protocol ProvenSeeds: Game {
    /// A seed to prove before a game is made with these `create` options, or nil.
    static func seedRequest(creating options: JSON) throws(GameError) -> SeedRequest?
    /// `create`'s options with the proven seed in them (before `storedOptions` reads them).
    static func options(_ options: JSON, seed: UInt64) -> JSON
    /// A seed to prove before a command is applied (a reset's `winnable`), or nil.
    func seedRequest(for command: ReadCommand<Command>) -> SeedRequest?
    /// The command with the proven seed instead: its stored form carries the seed, its cause does not.
    func seeded(_ command: ReadCommand<Command>, seed: UInt64) -> ReadCommand<Command>
}
