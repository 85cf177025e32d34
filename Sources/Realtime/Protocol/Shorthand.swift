import Core

/// The terminal shorthand (PROTOCOL section 7): one command line becomes the
/// JSON message it stands for, which then takes the same path as any message.
/// Game commands are read by their entry in the `Gesture` table.
enum Shorthand {
    static func message(from line: String) -> Result<JSON, ProtocolError> {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }).map(String.init)
        guard let verb = words.first else { return .failure(.bad("empty command")) }
        if verb == "say" {
            // The rest of the line as typed, inner spaces kept: chat text is not a list of words.
            let text = line.drop { $0 == " " || $0 == "\t" }.dropFirst(verb.count)
            return .success(.object(["type": "say", "text": .string(String(text))]))
        }
        let args = Array(words.dropFirst())
        do {
            return .success(try message(verb: verb, args: args))
        } catch {
            return .failure(error)
        }
    }

    private static func message(verb: String, args: [String]) throws(ProtocolError) -> JSON {
        func usage(_ text: String) -> ProtocolError { .bad("usage: \(text)") }
        if let gesture = Gesture(rawValue: verb) { return try gesture.shorthand(args) }
        switch verb {
        case "create":
            guard let kind = args.first else { throw usage("create klondike|plane|race [key=value ...]") }
            return .object(["type": "create", "kind": .string(kind), "options": try keyValues(Array(args.dropFirst()))])
        case "join":
            var rest = args
            var seat: String?
            if let last = rest.last, last.hasPrefix("seat=") {
                seat = String(last.dropFirst(5))
                rest.removeLast()
            }
            guard rest.count == 2 || rest.count == 3 else { throw usage("join GAME TOKEN [SINCE] [seat=pN]") }
            var pairs: [(key: String, value: JSON)] = [("type", "join"), ("game", .string(rest[0])), ("token", .string(rest[1]))]
            if rest.count == 3 { pairs.append(("since", try integer(rest[2], "SINCE"))) }
            if let seat { pairs.append(("seat", .string(seat))) }
            return .object(pairs)
        case "watch":
            guard args.count == 1 || args.count == 2 else { throw usage("watch GAME [SINCE]") }
            var pairs: [(key: String, value: JSON)] = [("type", "watch"), ("game", .string(args[0]))]
            if args.count == 2 { pairs.append(("since", try integer(args[1], "SINCE"))) }
            return .object(pairs)
        case "replay":
            guard args.count == 1 else { throw usage("replay GAME") }
            return .object(["type": "watch", "game": .string(args[0]), "replay": true])
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

    /// A target as typed in a terminal, as the JSON Pointer it stands for.
    static func pointer(_ word: String) -> String { word.hasPrefix("/") ? word : "/" + word }

    /// `draw=3 seed=42 deck=AS2S...` as an options object; numbers become numbers, `true`/`false` booleans.
    static func keyValues(_ args: [String]) throws(ProtocolError) -> JSON {
        var pairs: [(key: String, value: JSON)] = []
        for arg in args {
            guard let eq = arg.firstIndex(of: "="), eq != arg.startIndex else {
                throw .bad("expected key=value, got \(arg)")
            }
            let key = String(arg[..<eq])
            let raw = String(arg[arg.index(after: eq)...])
            if let i = Int(raw) {
                pairs.append((key, .int(i)))
            } else if let d = Double(raw), d.isFinite {
                pairs.append((key, .double(d)))
            } else if raw == "true" || raw == "false" {
                pairs.append((key, .bool(raw == "true")))
            } else {
                pairs.append((key, .string(raw)))
            }
        }
        return .object(pairs)
    }

    static func integer(_ word: String, _ name: String) throws(ProtocolError) -> JSON {
        guard let n = Int(word) else { throw .bad("\(name) must be an integer, got \(word)") }
        return .int(n)
    }

    static func number(_ word: String) throws(ProtocolError) -> JSON {
        if let i = Int(word) { return .int(i) }
        guard let d = Double(word), d.isFinite else { throw .bad("expected a number, got \(word)") }
        return .double(d)
    }

    static func hexColour(_ word: String) -> (Int, Int, Int)? {
        let hex = word.hasPrefix("#") ? String(word.dropFirst()) : word
        guard hex.count == 6, let value = Int(hex, radix: 16) else { return nil }
        return ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)
    }
}
