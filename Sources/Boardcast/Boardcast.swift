@_exported import Core
import Foundation
@_exported import Realtime

/// Boardcast as a dependency: a game developer's package serves its games, with the standard
/// ones or without them, and its page modules, with every flag of the `server` executable.
///
///     import Boardcast
///     Boardcast.main(games: GameCatalog.standard.adding(MyGame.self),
///                    pages: [PageModule(kind: MyGame.kind, folder: "web/mygame")])
public enum Boardcast {
    /// Reads the command line (`--help` lists the flags and names `games`), serves until SIGINT
    /// or SIGTERM, and exits.
    public static func main(games: GameCatalog = .standard, pages: [PageModule] = [],
                            commandName: String? = nil) -> Never {
        for page in pages where !PageModule.isValidKind(page.kind) || games.game(named: page.kind) == nil {
            FileHandle.standardError.write(Data("a page module's kind must be one of the served games: \(page.kind)\n".utf8))
            exit(2)
        }
        let name = commandName ?? CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "server"
        ServedGames.choose(ServedGames(catalog: games, pages: pages, commandName: name))
        ServerCommand.main()
        exit(0)
    }
}

extension GameCatalog {
    /// This catalog with more games after its own (a kind already served is refused at start).
    public func adding(_ more: any Game.Type...) -> GameCatalog {
        for game in more where self.game(named: game.kind) != nil {
            FileHandle.standardError.write(Data("two games of kind \(game.kind)\n".utf8))
            exit(2)
        }
        return GameCatalog(games + more, prover: prover, searchBudget: searchBudget)
    }
}
