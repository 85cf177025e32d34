import Core
import Foundation
import Testing
@testable import Realtime

/// PROTOCOL section 15: a spectator delay and chat, driven through the hub.
@Suite struct SpectatorDelayTests {
    /// A delayed Klondike game on connection 1 (its player) and a spectator on 2; returns the game.
    private func delayedGame(_ h: HubHarness, delay: Int = 10) -> String {
        h.open(1)
        let (game, _) = h.createKlondike(1, options: #"{"seed":42,"delay":\#(delay)}"#)
        h.open(2)
        h.send(2, #"{"type":"watch","game":"\#(game)","id":"w"}"#)
        return game
    }

    @Test func spectatorsGetEveryDiffTheDelayLaterAndPlayersAtOnce() throws {
        let h = HubHarness()
        let game = delayedGame(h)
        #expect(h.types(2) == ["joined", "snapshot", "ack"])
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.advance(1)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        #expect(h.types(1).filter { $0 == "diff" }.count == 2, "the player sees its moves at once")
        h.tick()
        #expect(h.take(2).filter { $0["type"] == "diff" }.isEmpty, "nothing before the delay")
        h.advance(9.05)
        h.tick()
        #expect(h.take(2).filter { $0["type"] == "diff" }.map { $0["seq"] } == [1], "the first move, 10 s after it")
        #expect(h.hub.lobby.entries().first { $0.game == game }?.seq == 1, "the lobby shows the spectators' seq")
        h.advance(1)
        h.tick()
        #expect(h.take(2).filter { $0["type"] == "diff" }.map { $0["seq"] } == [2])
    }

    /// A delayed diff goes out when it comes due, not at the next tick: the hub asks the shell
    /// to wake it then, once for each new earliest deadline.
    @Test func theHubAsksToBeWokenWhenTheNextDelayedDiffComesDue() throws {
        let h = HubHarness()
        _ = delayedGame(h)
        _ = h.take(2)
        let first = h.now
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        #expect(h.wakes == [first + 10])
        h.advance(0.3)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        #expect(h.wakes == [first + 10], "the wake asked for comes first: no new one")
        h.advance(9.7)
        h.due()
        #expect(h.take(2).filter { $0["type"] == "diff" }.map { $0["seq"] } == [1], "at the instant, with no tick")
        #expect(h.wakes == [first + 10, first + 10.3], "then the next deadline")
        h.advance(0.3)
        h.due()
        #expect(h.take(2).filter { $0["type"] == "diff" }.map { $0["seq"] } == [2])
        #expect(h.wakes.count == 2, "nothing left to wake for")
    }

    /// The shell keeps one timer, set to the last `wake` asked for, and no tick ever comes: every
    /// delayed diff of many games, moving at uneven times, still reaches its spectator at exactly
    /// its move's instant plus the delay.
    @Test func withNoTickEveryDelayedDiffOfManyGamesGoesOutAtItsInstant() throws {
        let h = HubHarness()
        let games = 12
        for g in 0..<games {
            h.open(ConnectionID(100 + g))
            let (game, _) = h.createKlondike(ConnectionID(100 + g), options: #"{"seed":\#(g),"delay":10}"#)
            h.open(ConnectionID(200 + g))
            h.send(ConnectionID(200 + g), #"{"type":"watch","game":"\#(game)"}"#)
            _ = h.take(ConnectionID(200 + g))
        }
        var timer: Instant?
        var wakesSeen = h.wakes.count
        var expected: [Int: [Instant]] = [:]
        var arrived: [Int: [Instant]] = [:]
        func afterEvent() {
            if h.wakes.count > wakesSeen { timer = h.wakes.last; wakesSeen = h.wakes.count }
            for g in 0..<games {
                for message in h.take(ConnectionID(200 + g)) where message["type"] == "diff" {
                    arrived[g, default: []].append(h.now)
                }
            }
        }
        /// Fires the timer for every wake due by `instant`, then moves the clock there.
        func runTimers(until instant: Instant) {
            while let due = timer, due <= instant {
                timer = nil
                h.now = due
                h.due()
                afterEvent()
            }
            h.now = instant
        }
        var random = SplitMix64(seed: 7)
        var clock = h.now
        for step in 0..<(games * 10) {
            clock = clock + Double(random.next() % 400) / 1000  // 0 to 0.4 s apart, often the same instant
            runTimers(until: clock)
            let g = (step * 5) % games
            h.send(ConnectionID(100 + g), #"{"type":"tap","target":"/stock"}"#)
            expected[g, default: []].append(clock + 10)
            afterEvent()
        }
        runTimers(until: clock + 11)
        #expect(timer == nil, "nothing left to wake for")
        for g in 0..<games {
            let late = zip(arrived[g] ?? [], expected[g] ?? []).map { $0.since($1) }
            #expect(arrived[g]?.count == expected[g]?.count, "game \(g): every diff")
            #expect(late.allSatisfy { abs($0) < 1e-9 }, "game \(g): at its instant, not later: \(late)")
        }
    }

    @Test func aWatchShowsTheGameAsItWasAndSinceNeverReachesPastIt() throws {
        let h = HubHarness()
        let game = delayedGame(h)
        _ = h.take(2)
        for _ in 0..<3 {
            h.send(1, #"{"type":"tap","target":"/stock"}"#)
            h.advance(1)
        }
        h.advance(8)
        h.tick()  // the first two moves are 10 s old; the third is 9 s old
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        let watch = h.take(3)
        #expect(watch[0]["type"] == "joined" && watch[0]["seq"] == 2)
        #expect(watch[1]["type"] == "snapshot" && watch[1]["seq"] == 2)
        let live = try #require(h.take(1).last { $0["type"] == "diff" })
        #expect(watch[1]["state"]?["stock"]?.arrayValue?.count == 22, "two draws, not three")
        _ = live
        h.open(4)
        h.send(4, #"{"type":"watch","game":"\#(game)","since":0}"#)
        #expect(h.take(4).map { $0["seq"] } == [2, 1, 2], "joined at 2, then diffs 1 and 2: never 3")
        h.open(5)
        h.send(5, #"{"type":"watch","game":"\#(game)","since":3}"#)
        let ahead = h.take(5)
        #expect(ahead.map { $0["type"]?.stringValue ?? "" } == ["joined", "snapshot"] && ahead[1]["seq"] == 2,
                "a since past the spectators' seq gets their snapshot")
        h.send(5, "show")
        #expect(h.take(5).first?.stringValue?.contains("seq 2") == true, "show draws what spectators see")
    }

    @Test func aPlayersSecondConnectionWatchingLearnsNothingEarly() throws {
        let h = HubHarness()
        let game = delayedGame(h, delay: 30)
        _ = h.take(2)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.send(1, #"{"type":"hint","id":"h"}"#)
        _ = h.take(1)
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        let watch = h.take(3)
        #expect(watch[1]["seq"] == 0 && watch[1]["state"]?["waste"]?.arrayValue?.isEmpty == true)
        h.send(3, #"{"type":"hint","id":1}"#)
        let hint = h.take(3).first { $0["type"] == "hint" }
        // The same deal, fresh, with no delay: its hint is the one for what spectators see.
        h.open(6)
        _ = h.createKlondike(6, options: #"{"seed":42}"#)
        h.send(6, #"{"type":"hint"}"#)
        let fresh = h.take(6).first { $0["type"] == "hint" }
        #expect(hint != nil && hint == fresh, "the hint is for the deal spectators see, not the player's table")
        h.send(3, "show")
        #expect(h.take(3).first?.stringValue?.contains("seq 0") == true)
    }

    @Test func aDelayedGameComesBackFromStorageWithItsSpectatorsBehind() throws {
        var config = Hub.Config(games: .standard)
        config.idleSeconds = 5
        let h = HubHarness(config: config)
        let game = delayedGame(h, delay: 20)
        h.close(2)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.advance(10)
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.close(1)
        h.advance(6)
        h.tick()
        #expect(h.hub.liveGameCount == 0, "it rests")
        h.advance(5)  // the first move is 21 s old, the second 11 s
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        let watch = h.take(3)
        #expect(watch[0]["seq"] == 1, "spectators see the first move only")
        h.advance(9.1)
        h.tick()
        #expect(h.take(3).filter { $0["type"] == "diff" }.map { $0["seq"] } == [2], "the second comes due as it would have")
    }

    @Test func delayIsValidated() {
        let h = HubHarness()
        h.open(1)
        for bad in ["-1", "901", "\"ten\""] {
            h.send(1, #"{"type":"create","kind":"plane","options":{"delay":\#(bad)},"id":1}"#)
            #expect(h.take(1).first?["code"] == "bad-request", "\(bad)")
        }
        h.send(1, #"{"type":"create","kind":"race","options":{"delay":900}}"#)
        #expect(h.take(1).first?["type"] == "created")
    }
}

@Suite struct ChatTests {
    private func game(_ h: HubHarness, options: String = #"{"seed":2}"#) -> (String, String) {
        h.open(1)
        let created = h.createKlondike(1, options: options)
        h.open(2)
        h.send(2, #"{"type":"watch","game":"\#(created.0)"}"#)
        _ = h.take(2)
        return created
    }

    private func chats(_ messages: [JSON]) -> [String] {
        messages.filter { $0["type"] == "chat" }.map { "\($0["room"]!.stringValue!):\($0["by"]!.stringValue!):\($0["text"]!.stringValue!)" }
    }

    @Test func playersAndSpectatorsTalkInTheirRoomsAndPlayersNeverReadTheSpectators() throws {
        let h = HubHarness()
        _ = game(h)
        h.send(1, #"{"type":"say","text":"  good luck  ","id":"a"}"#)
        let mine = h.take(1)
        #expect(chats(mine) == ["players:p1:good luck"], "trimmed")
        #expect(mine.last == .object(["type": "ack", "id": "a", "seq": 0]))
        #expect(chats(h.take(2)) == ["players:p1:good luck"], "spectators read the players' room")
        h.send(2, "say the 7 goes on the 8!")
        #expect(chats(h.take(2)) == ["spectators:s1:the 7 goes on the 8!"])
        #expect(chats(h.take(1)).isEmpty, "a player never sees the spectators' room while the game is played")
        h.send(2, #"{"type":"say","text":"hi","to":"players","id":3}"#)
        #expect(h.take(2).first?["code"] == "forbidden")
        h.send(1, #"{"type":"say","text":"hi","to":"spectators","id":4}"#)
        #expect(h.take(1).first?["code"] == "forbidden")
        let chat = try #require(h.batches.last?.chat.first)
        #expect(chat.room == "spectators" && chat.by == "s1", "kept with the game")
    }

    @Test func textIsOneTo280CharactersAfterTrimmingAndHTMLIsJustText() {
        let h = HubHarness()
        _ = game(h)
        for bad in [#""   ""#, #""\#(String(repeating: "x", count: 281))""#, "5"] {
            h.send(1, #"{"type":"say","text":\#(bad),"id":1}"#)
            #expect(h.take(1).first?["code"] == "bad-request", "\(bad.prefix(10))")
        }
        h.send(1, #"{"type":"say","text":"\#(String(repeating: "é", count: 280))"}"#)
        #expect(chats(h.take(1)).count == 1)
        h.send(1, #"{"type":"say","text":"<img src=x onerror=alert(1)>"}"#)
        #expect(h.take(1).first?["text"] == "<img src=x onerror=alert(1)>", "sent as the text it is")
    }

    @Test func fiveLinesInTenSecondsThenLimited() {
        let h = HubHarness()
        _ = game(h)
        for i in 0..<5 { h.send(2, #"{"type":"say","text":"line \#(i)"}"#) }
        h.send(2, #"{"type":"say","text":"one more","id":"x"}"#)
        let reply = h.take(2)
        #expect(chats(reply).count == 5)
        let error = reply.last
        #expect(error?["code"] == "limited" && error?["id"] == "x")
        #expect(error?["message"]?.stringValue?.contains("try again in 10 s") == true)
        h.advance(10)
        h.send(2, #"{"type":"say","text":"later"}"#)
        #expect(chats(h.take(2)) == ["spectators:s1:later"])
    }

    @Test func aPlayerMutesASpectatorUntilTheGameEnds() throws {
        let h = HubHarness()
        _ = game(h)
        h.send(2, "say spoiler")
        _ = h.take(2)
        h.send(2, #"{"type":"mute","who":"s1","id":1}"#)
        #expect(h.take(2).first?["code"] == "forbidden", "spectators do not mute")
        h.send(1, #"{"type":"mute","who":"s9","id":2}"#)
        #expect(h.take(1).first?["code"] == "bad-request", "no such spectator")
        h.send(1, #"{"type":"mute","who":"s1","id":3}"#)
        #expect(h.take(1) == [.object(["type": "ack", "id": 3, "seq": 0])])
        h.send(2, #"{"type":"say","text":"again","id":4}"#)
        #expect(h.take(2).first?["code"] == "forbidden")
        // Another spectator from the same address is not muted with it (they may share a proxy).
        h.open(5)
        let game = h.hub.rooms.all.first!.id
        h.send(5, #"{"type":"watch","game":"\#(game)"}"#)
        _ = h.take(5)
        h.send(5, #"{"type":"say","text":"not me","id":5}"#)
        #expect(h.take(5).contains { $0["type"] == "chat" && $0["by"] == "s2" })
    }

    @Test func theLast50LinesFollowTheStateAndTheSpectatorsRoomOpensToPlayersOnceTheGameIsWon() throws {
        let h = HubHarness()
        let (game, token) = self.game(h)
        for i in 0..<60 {
            h.advance(2.1)
            h.send(i % 2 == 0 ? 1 : 2, #"{"type":"say","text":"line \#(i)"}"#)
        }
        _ = h.take(1)
        _ = h.take(2)
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        let watch = h.take(3)
        #expect(Array(watch.prefix(2)).map { $0["type"]?.stringValue ?? "" } == ["joined", "snapshot"])
        #expect(chats(watch).count == 50 && chats(watch).last == "spectators:s1:line 59", "the last 50 of both rooms")
        h.open(4)
        h.send(4, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        let joined = chats(h.take(4))
        #expect(joined.count == 30 && joined.allSatisfy { $0.hasPrefix("players:") }, "a player reads its room only")
        // Win the deal by following hints: the spectators' room opens to players.
        var moves = 0
        while moves < 400 {
            h.advance(0.05)
            h.send(1, #"{"type":"hint"}"#)
            guard let hint = h.take(1).first(where: { $0["type"] == "hint" }), let from = hint["from"]?.stringValue,
                  let to = hint["to"]?.stringValue else { break }
            h.send(1, from == "/stock" ? #"{"type":"tap","target":"/stock"}"# : #"{"type":"drag","from":"\#(from)","to":"\#(to)"}"#)
            moves += 1
        }
        #expect(h.take(2).contains { $0["event"] == "won" })
        h.send(2, "say well played")
        #expect(chats(h.take(1)) == ["spectators:s1:well played"], "players read the spectators once it is won")
    }

    @Test func aReplayShowsTheChatWithTheDiffs() throws {
        let h = HubHarness()
        let (game, _) = self.game(h)
        h.send(1, "say before")
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.send(2, "say after one")
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)","replay":true}"#)
        let replay = h.take(3).map { $0["type"] == "chat" ? "chat:\($0["text"]!.stringValue!)" : $0["type"]!.stringValue! }
        #expect(replay == ["joined", "snapshot", "chat:before", "diff", "chat:after one", "diff"])
    }
}

/// What the page's engineer found, pinned.
@Suite struct ChatEdgeTests {
    @Test func aReplayOfADelayedGameShowsThePlayersLinesOnlyAsLateAsTheGame() throws {
        let h = HubHarness()
        h.open(1)
        let (game, _) = h.createKlondike(1, options: #"{"seed":2,"delay":5}"#)
        h.send(1, "say said at zero")
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.send(1, "say secret at one")
        h.open(2)
        h.send(2, #"{"type":"watch","game":"\#(game)","replay":true,"id":"r"}"#)
        let replay = h.take(2)
        #expect(replay.filter { $0["type"] == "chat" }.isEmpty, "nothing of the players' room before its delay")
        h.advance(5.1)
        h.tick()
        let late = h.take(2).compactMap { $0["type"] == "chat" ? $0["text"]?.stringValue : $0["type"]?.stringValue }
        #expect(late == ["said at zero", "diff", "secret at one"], "each once, in order, as late as the game")
    }

    @Test func withNothingStoredAReplayStillShowsItsChat() throws {
        var config = Hub.Config(games: .standard)
        config.durable = false
        config.windowSize = Int.max
        let h = HubHarness(config: config)
        h.open(1)
        let (game, _) = h.createKlondike(1)
        h.send(1, "say at zero")
        h.send(1, #"{"type":"tap","target":"/stock"}"#)
        h.send(1, "say at one")
        h.open(2)
        h.send(2, #"{"type":"watch","game":"\#(game)","replay":true}"#)
        let replay = h.take(2).map { $0["type"] == "chat" ? "chat:\($0["text"]!.stringValue!)" : $0["type"]!.stringValue! }
        #expect(replay == ["joined", "snapshot", "chat:at zero", "diff", "chat:at one"])
    }

    @Test func aMuteSentAfterTheGameEndedHoldsUntilTheNextOneEnds() throws {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"create","kind":"race","options":{"seats":2,"seed":2}}"#)
        let created = try #require(h.take(1).first { $0["type"] == "created" })
        let game = created["game"]!.stringValue!
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(created["token"]!.stringValue!)"}"#)
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        _ = h.take(1)
        _ = h.take(2)
        _ = h.take(3)
        h.send(3, "say before the end")
        #expect(h.take(1).filter { $0["type"] == "chat" }.isEmpty, "players do not read spectators while it is played")
        // Both racers win by following hints.
        for player in [ConnectionID(1), ConnectionID(2)] {
            for _ in 0..<400 {
                h.advance(0.05)
                h.send(player, #"{"type":"hint"}"#)
                guard let hint = h.take(player).first(where: { $0["type"] == "hint" }), let from = hint["from"]?.stringValue,
                      let to = hint["to"]?.stringValue else { break }
                h.send(player, from == "/stock" ? #"{"type":"tap","target":"/stock"}"#
                    : #"{"type":"drag","from":"\#(from)","to":"\#(to)"}"#)
            }
        }
        #expect(h.hub.room(game)?.isOver == true)
        h.send(1, #"{"type":"mute","who":"s1","id":"m"}"#)
        #expect(h.take(1).last?["type"] == "ack")
        h.advance(11)
        h.send(3, #"{"type":"say","text":"rude","id":1}"#)
        let rude = h.take(3)
        #expect(rude.first { $0["id"] == 1 }?["code"] == "forbidden", "muted at once, though the race is over: \(rude)")
        h.send(1, #"{"type":"reset"}"#)
        h.advance(11)
        h.send(3, #"{"type":"say","text":"still rude","id":2}"#)
        #expect(h.take(3).first { $0["id"] == 2 }?["code"] == "forbidden", "and through the next race")
    }
}
