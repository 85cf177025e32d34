import Core

/// A game's module for the browser page, from the package that serves the game: a folder the
/// server serves at `/games/KIND/`, whose `entry` is an ES module that exports the kind's
/// descriptor (web-static/js/games.js says what one holds) as `default`. The page lists them
/// at `/api/pages` and loads each before it draws the lobby.
public struct PageModule: Sendable, Equatable {
    public var kind: String
    public var folder: String
    public var entry: String

    public init(kind: String, folder: String, entry: String = "index.js") {
        self.kind = kind
        self.folder = folder
        self.entry = entry
    }

    /// Where the folder is served.
    public var mountPoint: String { "/games/" + kind }

    /// What `/api/pages` says of it.
    var json: JSON { .object([("kind", .string(kind)), ("module", .string(mountPoint + "/" + entry))]) }

    /// A kind is a path segment: letters, digits and `-`.
    public static func isValidKind(_ kind: String) -> Bool {
        !kind.isEmpty && kind.utf8.count <= 40 && kind.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: "-")
        }
    }
}
