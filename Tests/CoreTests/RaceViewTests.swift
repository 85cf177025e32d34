import Foundation
import Testing
@testable import Core
import JSONPatchCheck

/// The views of a race in the cases where masking is easiest to get wrong. Every command
/// here also goes through `expectAccepted`, which checks each view's diff with the
/// independent RFC 6902 apply and each view's masking.
@Suite struct RaceViewTests {
    /// A race of two tables both at `picture`, already playing.
    static func race(_ picture: String, seats: Int = 2, draw: Int = 1) throws -> Race {
        let table = try klondike(picture, draw: draw)
        return Race(testTables: Array(repeating: table, count: seats))
    }

    @Test func aSeatSeesRivalTablesMaskedButAtTheirTrueLengths() throws {
        var race = try Self.race("""
            stock: 4C 9D
            waste: 7H 8S
            f0: AS 2S
            t0: KD
            t3: ?? (5H) 9C 8H
            """)
        race.expectAccepted(.table(.tap(.stock)), by: "p2")
        let rival = try #require(race.publicState(for: .seat("p1"))["tables"]?["p2"])
        #expect(rival.encoded
            == #"{"draw":1,"stock":["??"],"waste":["??","??","??"],"foundations":[["AS","2S"],[],[],[]],"tableau":[["??"],[],[],["??","??","??","??"],[],[],[]],"moves":1,"score":0,"status":"playing"}"#)
        #expect(race.publicState(for: .seat("p1"))["tables"]?["p1"] == race.table(of: "p1")?.publicState)
        #expect(race.publicState(for: .spectator) == race.publicState)
        // Whoever is no seat of the race sees least: every table masked.
        #expect(race.publicState(for: .seat("p7"))["tables"]?["p1"]?["tableau"]?.arrayValue?.first == ["??"])
    }

    @Test func aCardFromAFoundationToATableauPileShowsAsHiddenToRivals() throws {
        var race = try Self.race("""
            f0: AS 2S 3S
            t0: 4H
            """)
        let outcome = race.expectAccepted(.table(try drag("/foundations/0", "/tableau/0")), by: "p1")
        #expect(outcome?.fullDiff.encodedOps
            == #"[{"op":"remove","path":"/tables/p1/foundations/0/2"},{"op":"add","path":"/tables/p1/tableau/0/1","value":"3S"},{"op":"replace","path":"/tables/p1/moves","value":1}]"#)
        #expect(outcome?.diff(for: .seat("p2"))?.encodedOps
            == #"[{"op":"remove","path":"/tables/p1/foundations/0/2"},{"op":"add","path":"/tables/p1/tableau/0/1","value":"??"},{"op":"replace","path":"/tables/p1/moves","value":1}]"#)
        // And back home: the foundation shows it again to everyone, so all views share one diff.
        let back = race.expectAccepted(.table(try doubleTap("/tableau/0")), by: "p1")
        #expect(back?.views.count == 1 && back?.views.first?.viewers == race.viewers)
    }

    @Test func aNewlyUncoveredCardStaysHiddenToRivals() throws {
        var race = try Self.race("""
            t0: TH
            t1: (5H) 9C
            """)
        let outcome = race.expectAccepted(.table(try drag("/tableau/1/1", "/tableau/0")), by: "p1")
        #expect(outcome?.fullDiff.ops.contains(.replace(path: "/tables/p1/tableau/1/0", value: "5H")) == true)
        // A card turned up in a masked pile changes nothing a rival sees: the op is left out.
        #expect(outcome?.diff(for: .seat("p2"))?.encodedOps
            == #"[{"op":"remove","path":"/tables/p1/tableau/1/1"},{"op":"add","path":"/tables/p1/tableau/0/1","value":"??"},{"op":"replace","path":"/tables/p1/moves","value":1},{"op":"replace","path":"/tables/p1/score","value":5}]"#)
        #expect(race.publicState(for: .seat("p2"))["tables"]?["p1"]?["tableau"]?.arrayValue?[1] == ["??"])
        #expect(race.publicState(for: .seat("p1"))["tables"]?["p1"]?["tableau"]?.arrayValue?[1] == ["5H"])
    }

    @Test func theWasteTurnedOverIsOneWholePileReplaceInEveryView() throws {
        var race = try Self.race("waste: 7H 8S 9D 2C", seats: 3)
        let turned = race.expectAccepted(.table(.tap(.stock)), by: "p3")
        // The stock is face down for everyone and the waste empty: no view differs.
        #expect(turned?.views.count == 1)
        #expect(turned?.fullDiff.encodedOps.hasPrefix(
            #"[{"op":"replace","path":"/tables/p3/stock","value":["??","??","??","??"]},{"op":"replace","path":"/tables/p3/waste","value":[]}"#) == true)
        // Undone, the whole waste comes back: by name to p3 and spectators, masked to rivals.
        let undone = race.expectAccepted(.table(.undo), by: "p3")
        #expect(undone?.views.map(\.viewers) == [[.spectator, .seat("p3")], [.seat("p1"), .seat("p2")]])
        #expect(undone?.diff(for: .seat("p1"))?.ops.contains(
            .replace(path: "/tables/p3/waste", value: ["??", "??", "??", "??"])) == true)
        #expect(undone?.diff(for: .seat("p3"))?.ops.contains(
            .replace(path: "/tables/p3/waste", value: ["7H", "8S", "9D", "2C"])) == true)
    }

    @Test func aRivalsWinShowsTheSameDiffToEveryone() throws {
        var race = try Self.race(KlondikeWinTests.oneCardLeft)
        let outcome = race.expectAccepted(.table(try doubleTap("/tableau/4")), by: "p2", time: 30)
        #expect(outcome?.views.count == 1)
        #expect(outcome?.fullDiff.encodedOps
            == #"[{"op":"remove","path":"/tables/p2/tableau/4/0"},{"op":"add","path":"/tables/p2/foundations/0/12","value":"KS"},{"op":"replace","path":"/tables/p2/moves","value":1},{"op":"replace","path":"/tables/p2/score","value":10},{"op":"replace","path":"/tables/p2/status","value":"won"},{"op":"add","path":"/finished/0","value":"p2"}]"#)
        #expect(outcome?.events == [GameEvent(name: "won", fields: [
            (key: "by", value: "p2"), (key: "place", value: 1), (key: "moves", value: 1), (key: "score", value: 10),
            (key: "seconds", value: 30),
        ])])
        #expect(race.publicState(for: .seat("p1"))["tables"]?["p2"] == race.table(of: "p2")?.publicState)
    }

    @Test func aResetReplacesWholeTablesMaskedForRivals() throws {
        let done = try klondike("f0: AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS\nf1: AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH\nf2: AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD\nf3: AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")
        var race = Race(testTables: [done, done], phase: .finished, finished: ["p2", "p1"])
        let outcome = race.expectAccepted(.reset(KlondikeResetOptions(deal: .seed(11))), by: "p1", time: 5)
        let dealt = try Klondike(options: KlondikeOptions(deal: .seed(11), entropy: 0), time: 0)
        let p2sView = try #require(outcome?.diff(for: .seat("p2")))
        #expect(p2sView.ops.contains(.replace(path: "/tables/p2", value: dealt.publicState)))
        let masked = try #require(p2sView.ops.first { $0.path == "/tables/p1" }?.json["value"])
        #expect(masked["tableau"]?.arrayValue?.map { $0.arrayValue?.count } == [1, 2, 3, 4, 5, 6, 7])
        #expect(DiffInvariantTests.strings(in: masked["tableau"]!).allSatisfy { $0 == "??" })
        #expect(masked["foundations"] == [[], [], [], []] && masked["status"] == "playing" && masked["moves"] == 0)
        #expect(outcome?.diff(for: .spectator)?.ops.contains(.replace(path: "/tables/p1", value: dealt.publicState)) == true)
    }

    /// A server may store only the full diffs and derive a view from them later, e.g. to
    /// answer a seated player's `since`: the derived diffs patch the derived states.
    @Test func viewsDerivedFromStoredFullDiffsReplayTheViewsStates() throws {
        var race = try Race.started(seats: 3, deal: .deck(KlondikeHintTests.homeDeck))
        let start = race.publicState
        var stored: [Diff] = []
        for seat in ["p1", "p3", "p1", "p2", "p3"] {
            let hint = try #require(race.table(of: seat)?.hint())
            let gesture: KlondikeCommand = hint.from == "/stock"
                ? .tap(.stock) : .drag(from: try Target.parse(hint.from), to: try Target.parse(hint.to))
            stored += [race.expectAccepted(.table(gesture), by: seat)?.fullDiff].compactMap { $0 }
            stored += [race.expectAccepted(.table(.tap(.stock)), by: seat)?.fullDiff].compactMap { $0 }
        }
        for viewer in race.viewers {
            var text = RaceView.state(start, for: viewer).encoded
            for diff in stored {
                let patched = try applyJSONPatch(RaceView.diff(diff, for: viewer).encodedOps, to: text)
                text = String(decoding: try JSONSerialization.data(withJSONObject: patched), as: UTF8.self)
            }
            #expect(jsonValuesEqual(try parseJSONText(text), try parseJSONText(race.publicState(for: viewer).encoded)), "\(viewer)")
        }
    }
}
