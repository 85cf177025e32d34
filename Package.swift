// swift-tools-version:6.0
import PackageDescription

/// Fuzz targets define their own entry point (`<target>_main`), which hands control to
/// libFuzzer's driver: see Fuzz/README.md.
let fuzzSettings: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "Boardcast",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "server", targets: ["server"]),
        // A game developer's own package depends on these (docs/GAMES.md): `Boardcast` is the
        // server with its flags, the realtime layer and the game interface; `BoardcastCore` the
        // game interface alone, for a package of rules that serves nothing.
        .library(name: "Boardcast", targets: ["Boardcast"]),
        .library(name: "BoardcastCore", targets: ["BoardcastCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // The games: pure rules (libm only for rounding doubles) that turn gestures into states and RFC 6902 diffs.
        .target(name: "Core", linkerSettings: [.linkedLibrary("m")]),
        // The game interface as a game developer's package imports it (`import BoardcastCore`).
        .target(name: "BoardcastCore", dependencies: ["Core"]),
        // libwebsockets, seen through a tiny shim header; only Realtime/LWS*.swift touch it.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // hiredis (async, on the same libev loop as lws), seen through a tiny shim; only Cluster/Shell/RedisLink.swift touches it.
        .systemLibrary(
            name: "CHiredis",
            pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev", "libev-dev"])]
        ),
        .target(
            name: "Realtime",
            dependencies: [
                "Core",
                "CLibWebSockets",
                "CHiredis",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        // The server's flags, signals and wiring, over any catalog of games: `server` is one line over it.
        .target(
            name: "Boardcast",
            dependencies: [
                "Core",
                "Realtime",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "server", dependencies: ["Boardcast"]),
        // Benchmark of the pure core: gestures per second with their diffs.
        .executableTarget(name: "core-bench", dependencies: ["Core"], path: "Benchmarks/core-bench"),
        // The independent RFC 6902 apply that judges the games' diffs, in the tests and the fuzz targets.
        .target(name: "JSONPatchCheck", path: "Tests/JSONPatchCheck"),
        .testTarget(name: "CoreTests", dependencies: ["Core", "JSONPatchCheck"]),
        // Benchmark of the Klondike solver: winnable shares of seeded deals, time per deal.
        .executableTarget(name: "solver-bench", dependencies: ["Core"], path: "Benchmarks/solver-bench"),
        // Benchmark of durable storage: moves per second and commit latency, SQLite and PostgreSQL.
        .executableTarget(name: "storage-bench", dependencies: ["Realtime", "Core"], path: "Benchmarks/storage-bench",
                          exclude: ["run-postgres.sh"]),
        // swift-crypto's private keys sign the tokens the verifier's tests check.
        .testTarget(name: "RealtimeTests", dependencies: [
            "Realtime", "Core",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        // Fills a data directory with resting games, for Benchmarks/resting (start-up and first-watch times).
        .executableTarget(name: "rest-seed", dependencies: ["Realtime", "Core"], path: "Benchmarks/rest-seed"),
        // Benchmark of sign-in (PROTOCOL section 19): CPU per token checked, HS256 / RS256 / ES256, good and refused.
        .executableTarget(name: "auth-bench", dependencies: [
            "Realtime",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ], path: "Benchmarks/auth-bench"),
        // GRDB to write files as older versions did; PostgresNIO for the tests' own sessions on the server.
        .testTarget(name: "StorageTests", dependencies: [
            "Realtime", "Core",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
        // Fuzz targets: scripts/fuzz builds them with libFuzzer; an ordinary build makes
        // programs that replay input files (a crash, a corpus) through the same checks.
        .target(name: "FuzzSupport", path: "Fuzz/Support"),
        .executableTarget(name: "fuzz-frames", dependencies: ["Realtime", "Core", "FuzzSupport"],
                          path: "Fuzz/frames", swiftSettings: fuzzSettings),
        .executableTarget(name: "fuzz-games", dependencies: ["Core", "FuzzSupport", "JSONPatchCheck"],
                          path: "Fuzz/games", swiftSettings: fuzzSettings),
        .executableTarget(name: "fuzz-json", dependencies: ["Realtime", "Core", "FuzzSupport"],
                          path: "Fuzz/json", swiftSettings: fuzzSettings),
        .executableTarget(name: "fuzz-http", dependencies: ["Realtime", "Core", "FuzzSupport"],
                          path: "Fuzz/http", swiftSettings: fuzzSettings),
    ],
    swiftLanguageModes: [.v6]
)
