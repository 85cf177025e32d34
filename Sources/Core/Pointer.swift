/// JSON Pointer (RFC 6901) helpers.
public enum Pointer {
    /// Escapes one reference token: `~` as `~0`, `/` as `~1`.
    public static func escape(_ token: String) -> String {
        // A byte scan: `String.contains(Character)` walks grapheme clusters, which is slow on the diff path.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    public static func join(_ tokens: String...) -> String {
        tokens.map { "/" + escape($0) }.joined()
    }
}
