// swift-tools-version: 6.0
// Boardcast's Swift client library and the reference command-line client (PROTOCOL section 21).
// It depends on no part of the server: only on a WebSocket client (Linux) or URLSession (Apple).

import PackageDescription

let package = Package(
    name: "BoardcastClient",
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [
        .library(name: "BoardcastClient", targets: ["BoardcastClient"]),
        .executable(name: "boardcast-client", targets: ["boardcast-client"]),
    ],
    dependencies: [
        // The WebSocket client used off Apple platforms (see README: the transport choice).
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
    ],
    targets: [
        .target(
            name: "BoardcastClient",
            dependencies: [
                // Apple platforms use URLSessionWebSocketTask; the NIO client is for the others.
                .product(
                    name: "WSClient", package: "swift-websocket",
                    condition: .when(platforms: [.linux, .windows, .android, .openbsd, .wasi])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "boardcast-client",
            dependencies: ["BoardcastClient"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // What a watched game costs in memory, for Benchmarks/clients/run.mjs; not a product.
        .executableTarget(
            name: "client-memory",
            dependencies: ["BoardcastClient"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "BoardcastClientTests",
            dependencies: ["BoardcastClient"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
