// Plane behind the game interface: its options, its messages (points, not pile pointers,
// and its own `add`, `color`, `alpha`), and the selection a departing player leaves.

extension Plane: ConnectionBound {
    public static let kind = "plane"
    public static var commandTypes: [String] { ["add", "color", "alpha"] }

    public static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON {
        var stored: [(key: String, value: JSON)] = []
        for name in ["width", "height"] {
            guard let raw = options[name], raw != .null else { continue }
            guard let value = raw.doubleValue, value.isFinite, value > 0 else { throw bad("\(name) must be a number above 0") }
            stored.append((name, .double(value)))
        }
        if let raw = options["seed"], raw != .null {
            guard let seed = raw.intValue, (0...KlondikeOptionFields.maxSeed).contains(seed) else {
                throw bad("seed must be an integer from 0 to 2^53-1")
            }
            stored.append(("seed", .int(seed)))
        } else {
            stored.append(("seed", .int(Int(random.next() >> 11))))
        }
        return .object(stored)
    }

    public init(stored options: JSON, time: Double) throws(GameError) {
        try self.init(options: PlaneOptions(width: options["width"]?.doubleValue ?? 1024,
                                            height: options["height"]?.doubleValue ?? 768,
                                            seed: UInt64(options["seed"]?.intValue ?? 0)))
    }

    public var status: GameStatus { .playing }
    public func state(for viewer: Viewer) -> JSON { publicState }
    public func text(for viewer: Viewer, heading: String) -> [String] { [heading] + textBoard() }

    public var playersHoldingConnectionState: [String] { selectedPlayers }

    /// A departing player's selection goes (`leave`).
    public func command(for issued: ServerCommand) -> PlaneCommand? {
        guard case .departure(let player) = issued, selectedPlayers.contains(player) else { return nil }
        return .leave
    }

    public static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON? {
        let type: (key: String, value: JSON) = ("type", .string(verb))
        switch verb {
        case "add":
            return .object([type] + (try ShorthandWords.keyValues(args).objectPairs ?? []))
        case "color":
            switch args.count {
            case 0: return .object([type])
            case 1:
                guard let rgb = ShorthandWords.hexColour(args[0]) else { throw ShorthandWords.usage("color [#RRGGBB | R G B]") }
                return .object([type, ("r", .int(rgb.0)), ("g", .int(rgb.1)), ("b", .int(rgb.2))])
            case 3:
                return .object([type, ("r", try ShorthandWords.integer(args[0], "R")),
                                ("g", try ShorthandWords.integer(args[1], "G")), ("b", try ShorthandWords.integer(args[2], "B"))])
            default: throw ShorthandWords.usage("color [#RRGGBB | R G B]")
            }
        case "alpha":
            guard args.count == 1, let step = Int(args[0]) else { throw ShorthandWords.usage("alpha +1|-1") }
            return .object([type, ("step", .int(step))])
        default:
            return nil
        }
    }

    public static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<PlaneCommand> {
        switch type {
        case "tap", "double-tap":
            let point = try point(message, in: type)
            let cause: JSON = .object([("type", .string(type)), ("x", .double(point.x)), ("y", .double(point.y))])
            return ReadCommand(type == "tap" ? .tap(point) : .doubleTap(point), cause: cause)
        case "drag":
            guard let fromJSON = message["from"], let toJSON = message["to"] else { throw bad("drag needs from and to points") }
            let from = try point(fromJSON, in: "from")
            let to = try point(toJSON, in: "to")
            let cause: JSON = .object([
                "type": "drag", "from": .object(["x": .double(from.x), "y": .double(from.y)]),
                "to": .object(["x": .double(to.x), "y": .double(to.y)]),
            ])
            return ReadCommand(.drag(from: from, to: to), cause: cause)
        case "reset":
            return ReadCommand(.reset, cause: .object(["type": "reset"]))
        case "add":
            return try readAdd(message)
        case "color":
            let r = try optionalInteger(message, "r", in: RGB.channelRange)
            let g = try optionalInteger(message, "g", in: RGB.channelRange)
            let b = try optionalInteger(message, "b", in: RGB.channelRange)
            if let r, let g, let b {
                return ReadCommand(.color(RGB(r: r, g: g, b: b)),
                                   cause: .object(["type": "color", "r": .int(r), "g": .int(g), "b": .int(b)]))
            }
            guard r == nil && g == nil && b == nil else { throw bad("give all of r, g and b, or none for a random colour") }
            return ReadCommand(.color(nil), cause: .object(["type": "color"]))
        case "alpha":
            guard let step = message["step"]?.intValue, step == 1 || step == -1 else { throw bad("alpha step must be 1 or -1") }
            return ReadCommand(.alpha(step: step), cause: .object(["type": "alpha", "step": .int(step)]))
        default:
            throw GameError(.unknownType, rule: "unknown-type", "plane has no \(type)")
        }
    }

    private static func readAdd(_ message: JSON) throws(GameError) -> ReadCommand<PlaneCommand> {
        var spec = RectangleSpec()
        var fields: [(key: String, value: JSON)] = [("type", "add")]
        for name in ["x", "y", "width", "height"] {
            guard let value = try optionalNumber(message, name) else { continue }
            if (name == "width" || name == "height") && value <= 0 { throw bad("\(name) must be above 0") }
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
        return ReadCommand(.add(spec), cause: .object(fields))
    }

    private static func bad(_ message: String) -> GameError { .badRequest("bad-field", message) }

    private static func point(_ json: JSON, in context: String) throws(GameError) -> PlanePoint {
        guard let x = json["x"]?.doubleValue, let y = json["y"]?.doubleValue, x.isFinite, y.isFinite else {
            throw bad("\(context) needs numbers x and y")
        }
        return PlanePoint(x: x, y: y)
    }

    private static func optionalNumber(_ message: JSON, _ name: String) throws(GameError) -> Double? {
        guard let raw = message[name], raw != .null else { return nil }
        guard let value = raw.doubleValue, value.isFinite else { throw bad("\(name) must be a number") }
        return value
    }

    private static func optionalInteger(_ message: JSON, _ name: String, in range: ClosedRange<Int>) throws(GameError) -> Int? {
        guard let raw = message[name], raw != .null else { return nil }
        guard let value = raw.intValue, range.contains(value) else {
            throw bad("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
