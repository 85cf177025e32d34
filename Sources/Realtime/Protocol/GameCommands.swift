import Core

/// A state-changing command for one of the games, read from its message.
enum GameCommand: Sendable, Equatable {
    case klondike(KlondikeCommand)
    case plane(PlaneCommand)
}

/// A game command with the two JSON forms the server keeps of it.
struct ParsedGesture: Sendable {
    var command: GameCommand
    /// What every member sees as the diff's `cause` (before `by` is added): no id, token, seed or deck.
    var cause: JSON
    /// What storage keeps to replay it: the cause plus any seed or deck.
    var stored: JSON
}

/// Reads game commands from messages, per kind. Field checks here are the
/// protocol's `bad-request`; a type the kind does not have is `unknown-type`.
enum GestureParser {
    static let klondikeTypes: Set<String> = ["tap", "double-tap", "drag", "reset", "undo"]
    static let planeTypes: Set<String> = ["tap", "double-tap", "drag", "reset", "add", "color", "alpha"]

    static func parse(type: String, message: JSON, kind: GameKind) throws(ProtocolError) -> ParsedGesture {
        switch kind {
        case .klondike:
            guard klondikeTypes.contains(type) else { throw ProtocolError(.unknownType, "klondike has no \(type)") }
            return try klondike(type: type, message: message)
        case .plane:
            guard planeTypes.contains(type) else { throw ProtocolError(.unknownType, "plane has no \(type)") }
            return try plane(type: type, message: message)
        }
    }

    /// For a connection in no game: the message must be well-formed for some kind before it is `not-joined`.
    static func validateForAnyKind(type: String, message: JSON) throws(ProtocolError) {
        var firstError: ProtocolError?
        for kind in GameKind.allCases {
            do {
                _ = try parse(type: type, message: message, kind: kind)
                return
            } catch {
                if error.code == .badRequest && firstError == nil { firstError = error }
            }
        }
        throw firstError ?? ProtocolError(.unknownType, "unknown type \(type)")
    }

    // MARK: Klondike

    private static func klondike(type: String, message: JSON) throws(ProtocolError) -> ParsedGesture {
        switch type {
        case "tap", "double-tap":
            let target = try target(message, "target")
            let cause: JSON = .object([("type", .string(type)), ("target", .string(target.pointer))])
            return ParsedGesture(command: .klondike(type == "tap" ? .tap(target) : .doubleTap(target)), cause: cause, stored: cause)
        case "drag":
            let from = try target(message, "from")
            let to = try target(message, "to")
            let cause: JSON = .object(["type": "drag", "from": .string(from.pointer), "to": .string(to.pointer)])
            return ParsedGesture(command: .klondike(.drag(from: from, to: to)), cause: cause, stored: cause)
        case "reset":
            let options = try KlondikeOptionFields(message["options"])
            var cause: [(key: String, value: JSON)] = [("type", "reset")]
            var stored = cause
            if !options.publicFields.isEmpty { cause.append(("options", .object(options.publicFields))) }
            if !options.allFields.isEmpty { stored.append(("options", .object(options.allFields))) }
            let reset = KlondikeResetOptions(draw: options.draw, deal: options.deal)
            return ParsedGesture(command: .klondike(.reset(reset)), cause: .object(cause), stored: .object(stored))
        case "undo":
            return ParsedGesture(command: .klondike(.undo), cause: .object(["type": "undo"]), stored: .object(["type": "undo"]))
        default:
            throw ProtocolError(.unknownType, "klondike has no \(type)")
        }
    }

    private static func target(_ message: JSON, _ field: String) throws(ProtocolError) -> Target {
        guard let pointer = message[field]?.stringValue else { throw .bad("\(field) must be a pile pointer like /tableau/2") }
        do {
            return try Target.parse(pointer)
        } catch {
            throw ProtocolError(.badRequest, error.message)
        }
    }

    // MARK: Plane

    private static func plane(type: String, message: JSON) throws(ProtocolError) -> ParsedGesture {
        switch type {
        case "tap", "double-tap":
            let point = try point(message, in: type)
            let cause: JSON = .object([("type", .string(type)), ("x", .double(point.x)), ("y", .double(point.y))])
            return ParsedGesture(command: .plane(type == "tap" ? .tap(point) : .doubleTap(point)), cause: cause, stored: cause)
        case "drag":
            guard let fromJSON = message["from"], let toJSON = message["to"] else { throw .bad("drag needs from and to points") }
            let from = try point(fromJSON, in: "from")
            let to = try point(toJSON, in: "to")
            let cause: JSON = .object([
                "type": "drag", "from": .object(["x": .double(from.x), "y": .double(from.y)]),
                "to": .object(["x": .double(to.x), "y": .double(to.y)]),
            ])
            return ParsedGesture(command: .plane(.drag(from: from, to: to)), cause: cause, stored: cause)
        case "reset":
            return ParsedGesture(command: .plane(.reset), cause: .object(["type": "reset"]), stored: .object(["type": "reset"]))
        case "add":
            var spec = RectangleSpec()
            var fields: [(key: String, value: JSON)] = [("type", "add")]
            for name in ["x", "y", "width", "height"] {
                guard let value = try optionalNumber(message, name) else { continue }
                if (name == "width" || name == "height") && value <= 0 { throw .bad("\(name) must be above 0") }
                fields.append((name, .double(value)))
                switch name {
                case "x": spec.x = value
                case "y": spec.y = value
                case "width": spec.width = value
                default: spec.height = value
                }
            }
            for name in ["r", "g", "b"] {
                guard let value = try optionalInteger(message, name, in: RGB.channelRange) else { continue }
                fields.append((name, .int(value)))
                switch name {
                case "r": spec.r = value
                case "g": spec.g = value
                default: spec.b = value
                }
            }
            if let alpha = try optionalInteger(message, "alpha", in: Rectangle.alphaRange) {
                fields.append(("alpha", .int(alpha)))
                spec.alpha = alpha
            }
            return ParsedGesture(command: .plane(.add(spec)), cause: .object(fields), stored: .object(fields))
        case "color":
            let r = try optionalInteger(message, "r", in: RGB.channelRange)
            let g = try optionalInteger(message, "g", in: RGB.channelRange)
            let b = try optionalInteger(message, "b", in: RGB.channelRange)
            if let r, let g, let b {
                let cause: JSON = .object(["type": "color", "r": .int(r), "g": .int(g), "b": .int(b)])
                return ParsedGesture(command: .plane(.color(RGB(r: r, g: g, b: b))), cause: cause, stored: cause)
            }
            guard r == nil && g == nil && b == nil else { throw .bad("give all of r, g and b, or none for a random colour") }
            return ParsedGesture(command: .plane(.color(nil)), cause: .object(["type": "color"]), stored: .object(["type": "color"]))
        case "alpha":
            guard let step = message["step"]?.intValue, step == 1 || step == -1 else { throw .bad("alpha step must be 1 or -1") }
            let cause: JSON = .object(["type": "alpha", "step": .int(step)])
            return ParsedGesture(command: .plane(.alpha(step: step)), cause: cause, stored: cause)
        default:
            throw ProtocolError(.unknownType, "plane has no \(type)")
        }
    }

    private static func point(_ json: JSON, in context: String) throws(ProtocolError) -> PlanePoint {
        guard let x = json["x"]?.doubleValue, let y = json["y"]?.doubleValue, x.isFinite, y.isFinite else {
            throw .bad("\(context) needs numbers x and y")
        }
        return PlanePoint(x: x, y: y)
    }

    private static func optionalNumber(_ message: JSON, _ name: String) throws(ProtocolError) -> Double? {
        guard let raw = message[name], raw != .null else { return nil }
        guard let value = raw.doubleValue, value.isFinite else { throw .bad("\(name) must be a number") }
        return value
    }

    private static func optionalInteger(_ message: JSON, _ name: String, in range: ClosedRange<Int>) throws(ProtocolError) -> Int? {
        guard let raw = message[name], raw != .null else { return nil }
        guard let value = raw.intValue, range.contains(value) else {
            throw .bad("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

/// Klondike's `draw`, `seed` and `deck` options, as `create` and `reset` carry them.
struct KlondikeOptionFields {
    static let maxSeed = (1 << 53) - 1

    var draw: Int?
    var deal: KlondikeDeal?
    /// Fields safe to show (`draw`).
    var publicFields: [(key: String, value: JSON)] = []
    /// Every field, for storage (the deck as one string).
    var allFields: [(key: String, value: JSON)] = []

    init(_ options: JSON?) throws(ProtocolError) {
        guard let options, options != .null else { return }
        guard case .object = options else { throw .bad("options must be an object") }
        if let raw = options["draw"], raw != .null {
            guard let draw = raw.intValue, draw == 1 || draw == 3 else { throw .bad("draw must be 1 or 3") }
            self.draw = draw
            publicFields.append(("draw", .int(draw)))
            allFields.append(("draw", .int(draw)))
        }
        if let raw = options["deck"], raw != .null {
            let text: String
            switch raw {
            case .string(let s): text = s
            case .array(let items):
                var joined = ""
                for item in items {
                    guard let name = item.stringValue else { throw .bad("deck must be 52 card names") }
                    joined += name
                }
                text = joined
            default: throw .bad("deck must be a string or an array of 52 card names")
            }
            let cards: [Card]
            do {
                cards = try Klondike.parseDeck(text)
            } catch {
                throw ProtocolError(.badRequest, error.message)
            }
            deal = .deck(cards)
            allFields.append(("deck", .string(cards.map(\.name).joined())))
        } else if let raw = options["seed"], raw != .null {
            guard let seed = raw.intValue, (0...KlondikeOptionFields.maxSeed).contains(seed) else {
                throw .bad("seed must be an integer from 0 to 2^53-1")
            }
            deal = .seed(UInt64(seed))
            allFields.append(("seed", .int(seed)))
        }
    }
}
