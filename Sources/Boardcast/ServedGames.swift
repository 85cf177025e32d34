import Foundation
import Realtime

/// What the process serves, set once by `Boardcast.main` before the command line is read: the
/// flags' help names the games, and `run` builds the server with them. ArgumentParser makes the
/// command from its flags alone, so the catalog reaches it here.
struct ServedGames: Sendable {
    var catalog: GameCatalog
    var pages: [PageModule]
    var commandName: String

    private static let lock = NSLock()
    // Written once, before any reader, under the lock; read under it.
    nonisolated(unsafe) private static var chosen = ServedGames(catalog: .standard, pages: [], commandName: "server")

    static var current: ServedGames { lock.withLock { chosen } }

    static func choose(_ served: ServedGames) { lock.withLock { chosen = served } }

    /// `./web-static` where the server is started from a checkout of Boardcast; otherwise the page
    /// beside the sources it was built from (a game developer's package that depends on Boardcast).
    static var defaultWeb: String {
        if FileManager.default.fileExists(atPath: "./web-static/index.html") { return "./web-static" }
        let beside = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("web-static")
        return FileManager.default.fileExists(atPath: beside.appendingPathComponent("index.html").path) ? beside.path : "./web-static"
    }
}
