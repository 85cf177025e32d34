import Testing
@testable import Core

/// Section 4's invariant, per view (section 13): for every accepted race command, each
/// view's diff applied by the independent RFC 6902 apply to that view's state before gives
/// exactly that view's state after; a refused command changes nothing; and no seated view
/// ever shows a card of a rival's stock, waste or tableau.
@Suite struct RaceDiffInvariantTests {
    static let seeds: [UInt64] = Array(1...UInt64(SampleCount.of(16)))

    @Test(arguments: [2, 3], [0, 1])
    func everyViewsDiffPatchesThatViewsStateAndHidesRivalCards(seats: Int, half: Int) throws {
        var accepted = 0, refused = 0, wins = 0, finishes = 0, resets = 0
        nextSeed: for seed in Self.seeds where Int(seed % 2) == half {
            // Half the races are dealt a deck a greedy player wins, and played longer, so tables
            // are won, races finish and reset.
            let greedyWins = seed % 4 < 2
            let deal: KlondikeDeal = greedyWins ? .deck(KlondikeHintTests.homeDeck) : .seed(seed)
            let options = RaceOptions(seats: seats, draw: seed % 4 == 3 ? 3 : 1, deal: deal, entropy: seed &* 31)
            var race = try Race(options: options, time: 0)
            var gestures = RaceGestureGenerator(seed: seed &* 7_919 &+ UInt64(seats))
            var before = race.viewers.map { race.publicState(for: $0).encoded }
            for viewer in race.viewers where !RacePlayChecks.checkMasked(race, for: viewer, diff: Diff()) { continue nextSeed }
            for step in 0..<(greedyWins ? 600 : 200) {
                let (command, seat) = gestures.next(on: race)
                let old = race
                let result = race.apply(command, context: MoveContext(player: seat, time: Double(step)))
                switch result {
                case .success(let outcome):
                    accepted += 1
                    let names = outcome.events.map(\.name)
                    wins += names.filter { $0 == "won" }.count
                    resets += names.filter { $0 == "reset" }.count
                    if race.isFinished && !old.isFinished { finishes += 1 }
                    guard let after = RacePlayChecks.checkViews(of: outcome, before: before, after: race,
                                                                gesture: "seed \(seed) step \(step) \(seat) \(command)")
                    else { continue nextSeed }
                    before = after
                case .failure:
                    refused += 1
                    guard race == old else {
                        Issue.record("seed \(seed) step \(step): refused \(seat) \(command) changed the race")
                        continue nextSeed
                    }
                }
            }
        }
        // Races must really be played, won and reset, for the test to mean much.
        #expect(accepted > SampleCount.of(2000) && refused > SampleCount.of(300), "accepted \(accepted), refused \(refused)")
        #expect(wins >= SampleCount.of(8) && finishes >= SampleCount.of(2) && resets >= SampleCount.of(2), "wins \(wins), finishes \(finishes), resets \(resets)")
    }
}

/// Random race commands: mostly Klondike gestures (`KlondikeGestureGenerator`'s mix of
/// hints, legal moves, blind targets and undo) on a random seat's table, the odd sender
/// that is no seat, `start` and `reset` now and then, and often once the race is finished.
struct RaceGestureGenerator {
    var rng: SplitMix64
    var gestures: KlondikeGestureGenerator

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        gestures = KlondikeGestureGenerator(seed: seed ^ 0x5DEE_CE66)
    }

    mutating func int(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

    mutating func next(on race: Race) -> (RaceCommand, String) {
        let seat = int(40) == 0 ? ["p9", "spectator", ""][int(3)] : race.seats[int(race.seats.count)]
        switch race.phase {
        case .waiting where int(8) == 0: return (.start, seat)
        case .finished where int(3) == 0: return (.reset(resetOptions()), seat)
        default: break
        }
        if int(50) == 0 { return (.start, seat) }
        guard let table = race.table(of: seat) ?? race.table(of: "p1") else { return (.start, seat) }
        let gesture = gestures.next(on: table)
        if case .reset(let options) = gesture, int(2) == 0 { return (.reset(options), seat) }
        return (.table(gesture), seat)
    }

    /// Half the resets name no deal (a seed from the race's entropy), some the home deck so
    /// the next race can finish too, some a bad draw.
    mutating func resetOptions() -> KlondikeResetOptions {
        let draw = [nil, nil, 1, 3, 2][int(5)]
        switch int(4) {
        case 0: return KlondikeResetOptions(draw: draw, deal: .deck(KlondikeHintTests.homeDeck))
        case 1: return KlondikeResetOptions(draw: draw, deal: .seed(rng.next() >> 11))
        default: return KlondikeResetOptions(draw: draw)
        }
    }
}
