import Core

/// The generic gestures every game may read (PROTOCOL section 3: browser gestures arrive as
/// these messages), with their terminal shorthand (section 7). What a gesture means, and
/// which fields it needs, is each game's own (`Core.Game.read`).
enum Gesture: String, CaseIterable, Sendable {
    case tap
    case doubleTap = "double-tap"
    case drag
    case reset
    case undo

    /// The JSON message a shorthand line stands for (`tap stock`, `tap 120 80`, `drag 1 2 3 4`).
    /// Targets get back the leading `/` the terminal lets users drop.
    func shorthand(_ args: [String]) throws(GameError) -> JSON {
        let type: (key: String, value: JSON) = ("type", .string(rawValue))
        switch self {
        case .tap, .doubleTap:
            switch args.count {
            case 1: return .object([type, ("target", .string(ShorthandWords.pointer(args[0])))])
            case 2: return .object([type, ("x", try ShorthandWords.number(args[0])), ("y", try ShorthandWords.number(args[1]))])
            default: throw ShorthandWords.usage("\(rawValue) TARGET  or  \(rawValue) X Y")
            }
        case .drag:
            switch args.count {
            case 2:
                return .object([type, ("from", .string(ShorthandWords.pointer(args[0]))),
                                ("to", .string(ShorthandWords.pointer(args[1])))])
            case 4:
                let from: JSON = .object(["x": try ShorthandWords.number(args[0]), "y": try ShorthandWords.number(args[1])])
                let to: JSON = .object(["x": try ShorthandWords.number(args[2]), "y": try ShorthandWords.number(args[3])])
                return .object([type, ("from", from), ("to", to)])
            default: throw ShorthandWords.usage("drag FROM TO  or  drag X1 Y1 X2 Y2")
            }
        case .reset:
            return .object([type, ("options", try ShorthandWords.keyValues(args))])
        case .undo:
            guard args.isEmpty else { throw ShorthandWords.usage(rawValue) }
            return .object([type])
        }
    }
}
