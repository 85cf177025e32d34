import Core

/// The terminal shorthand (PROTOCOL section 7): one command line becomes the
/// JSON message it stands for, which then takes the same path as any message.
/// The generic gestures' forms are the `Gesture` table's; a game's own commands, the game's.
enum Shorthand {
    static func message(from line: String, games: GameCatalog) -> Result<JSON, ProtocolError> {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }).map(String.init)
        guard let verb = words.first else { return .failure(.bad("empty command")) }
        if verb == "say" {
            // The rest of the line as typed, inner spaces kept: chat text is not a list of words.
            let text = line.drop { $0 == " " || $0 == "\t" }.dropFirst(verb.count)
            return .success(.object(["type": "say", "text": .string(String(text))]))
        }
        let args = Array(words.dropFirst())
        do {
            return .success(try withObjectForms(try message(verb: verb, args: args, games: games)))
        } catch {
            return .failure(error)
        }
    }

    private static func message(verb: String, args: [String], games: GameCatalog) throws(ProtocolError) -> JSON {
        func usage(_ text: String) -> ProtocolError { .bad("usage: \(text)") }
        if let gesture = Gesture(rawValue: verb) {
            do { return try gesture.shorthand(args) } catch { throw ProtocolError(error) }
        }
        if let own = try games.shorthand(verb, args) { return own }
        switch verb {
        case "create":
            guard let kind = args.first else { throw usage("create \(games.kinds.joined(separator: "|")) [key=value ...]") }
            return .object(["type": "create", "kind": .string(kind), "options": try keyValues(Array(args.dropFirst()))])
        case "join":
            var rest = args
            var seat: String?
            if let last = rest.last, last.hasPrefix("seat=") {
                seat = String(last.dropFirst(5))
                rest.removeLast()
            }
            // `join GAME` alone: a signed-in player taking their own place back (section 19).
            guard (1...3).contains(rest.count) else { throw usage("join GAME [TOKEN] [SINCE] [seat=pN]") }
            var pairs: [(key: String, value: JSON)] = [("type", "join"), ("game", .string(rest[0]))]
            if rest.count >= 2 { pairs.append(("token", .string(rest[1]))) }
            if rest.count == 3 { pairs.append(("since", try integer(rest[2], "SINCE"))) }
            if let seat { pairs.append(("seat", .string(seat))) }
            return .object(pairs)
        case "watch":
            var rest = args
            let key = takeKey(&rest)
            guard rest.count == 1 || rest.count == 2 else { throw usage("watch GAME [SINCE] [key=KEY]") }
            var pairs: [(key: String, value: JSON)] = [("type", "watch"), ("game", .string(rest[0]))]
            if rest.count == 2 { pairs.append(("since", try integer(rest[1], "SINCE"))) }
            if let key { pairs.append(("key", .string(key))) }
            return .object(pairs)
        case "replay":
            var rest = args
            let key = takeKey(&rest)
            guard rest.count == 1 else { throw usage("replay GAME [key=KEY]") }
            var pairs: [(key: String, value: JSON)] = [("type", "watch"), ("game", .string(rest[0])), ("replay", true)]
            if let key { pairs.append(("key", .string(key))) }
            return .object(pairs)
        case "auth":
            guard args.count == 1 else { throw usage("auth JWT") }
            return .object(["type": "auth", "jwt": .string(args[0])])
        case "list":
            switch args {
            case []: return .object(["type": "list"])
            case ["follow"]: return .object(["type": "list", "follow": true])
            case ["unfollow"]: return .object(["type": "list", "follow": false])
            default: throw usage("list [follow|unfollow]")
            }
        case "mute":
            guard args.count == 1 else { throw usage("mute sN") }
            return .object(["type": "mute", "who": .string(args[0])])
        case "leave", "hint", "show":
            guard args.isEmpty else { throw usage(verb) }
            return .object([("type", .string(verb))])
        default:
            throw ProtocolError(.unknownType, "unknown command \(verb)")
        }
    }

    /// A `create` or `reset` with the turn options' short forms turned into the JSON message's objects.
    private static func withObjectForms(_ message: JSON) throws(ProtocolError) -> JSON {
        guard let type = message["type"]?.stringValue, type == "create" || type == "reset",
              let options = message["options"] else { return message }
        return message.setting("options", to: try ShorthandTurnOptions.objectForms(options))
    }

    /// A trailing `key=KEY` (a game watched by link), taken off the words.
    private static func takeKey(_ words: inout [String]) -> String? {
        guard let last = words.last, last.hasPrefix("key=") else { return nil }
        words.removeLast()
        return String(last.dropFirst(4))
    }

    static func keyValues(_ args: [String]) throws(ProtocolError) -> JSON {
        do { return try ShorthandWords.keyValues(args) } catch { throw ProtocolError(error) }
    }

    static func integer(_ word: String, _ name: String) throws(ProtocolError) -> JSON {
        do { return try ShorthandWords.integer(word, name) } catch { throw ProtocolError(error) }
    }
}
