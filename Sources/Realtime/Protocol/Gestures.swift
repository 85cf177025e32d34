import Core

/// A state-changing command for one of the games, read from its message.
enum GameCommand: Sendable, Equatable {
    case klondike(KlondikeCommand)
    case plane(PlaneCommand)
    case race(RaceCommand)
}

/// A game command with the two JSON forms the server keeps of it.
struct ParsedGesture: Sendable {
    var command: GameCommand
    /// What every member sees as the diff's `cause` (before `by` is added): no id, token, seed or deck.
    var cause: JSON
    /// What storage keeps to replay it: the cause plus any seed or deck.
    var stored: JSON
    /// `winnable: true` in a reset's options: the new deal must be one the solver proved winnable.
    var wantsWinnable = false

    private var resetOptions: KlondikeResetOptions? {
        switch command {
        case .klondike(.reset(let options)), .race(.reset(let options)): return options
        default: return nil
        }
    }

    /// A reset's `draw`, if it names one.
    var resetDraw: Int? { resetOptions?.draw }
    /// A reset's given deal (`seed` or `deck`), if any.
    var resetDeal: KlondikeDeal? { resetOptions?.deal }
    var resetHasDeal: Bool { resetDeal != nil }

    /// The same reset dealing `seed` (a proven winnable one): the command and its stored form
    /// carry the seed, the cause does not.
    func dealing(seed: UInt64) -> ParsedGesture {
        var dealt = self
        let options = KlondikeResetOptions(draw: resetDraw, deal: .seed(seed))
        switch command {
        case .klondike: dealt.command = .klondike(.reset(options))
        case .race: dealt.command = .race(.reset(options))
        case .plane: return self
        }
        var pairs = stored.objectPairs ?? []
        let storedOptions = (stored["options"]?.objectPairs ?? []).filter { $0.key != "seed" && $0.key != "deck" }
        pairs.removeAll { $0.key == "options" }
        pairs.append(("options", .object(storedOptions + [("seed", .int(Int(seed)))])))
        dealt.stored = .object(pairs)
        return dealt
    }
}

/// Every game command a client may send, in one table: its name, the kinds that have
/// it, its terminal shorthand (PROTOCOL section 7), and how its JSON fields are read
/// for each kind (sections 5 and 6). The JSON parser, the shorthand and the diff's
/// `cause` all come from here.
enum Gesture: String, CaseIterable, Sendable {
    case tap
    case doubleTap = "double-tap"
    case drag
    case reset
    case undo
    case add
    case color
    case alpha

    var kinds: [GameKind] {
        switch self {
        case .tap, .doubleTap, .drag, .reset: return [.klondike, .plane, .race]
        case .undo: return [.klondike, .race]
        case .add, .color, .alpha: return [.plane]
        }
    }

    // MARK: Reading a message

    /// Reads a gesture for a game of `kind`. Section 2's order: a malformed field is
    /// `bad-request` even when the kind lacks the type, which is `unknown-type` only
    /// once the fields would be well formed for a kind that has it.
    static func parse(type: String, message: JSON, kind: GameKind) throws(ProtocolError) -> ParsedGesture {
        guard let gesture = Gesture(rawValue: type) else { throw ProtocolError(.unknownType, "unknown type \(type)") }
        guard gesture.kinds.contains(kind) else {
            try gesture.validateForAnyKind(message)
            throw ProtocolError(.unknownType, "\(kind.rawValue) has no \(type)")
        }
        return try gesture.read(message, kind: kind)
    }

    /// The message must be well formed for some kind that has this gesture.
    func validateForAnyKind(_ message: JSON) throws(ProtocolError) {
        var firstError: ProtocolError?
        for kind in kinds {
            do {
                _ = try read(message, kind: kind)
                return
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }

    func read(_ message: JSON, kind: GameKind) throws(ProtocolError) -> ParsedGesture {
        switch kind {
        case .klondike: return try readKlondike(message)
        case .plane: return try readPlane(message)
        case .race: return try readRace(message)
        }
    }

    /// A race's gestures are Klondike's, on the sender's own table; its reset deals a new race.
    private func readRace(_ message: JSON) throws(ProtocolError) -> ParsedGesture {
        var parsed = try readKlondike(message)
        guard case .klondike(let command) = parsed.command else { return parsed }
        if case .reset(let options) = command {
            parsed.command = .race(.reset(options))
        } else {
            parsed.command = .race(.table(command))
        }
        return parsed
    }

    private func readKlondike(_ message: JSON) throws(ProtocolError) -> ParsedGesture {
        switch self {
        case .tap, .doubleTap:
            let target = try Self.target(message, "target")
            let cause: JSON = .object([("type", .string(rawValue)), ("target", .string(target.pointer))])
            return ParsedGesture(command: .klondike(self == .tap ? .tap(target) : .doubleTap(target)), cause: cause, stored: cause)
        case .drag:
            let from = try Self.target(message, "from")
            let to = try Self.target(message, "to")
            let cause: JSON = .object(["type": "drag", "from": .string(from.pointer), "to": .string(to.pointer)])
            return ParsedGesture(command: .klondike(.drag(from: from, to: to)), cause: cause, stored: cause)
        case .reset:
            let options = try KlondikeOptionFields(message["options"])
            var cause: [(key: String, value: JSON)] = [("type", "reset")]
            var stored = cause
            if !options.publicFields.isEmpty { cause.append(("options", .object(options.publicFields))) }
            if !options.allFields.isEmpty { stored.append(("options", .object(options.allFields))) }
            let reset = KlondikeResetOptions(draw: options.draw, deal: options.deal)
            return ParsedGesture(command: .klondike(.reset(reset)), cause: .object(cause), stored: .object(stored),
                                 wantsWinnable: options.winnable)
        case .undo:
            let cause: JSON = .object(["type": "undo"])
            return ParsedGesture(command: .klondike(.undo), cause: cause, stored: cause)
        case .add, .color, .alpha:
            throw ProtocolError(.unknownType, "klondike has no \(rawValue)")
        }
    }

    private func readPlane(_ message: JSON) throws(ProtocolError) -> ParsedGesture {
        switch self {
        case .tap, .doubleTap:
            let point = try Self.point(message, in: rawValue)
            let cause: JSON = .object([("type", .string(rawValue)), ("x", .double(point.x)), ("y", .double(point.y))])
            return ParsedGesture(command: .plane(self == .tap ? .tap(point) : .doubleTap(point)), cause: cause, stored: cause)
        case .drag:
            guard let fromJSON = message["from"], let toJSON = message["to"] else { throw .bad("drag needs from and to points") }
            let from = try Self.point(fromJSON, in: "from")
            let to = try Self.point(toJSON, in: "to")
            let cause: JSON = .object([
                "type": "drag", "from": .object(["x": .double(from.x), "y": .double(from.y)]),
                "to": .object(["x": .double(to.x), "y": .double(to.y)]),
            ])
            return ParsedGesture(command: .plane(.drag(from: from, to: to)), cause: cause, stored: cause)
        case .reset:
            let cause: JSON = .object(["type": "reset"])
            return ParsedGesture(command: .plane(.reset), cause: cause, stored: cause)
        case .add:
            var spec = RectangleSpec()
            var fields: [(key: String, value: JSON)] = [("type", "add")]
            for name in ["x", "y", "width", "height"] {
                guard let value = try Self.optionalNumber(message, name) else { continue }
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
                guard let value = try Self.optionalInteger(message, name, in: RGB.channelRange) else { continue }
                fields.append((name, .int(value)))
                switch name {
                case "r": spec.r = value
                case "g": spec.g = value
                default: spec.b = value
                }
            }
            if let alpha = try Self.optionalInteger(message, "alpha", in: Rectangle.alphaRange) {
                fields.append(("alpha", .int(alpha)))
                spec.alpha = alpha
            }
            return ParsedGesture(command: .plane(.add(spec)), cause: .object(fields), stored: .object(fields))
        case .color:
            let r = try Self.optionalInteger(message, "r", in: RGB.channelRange)
            let g = try Self.optionalInteger(message, "g", in: RGB.channelRange)
            let b = try Self.optionalInteger(message, "b", in: RGB.channelRange)
            if let r, let g, let b {
                let cause: JSON = .object(["type": "color", "r": .int(r), "g": .int(g), "b": .int(b)])
                return ParsedGesture(command: .plane(.color(RGB(r: r, g: g, b: b))), cause: cause, stored: cause)
            }
            guard r == nil && g == nil && b == nil else { throw .bad("give all of r, g and b, or none for a random colour") }
            let cause: JSON = .object(["type": "color"])
            return ParsedGesture(command: .plane(.color(nil)), cause: cause, stored: cause)
        case .alpha:
            guard let step = message["step"]?.intValue, step == 1 || step == -1 else { throw .bad("alpha step must be 1 or -1") }
            let cause: JSON = .object(["type": "alpha", "step": .int(step)])
            return ParsedGesture(command: .plane(.alpha(step: step)), cause: cause, stored: cause)
        case .undo:
            throw ProtocolError(.unknownType, "plane has no undo")
        }
    }

    // MARK: Shorthand

    /// The JSON message a shorthand line stands for (`tap stock`, `drag 1 2 3 4`, `alpha +1`).
    /// Targets get back the leading `/` the terminal lets users drop.
    func shorthand(_ args: [String]) throws(ProtocolError) -> JSON {
        func usage(_ text: String) -> ProtocolError { .bad("usage: \(text)") }
        let type: (key: String, value: JSON) = ("type", .string(rawValue))
        switch self {
        case .tap, .doubleTap:
            switch args.count {
            case 1: return .object([type, ("target", .string(Shorthand.pointer(args[0])))])
            case 2: return .object([type, ("x", try Shorthand.number(args[0])), ("y", try Shorthand.number(args[1]))])
            default: throw usage("\(rawValue) TARGET  or  \(rawValue) X Y")
            }
        case .drag:
            switch args.count {
            case 2:
                return .object([type, ("from", .string(Shorthand.pointer(args[0]))), ("to", .string(Shorthand.pointer(args[1])))])
            case 4:
                let from: JSON = .object(["x": try Shorthand.number(args[0]), "y": try Shorthand.number(args[1])])
                let to: JSON = .object(["x": try Shorthand.number(args[2]), "y": try Shorthand.number(args[3])])
                return .object([type, ("from", from), ("to", to)])
            default: throw usage("drag FROM TO  or  drag X1 Y1 X2 Y2")
            }
        case .reset:
            return .object([type, ("options", try Shorthand.keyValues(args))])
        case .undo:
            guard args.isEmpty else { throw usage(rawValue) }
            return .object([type])
        case .add:
            return .object([type] + (try Shorthand.keyValues(args).objectPairs ?? []))
        case .color:
            switch args.count {
            case 0: return .object([type])
            case 1:
                guard let rgb = Shorthand.hexColour(args[0]) else { throw usage("color [#RRGGBB | R G B]") }
                return .object([type, ("r", .int(rgb.0)), ("g", .int(rgb.1)), ("b", .int(rgb.2))])
            case 3:
                return .object([type, ("r", try Shorthand.integer(args[0], "R")), ("g", try Shorthand.integer(args[1], "G")),
                                ("b", try Shorthand.integer(args[2], "B"))])
            default: throw usage("color [#RRGGBB | R G B]")
            }
        case .alpha:
            guard args.count == 1, let step = Int(args[0]) else { throw usage("alpha +1|-1") }
            return .object([type, ("step", .int(step))])
        }
    }

    // MARK: Fields

    private static func target(_ message: JSON, _ field: String) throws(ProtocolError) -> Target {
        guard let pointer = message[field]?.stringValue else { throw .bad("\(field) must be a pile pointer like /tableau/2") }
        do {
            return try Target.parse(pointer)
        } catch {
            throw ProtocolError(.badRequest, error.message)
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

/// Klondike's `draw`, `seed`, `deck` and `winnable` options, as `create` and `reset` carry them.
struct KlondikeOptionFields {
    static let maxSeed = (1 << 53) - 1

    var draw: Int?
    var deal: KlondikeDeal?
    /// The deal must be one the solver proved winnable (PROTOCOL section 12).
    var winnable = false
    /// Fields safe to show (`draw`, `winnable`).
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
        switch options["winnable"] {
        case nil, .null?, .bool(false)?: break
        case .bool(true)?:
            winnable = true
            publicFields.append(("winnable", true))
            allFields.append(("winnable", true))
        default: throw .bad("winnable must be true or false")
        }
    }
}
