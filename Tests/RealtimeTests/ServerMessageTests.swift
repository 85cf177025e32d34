import Core
import Testing
@testable import Realtime

/// The exact bytes of every server message: the wire never changes by accident.
@Suite struct ServerMessageTests {
    private func bytes(_ message: ServerMessage) -> String { message.frame.text }

    @Test func created() {
        #expect(bytes(.created(game: "k7f3q9", token: "tok_-9"))
            == #"{"type":"created","game":"k7f3q9","token":"tok_-9"}"#)
    }

    @Test func joinedAsPlayerAndAsSpectator() {
        #expect(bytes(.joined(game: "g1", kind: .klondike, role: .player("p2"), seq: 4))
            == #"{"type":"joined","game":"g1","kind":"klondike","role":"player","seq":4,"you":"p2"}"#)
        #expect(bytes(.joined(game: "g1", kind: .plane, role: .spectator, seq: 0))
            == #"{"type":"joined","game":"g1","kind":"plane","role":"spectator","seq":0}"#)
    }

    @Test func snapshot() {
        #expect(bytes(.snapshot(game: "g1", kind: .plane, seq: 3, state: .object(["width": 10, "order": []])))
            == #"{"type":"snapshot","game":"g1","kind":"plane","seq":3,"state":{"width":10,"order":[]}}"#)
    }

    @Test func diffKeepsTheEncodedOpsAsTheyAre() {
        let cause: JSON = .object(["type": "tap", "target": "/stock", "by": "p1"])
        #expect(bytes(.diff(game: "g1", seq: 12, encodedOps: #"[{"op":"remove","path":"/stock/23"}]"#, cause: cause))
            == #"{"type":"diff","game":"g1","seq":12,"ops":[{"op":"remove","path":"/stock/23"}],"cause":{"type":"tap","target":"/stock","by":"p1"}}"#)
    }

    @Test func event() {
        let won = GameEvent(name: "won", fields: [("moves", 90), ("score", 650), ("seconds", 301)])
        #expect(bytes(.event(game: "g1", seq: 90, event: won))
            == #"{"type":"event","game":"g1","seq":90,"event":"won","moves":90,"score":650,"seconds":301}"#)
    }

    @Test func ackWithAndWithoutSeq() {
        #expect(bytes(.ack(id: "a-1", seq: 7)) == #"{"type":"ack","id":"a-1","seq":7}"#)
        #expect(bytes(.ack(id: 17, seq: nil)) == #"{"type":"ack","id":17}"#)
    }

    @Test func errorWithAndWithoutId() {
        #expect(bytes(.error(ProtocolError(.illegalMove, "no \"card\" there"), id: "m"))
            == #"{"type":"error","code":"illegal-move","message":"no \"card\" there","id":"m"}"#)
        #expect(bytes(.error(ProtocolError(.rateLimited, "slow down"), id: nil))
            == #"{"type":"error","code":"rate-limited","message":"slow down"}"#)
        #expect(bytes(.error(.unavailable("later"), id: 3))
            == #"{"type":"error","code":"unavailable","message":"later","id":3}"#)
    }

    @Test func left() {
        #expect(bytes(.left(game: "g1")) == #"{"type":"left","game":"g1"}"#)
    }

    /// Section 19: who is who and who may watch.
    @Test func signedInPlayersAndWatchKeys() {
        #expect(bytes(.authed(user: "u1", name: "Ada", expires: 1_800_000_600))
            == #"{"type":"authed","user":"u1","name":"Ada","expires":"2027-01-15T08:10:00Z"}"#)
        #expect(bytes(.created(game: "g1", token: "t", key: "k_-1"))
            == #"{"type":"created","game":"g1","token":"t","key":"k_-1"}"#)
        let access = JoinedAccess(names: .object([("p1", "Ada")]), watch: "link", key: "k_-1")
        #expect(bytes(.joined(game: "g1", kind: GameKind("four"), role: .player("p1"), seq: 0, access: access))
            == #"{"type":"joined","game":"g1","kind":"four","role":"player","seq":0,"you":"p1","names":{"p1":"Ada"},"watch":"link","key":"k_-1"}"#)
        #expect(bytes(.presence(game: "g1", players: 1, spectators: 0, names: .object([("p1", "Ada")])))
            == #"{"type":"presence","game":"g1","players":1,"spectators":0,"names":{"p1":"Ada"}}"#)
        #expect(bytes(.chat(game: "g1", room: .players, by: "p1", text: "hi", at: 1_800_000_000, number: 1, name: "Ada"))
            == #"{"type":"chat","game":"g1","room":"players","by":"p1","name":"Ada","text":"hi","at":"2027-01-15T08:00:00Z","n":1}"#)
    }

    @Test func presence() {
        #expect(bytes(.presence(game: "g1", players: 2, spectators: 10000))
            == #"{"type":"presence","game":"g1","players":2,"spectators":10000}"#)
    }

    @Test func hintWithAMoveNoneAndTheSolversVerdict() {
        #expect(bytes(.hint(Hint(from: "/waste", to: "/tableau/3")))
            == #"{"type":"hint","from":"/waste","to":"/tableau/3"}"#)
        #expect(bytes(.hint(Hint(from: nil, to: nil))) == #"{"type":"hint","from":null,"to":null}"#)
        // A game's own fields follow `from` and `to` (Klondike's solver's verdict).
        #expect(bytes(.hint(Hint(from: "/stock", to: "/waste", fields: [("winnable", true)])))
            == #"{"type":"hint","from":"/stock","to":"/waste","winnable":true}"#)
        #expect(bytes(.hint(Hint(from: nil, to: nil, fields: [("winnable", .null)])))
            == #"{"type":"hint","from":null,"to":null,"winnable":null}"#)
    }

    @Test func lobby() {
        let entry = LobbyEntry(game: "g1", kind: .klondike, status: "won", seq: 99, players: 1, spectators: 3,
                               created: 1_800_000_000, updated: 1_800_000_061.9)
        #expect(bytes(.lobby([entry]))
            == #"{"type":"lobby","games":[{"game":"g1","kind":"klondike","status":"won","seq":99,"players":1,"spectators":3,"created":"2027-01-15T08:00:00Z","updated":"2027-01-15T08:01:01Z"}]}"#)
        #expect(bytes(.lobby([])) == #"{"type":"lobby","games":[]}"#)
    }
}

@Suite struct ChatMessageTests {
    @Test func chatLinesCarryRoomNameTextTimeAndNumber() {
        let line = ServerMessage.chat(game: "g1", room: .spectators, by: "s3", text: "<b>7♥</b> \"go\"", at: 1_800_000_000,
                                      number: 12)
        #expect(line.frame.text
            == #"{"type":"chat","game":"g1","room":"spectators","by":"s3","text":"<b>7♥</b> \"go\"","at":"2027-01-15T08:00:00Z","n":12}"#)
    }

    @Test func joinedCarriesADelayOnlyWhenThereIsOne() {
        #expect(ServerMessage.joined(game: "g1", kind: .race, role: .spectator, seq: 3, delay: 20).frame.text
            == #"{"type":"joined","game":"g1","kind":"race","role":"spectator","seq":3,"delay":20}"#)
        #expect(ServerMessage.joined(game: "g1", kind: .race, role: .spectator, seq: 3, delay: 2.5).frame.text
            == #"{"type":"joined","game":"g1","kind":"race","role":"spectator","seq":3,"delay":2.5}"#)
    }
}
