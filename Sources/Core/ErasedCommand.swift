/// A game's command with its type erased, as the realtime layer holds it between reading a
/// message and applying it. A class, not an existential: the game that applies it recognises its
/// own commands by comparing one type's metadata (`CommandBox<Command>`), known statically in
/// its specialised `apply(erased:)`, where an existential needed a dynamic cast and the
/// optional's metadata looked up at run time (BENCHMARKS.md, "A lean game interface").
public class ErasedCommand: @unchecked Sendable {
    // @unchecked: no stored state here; the one subclass holds an immutable Sendable value.
    fileprivate init() {}

    /// Whether `other` is the same command (same type, equal value).
    public func isEqual(to other: ErasedCommand) -> Bool { false }
}

/// The one kind of `ErasedCommand`: a game's own command, boxed.
public final class CommandBox<Command: Sendable & Equatable>: ErasedCommand, @unchecked Sendable {
    public let command: Command

    public init(_ command: Command) {
        self.command = command
        super.init()
    }

    public override func isEqual(to other: ErasedCommand) -> Bool {
        (other as? CommandBox<Command>)?.command == command
    }
}

extension ErasedCommand {
    /// The command if it is a `Command`: a comparison of type metadata, then an unchecked cast.
    @inlinable
    public func unboxed<Command: Sendable & Equatable>(as type: Command.Type) -> Command? {
        guard Swift.type(of: self) == CommandBox<Command>.self else { return nil }
        return unsafeDowncast(self, to: CommandBox<Command>.self).command
    }
}
