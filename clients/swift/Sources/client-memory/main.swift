// client-memory: how much memory a watched game costs the Swift client (BENCHMARKS.md, "Clients").
// Benchmarks/clients/run.mjs --swift runs it; it is no part of the library's interface.
//
//   client-memory URL GAME...
//
// Watches every GAME in this one process, one session (one WebSocket) each, and prints one JSON
// line: the growth of the resident set from before the first session to after every session
// holds its snapshot, and that over the number of games.

import BoardcastClient
import Foundation

/// The resident set of this process, in bytes (Linux: the second field of /proc/self/statm, in pages).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 2, let url = URL(string: args[0]) else {
    FileHandle.standardError.write(Data("usage: client-memory URL GAME...\n".utf8))
    exit(2)
}
let games = Array(args.dropFirst())

// The runtime, Foundation and one connection's worth of NIO are paid once, before the measure:
// the figure is what each further game adds.
let client = BoardcastClient(url: url)
let warmUp = client.watching(game: games[0])
try await warmUp.ready()
_ = try await warmUp.until { _ in true }

let before = residentBytes()
var sessions: [GameSession] = []
for game in games.dropFirst() {
    sessions.append(client.watching(game: game))
}
for session in sessions {
    try await session.ready()
    _ = try await session.until { _ in true }
}
let after = residentBytes()
let watched = sessions.count
let perGame = Double(after - before) / Double(max(watched, 1))
print("{\"games\":\(watched),\"residentGrowth\":\(after - before),\"residentPerGame\":\(Int(perGame))}")
await client.close()
