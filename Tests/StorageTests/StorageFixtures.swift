import Core
import Foundation
import Realtime

/// A fresh directory under the system temp folder, removed when `body` returns.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = NSTemporaryDirectory() + "storage-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

func databasePath(in directory: String) -> String {
    directory + "/" + SQLiteGameStore.fileName
}

func fileBytes(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

func klondikeGame(_ id: String, seq: Int = 0, status: String = "playing", updated: Double = 1_700_000_000) -> StoredGame {
    StoredGame(
        id: id, kind: "klondike",
        options: .object(["draw": 3, "seed": 42, "entropy": "f00d"]),
        tokenHash: String(repeating: "ab", count: 32),
        created: 1_700_000_000.25, updated: updated, status: status, seq: seq)
}

func dragCommand(game: String, seq: Int, player: String = "p1", clientID: String? = nil) -> StoredCommand {
    StoredCommand(
        game: game, seq: seq,
        command: .object(["type": "drag", "from": .string("/tableau/2/\(seq % 7)"), "to": "/foundations/0"]),
        player: player, clientID: clientID, time: 1_700_000_000 + Double(seq) / 8)
}

/// A value written from several threads in a test; the lock makes that safe.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
