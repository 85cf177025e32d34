/// The generic gestures as Klondike reads them (a race reads them the same way, for a table).
enum KlondikeMessages {
    static func read(_ type: String, _ message: JSON) throws(GameError) -> (ReadCommand<KlondikeCommand>, winnable: Bool) {
        switch type {
        case "tap", "double-tap":
            let target = try Self.target(message, "target")
            let cause: JSON = .object([("type", .string(type)), ("target", .string(target.pointer))])
            return (ReadCommand(type == "tap" ? .tap(target) : .doubleTap(target), cause: cause), false)
        case "drag":
            let from = try Self.target(message, "from")
            let to = try Self.target(message, "to")
            let cause: JSON = .object(["type": "drag", "from": .string(from.pointer), "to": .string(to.pointer)])
            return (ReadCommand(.drag(from: from, to: to), cause: cause), false)
        case "reset":
            let options = try KlondikeOptionFields(message["options"])
            var cause: [(key: String, value: JSON)] = [("type", "reset")]
            var stored = cause
            if !options.publicFields.isEmpty { cause.append(("options", .object(options.publicFields))) }
            if !options.allFields.isEmpty { stored.append(("options", .object(options.allFields))) }
            let reset = KlondikeResetOptions(draw: options.draw, deal: options.deal)
            return (ReadCommand(.reset(reset), cause: .object(cause), stored: .object(stored)), options.winnable)
        case "undo":
            return (ReadCommand(.undo, cause: .object(["type": "undo"])), false)
        default:
            throw GameError(.unknownType, rule: "unknown-type", "klondike has no \(type)")
        }
    }

    private static func target(_ message: JSON, _ field: String) throws(GameError) -> Target {
        guard let pointer = message[field]?.stringValue else {
            throw .badRequest("bad-target", "\(field) must be a pile pointer like /tableau/2")
        }
        return try Target.parse(pointer)
    }

    /// A reset's `winnable` deal, when its stored form asks for one.
    static func seedRequest(_ command: ReadCommand<KlondikeCommand>, currentDraw: Int) -> SeedRequest? {
        guard case .reset(let options) = command.command, command.stored["options"]?["winnable"] == .bool(true) else {
            return nil
        }
        let given: JSON? = options.deal == nil ? nil : command.stored["options"]
        return KlondikeDealProver.request(draw: options.draw ?? currentDraw, given: given)
    }

    /// The reset dealing `seed`: the stored form carries the seed, the cause does not.
    static func dealing(_ command: ReadCommand<KlondikeCommand>, seed: UInt64,
                        wrap: (KlondikeResetOptions) -> KlondikeCommand) -> (KlondikeCommand, JSON)? {
        guard case .reset(let options) = command.command else { return nil }
        var pairs = command.stored.objectPairs ?? []
        let storedOptions = (command.stored["options"]?.objectPairs ?? []).filter { $0.key != "seed" && $0.key != "deck" }
        pairs.removeAll { $0.key == "options" }
        pairs.append(("options", .object(storedOptions + [("seed", .int(Int(seed)))])))
        return (wrap(KlondikeResetOptions(draw: options.draw, deal: .seed(seed))), .object(pairs))
    }
}
