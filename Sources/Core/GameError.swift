/// Why a gesture was refused. The state is unchanged whenever one is returned.
public struct GameError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The gesture is malformed: a bad pointer, a value out of range.
        case badRequest = "bad-request"
        /// Well-formed, but against the rules or with nothing to do.
        case illegalMove = "illegal-move"
        /// A message type this game does not have (`hint` in a game with no hints).
        case unknownType = "unknown-type"
        /// Not for this member: a hint that would play for a player, a spectator's move.
        case forbidden = "forbidden"
    }

    public var code: Code
    /// A short stable name of the rule that refused it, e.g. `foundation-needs-ace`.
    public var rule: String
    /// A sentence for people.
    public var message: String

    public init(_ code: Code, rule: String, _ message: String) {
        self.code = code
        self.rule = rule
        self.message = message
    }

    public static func illegal(_ rule: String, _ message: String) -> GameError {
        GameError(.illegalMove, rule: rule, message)
    }

    public static func badRequest(_ rule: String, _ message: String) -> GameError {
        GameError(.badRequest, rule: rule, message)
    }

    public var description: String { "\(code.rawValue) (\(rule)): \(message)" }
}
