import Boardcast
import Foundation
import TicTacToe

// Boardcast's standard games and tic-tac-toe, with the page's module for it; every flag of
// Boardcast's `server` (`tictactoe-server --help`).
let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("web/tictactoe").path
Boardcast.main(games: GameCatalog.standard.adding(TicTacToe.self),
               pages: [PageModule(kind: TicTacToe.kind, folder: web)])
