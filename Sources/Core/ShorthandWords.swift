/// The words of a terminal command line (PROTOCOL section 7) as JSON values, for the server's
/// shorthand and for a game's own commands.
public enum ShorthandWords {
    /// A target as typed in a terminal, as the JSON Pointer it stands for.
    public static func pointer(_ word: String) -> String { word.hasPrefix("/") ? word : "/" + word }

    /// `draw=3 seed=42 deck=AS2S...` as an options object; numbers become numbers, `true`/`false` booleans.
    public static func keyValues(_ args: [String]) throws(GameError) -> JSON {
        var pairs: [(key: String, value: JSON)] = []
        for arg in args {
            guard let eq = arg.firstIndex(of: "="), eq != arg.startIndex else {
                throw bad("expected key=value, got \(arg)")
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

    public static func integer(_ word: String, _ name: String) throws(GameError) -> JSON {
        guard let n = Int(word) else { throw bad("\(name) must be an integer, got \(word)") }
        return .int(n)
    }

    public static func number(_ word: String) throws(GameError) -> JSON {
        if let i = Int(word) { return .int(i) }
        guard let d = Double(word), d.isFinite else { throw bad("expected a number, got \(word)") }
        return .double(d)
    }

    public static func hexColour(_ word: String) -> (Int, Int, Int)? {
        let hex = word.hasPrefix("#") ? String(word.dropFirst()) : word
        guard hex.count == 6, let value = Int(hex, radix: 16) else { return nil }
        return ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)
    }

    public static func usage(_ text: String) -> GameError { bad("usage: \(text)") }

    static func bad(_ message: String) -> GameError { .badRequest("shorthand", message) }
}
