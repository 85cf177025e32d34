// swift-tools-version:6.0
import PackageDescription

// A game developer's own package: tic-tac-toe (PROTOCOL section 20) served by Boardcast beside
// the standard games. Boardcast comes by path here; from elsewhere, by its URL and a version.
let package = Package(
    name: "TicTacToe",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tictactoe-server", targets: ["tictactoe-server"]),
        .library(name: "TicTacToe", targets: ["TicTacToe"]),
    ],
    dependencies: [
        .package(name: "Boardcast", path: "../.."),
    ],
    targets: [
        // The rules alone: the game interface, nothing of the server.
        .target(name: "TicTacToe", dependencies: [.product(name: "BoardcastCore", package: "Boardcast")]),
        .executableTarget(name: "tictactoe-server", dependencies: [
            "TicTacToe",
            .product(name: "Boardcast", package: "Boardcast"),
        ]),
        .testTarget(name: "TicTacToeTests", dependencies: [
            "TicTacToe",
            .product(name: "BoardcastCore", package: "Boardcast"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
