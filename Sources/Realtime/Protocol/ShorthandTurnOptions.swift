import Core

/// The shorthand's short forms of the turn options (PROTOCOL section 7): `clock=S+I`, `bot=L` and
/// `bots=L,L...` become the JSON message's objects, so a JSON `create` or `reset` takes objects
/// only (section 2: an ill-typed field is `bad-request`) while a terminal keeps its short words.
enum ShorthandTurnOptions {
    static func objectForms(_ options: JSON) throws(ProtocolError) -> JSON {
        var options = options
        if let clock = options["clock"] {
            options = options.setting("clock", to: try clockObject(clock))
        }
        switch (options["bots"], options["bot"]) {
        case (nil, let level?):
            guard let level = level.intValue else { throw .bad("bot=L: a level for a bot in p2") }
            options = options.removing("bot").setting("bots", to: .object([("p2", .int(level))]))
        case (let bots?, nil):
            options = options.setting("bots", to: try botsObject(bots))
        case (_?, _?):
            throw .bad("bot=L or bots=L,L..., not both")
        case (nil, nil):
            break
        }
        return options
    }

    /// `300+5` is 300 seconds and 5 a move; `300` alone adds nothing a move.
    private static func clockObject(_ word: JSON) throws(ProtocolError) -> JSON {
        let why = ProtocolError.bad("clock=S+I: S seconds (10 to 10800), I seconds a move (0 to 180)")
        if let seconds = word.doubleValue {
            return .object([("initial", .double(seconds)), ("increment", .int(0))])
        }
        guard let text = word.stringValue else { throw why }
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        guard parts.count == 2, let initial = Double(parts[0]), let increment = Double(parts[1]),
              initial.isFinite, increment.isFinite else { throw why }
        return .object([("initial", .double(initial)), ("increment", .double(increment))])
    }

    /// `bots=2,3` seats levels 2 and 3 in `p2` and `p3`; `bots=2` one in `p2`.
    private static func botsObject(_ word: JSON) throws(ProtocolError) -> JSON {
        if let level = word.intValue { return .object([("p2", .int(level))]) }
        guard let list = word.stringValue else { throw .bad("bots=L,L...: the levels of the seats after p1") }
        var pairs: [(key: String, value: JSON)] = []
        for (index, part) in list.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            guard let level = Int(part) else { throw .bad("bots=L,L...: the levels of the seats after p1") }
            pairs.append(("p\(index + 2)", .int(level)))
        }
        return .object(pairs)
    }
}
