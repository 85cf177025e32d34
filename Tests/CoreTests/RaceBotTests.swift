import Testing
@testable import Core

/// Race bots (PROTOCOL section 18): every table of a race is dealt the same, so two bots of one
/// level that only followed the solver would play one game move for move.
@Suite struct RaceBotTests {
    @Test func twoBotsOfOneLevelPlayGamesOfTheirOwn() throws {
        var race = try Race.started(seats: 3, deal: .seed(2))
        var moves: [String: [ReadCommand<RaceCommand>]] = ["p2": [], "p3": []]
        var random = SplitMix64(seed: 11)
        for _ in 0..<20 {
            for seat in ["p2", "p3"] {
                var seeded = SplitMix64(seed: random.next())
                let move = try #require(race.botMove(seat: seat, level: 3, random: &seeded, budget: 200_000))
                moves[seat]!.append(move)
                race.expectAccepted(move.command, by: seat)
            }
        }
        #expect(moves["p2"]!.map(\.cause) != moves["p3"]!.map(\.cause), "the same 20 moves")
    }

    @Test func aBotThatWandersStillPlaysTheDealItCanWin() throws {
        var race = try Race.started(seats: 2, deal: .seed(2))
        var random = SplitMix64(seed: 5)
        for _ in 0..<600 where race.awaits("p2") {
            var seeded = SplitMix64(seed: random.next())
            let move = try #require(race.botMove(seat: "p2", level: 1, random: &seeded, budget: 1_500_000))
            race.expectAccepted(move.command, by: "p2")
        }
        #expect(race.table(of: "p2")?.isWon == true, "a level-1 bot, the one that wanders most, won its table")
    }
}
