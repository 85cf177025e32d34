// Fills a data directory with stored Klondike games, as a busy server would have left
// them: each game has its row and `--moves` stock taps with their diffs, all old enough
// to rest. Used by Benchmarks/resting/run.py to measure start-up and first-watch times.
//
//   swift run -c release rest-seed --dir DIR [--games 100000] [--moves 20]
import Core
import Foundation
import Realtime

var directory: String?
var games = 100_000
var moves = 20
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fatalError("\(flag) needs a value") }
    switch flag {
    case "--dir": directory = value
    case "--games": games = Int(value)!
    case "--moves": moves = Int(value)!
    default: fatalError("unknown flag \(flag)")
    }
}
guard let directory else { fatalError("usage: rest-seed --dir DIR [--games N] [--moves M]") }

let store = try SQLiteGameStore(directory: directory, durability: .normal)
let started = Date()
let old = Date().timeIntervalSince1970 - 86_400  // a day ago: every game rests at start
let tokenHash = String(repeating: "0", count: 64)
var batch = StoreBatch()
var rows = 0
for index in 0..<games {
    let id = String(format: "s%05d", index)
    let options: JSON = .object(["draw": 1, "seed": .int(index), "entropy": 0])
    var game = try Klondike(options: KlondikeOptions(draw: 1, deal: .seed(UInt64(index)), entropy: 0), time: old)
    for seq in 1...moves {
        guard case .success(let outcome) = game.apply(.tap(.stock), context: MoveContext(player: "p1", time: old + Double(seq))) else {
            fatalError("a stock tap was refused")
        }
        let cause: JSON = .object(["type": "tap", "target": "/stock", "by": "p1"])
        var diff = #"{"type":"diff","game":"\#(id)","seq":\#(seq),"ops":"#
        diff += outcome.diff.encodedOps
        diff += #","cause":"#
        diff += cause.encoded
        diff += "}"
        batch.commands.append(StoredCommand(game: id, seq: seq, command: .object(["type": "tap", "target": "/stock"]),
                                            player: "p1", clientID: "\"\(id)-\(seq)\"", time: old + Double(seq), diff: diff))
    }
    batch.games.append(StoredGame(id: id, kind: "klondike", options: options, tokenHash: tokenHash, created: old,
                                  updated: old + Double(moves), status: game.status.word, seq: moves))
    rows += moves + 1
    if batch.commands.count >= 50_000 {
        try store.write(batch)
        batch = StoreBatch()
    }
}
try store.write(batch)
try store.close()
print("seeded \(games) games, \(rows) rows in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
