import Core
import Foundation
import Testing
@testable import Realtime

/// PROTOCOL section 19 through the hub: signed-in players, their names and seats, and who may watch.
@Suite struct SignInTests {
    static func config(requireAuth: Bool = false) -> Hub.Config {
        var config = Hub.Config(games: .standard)
        config.auth = TokenVerifier(keys: [TokenMinter().hmacKey])
        config.requireAuth = requireAuth
        return config
    }

    static func token(_ sub: String, _ name: String, exp: Double = TokenMinter.now + 600) -> String {
        TokenMinter.hs256(TokenMinter.claims(sub: sub, name: name, exp: exp))
    }

    private func signIn(_ h: HubHarness, _ id: ConnectionID, _ sub: String, _ name: String,
                        exp: Double = TokenMinter.now + 600) {
        h.send(id, #"{"type":"auth","jwt":"\#(Self.token(sub, name, exp: exp))","id":"a"}"#)
        let reply = h.take(id)
        #expect(reply.first?["type"] == "authed" && reply.first?["user"] == .string(sub) && reply.last?["type"] == "ack",
                "\(reply)")
    }

    /// Ada (1) creates a four-in-a-row game and Grace (2) joins it with the token; returns (game, token).
    private func adaAndGrace(_ h: HubHarness, options: String = "{}") -> (String, String) {
        h.open(1)
        signIn(h, 1, "u-ada", "Ada")
        h.send(1, #"{"type":"create","kind":"four","options":\#(options)}"#)
        let created = h.take(1).first { $0["type"] == "created" }!
        let game = created["game"]!.stringValue!, token = created["token"]!.stringValue!
        h.open(2)
        signIn(h, 2, "u-grace", "Grace")
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        return (game, token)
    }

    @Test func authAnswersAuthedAndABadTokenChangesNothing() {
        let h = HubHarness(config: Self.config())
        h.open(1)
        signIn(h, 1, "u-ada", "Ada")
        h.send(1, #"{"type":"auth","jwt":"\#(Self.token("u-ada", "Ada"))x","id":2}"#)
        let refused = h.take(1)
        #expect(refused.first?["code"] == "forbidden" && refused.first?["message"] == "bad token: bad signature")
        h.send(1, #"{"type":"create","kind":"four"}"#)
        #expect(h.take(1).first { $0["type"] == "joined" }?["names"] == .object([("p1", "Ada")]),
                "still signed in as before the bad token")
    }

    @Test func namesShowInJoinedPresenceTheLobbyAndChat() {
        let h = HubHarness(config: Self.config())
        let (game, _) = adaAndGrace(h)
        let names = JSON.object([("p1", "Ada"), ("p2", "Grace")])
        #expect(h.take(2).first { $0["type"] == "joined" }?["names"] == names)
        h.tick()
        #expect(h.take(1).last { $0["type"] == "presence" }?["names"] == names)
        #expect(h.hub.lobby.entries().first { $0.game == game }?.json["names"] == names)
        h.send(2, #"{"type":"say","text":"good luck"}"#)
        #expect(h.take(1).first { $0["type"] == "chat" }?["name"] == "Grace")
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        let joined = h.take(3).first { $0["type"] == "joined" }
        #expect(joined?["names"] == names && joined?["key"] == nil)
    }

    @Test func aSignedInPlayerTakesTheirSeatBackWithoutTheTokenFromAnotherConnection() {
        let h = HubHarness(config: Self.config())
        let (game, _) = adaAndGrace(h)
        _ = h.take(1); _ = h.take(2)
        h.open(3)
        signIn(h, 3, "u-grace", "Grace")
        h.send(3, #"{"type":"join","game":"\#(game)","id":"j"}"#)
        #expect(h.take(3).first { $0["type"] == "joined" }?["you"] == "p2")
        #expect(h.take(2).contains { $0["type"] == "left" }, "the connection that held the seat is told it left")
        h.send(1, #"{"type":"tap","target":"/columns/3"}"#)
        h.send(3, #"{"type":"tap","target":"/columns/3","id":"m"}"#)
        #expect(h.take(3).last?["type"] == "ack", "Grace plays on from the new connection")
    }

    @Test func nobodyElseJoinsWithoutTheTokenNorTakesAUsersSeat() {
        let h = HubHarness(config: Self.config())
        let (game, token) = adaAndGrace(h)
        h.close(1)
        h.open(4)
        signIn(h, 4, "u-eve", "Eve")
        h.send(4, #"{"type":"join","game":"\#(game)"}"#)
        #expect(h.take(4).first?["code"] == "forbidden")
        h.send(4, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p1"}"#)
        #expect(h.take(4).first?["message"] == "seat p1 is Ada's", "even with the token")
        h.send(4, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(h.take(4).first?["message"] == "every seat of this game is held", "Ada's free seat is not offered")
        h.open(5)
        h.send(5, #"{"type":"join","game":"\#(game)"}"#)
        #expect(h.take(5).first?["code"] == "forbidden", "not signed in, no token")
    }

    @Test func inAGameWithoutSeatsAUserGetsTheirOwnPlayerIDBack() {
        let h = HubHarness(config: Self.config())
        h.open(1)
        signIn(h, 1, "u-ada", "Ada")
        let (game, token) = h.createKlondike(1)
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(h.take(2).first { $0["type"] == "joined" }?["you"] == "p2")
        h.close(1)
        h.open(3)
        signIn(h, 3, "u-ada", "Ada")
        h.send(3, #"{"type":"join","game":"\#(game)"}"#)
        let joined = h.take(3).first { $0["type"] == "joined" }
        #expect(joined?["you"] == "p1" && joined?["names"] == .object([("p1", "Ada")]))
    }

    @Test func aUsersSeatIsStoredWithTheGameAndOutlivesTheProcess() throws {
        let first = HubHarness(config: Self.config())
        let (game, _) = adaAndGrace(first)
        let stored = try #require(try first.store.game(id: game))
        #expect(stored.options["users"] == .object([("p1", .object([("user", "u-ada"), ("name", "Ada")])),
                                                    ("p2", .object([("user", "u-grace"), ("name", "Grace")]))]))
        #expect(!stored.options.encoded.contains(Self.token("u-ada", "Ada")), "ids and names only, never a token")
        let again = HubHarness(config: Self.config(), store: first.store)
        again.open(7)
        signIn(again, 7, "u-ada", "Ada")
        again.send(7, #"{"type":"join","game":"\#(game)"}"#)
        let joined = again.take(7).first { $0["type"] == "joined" }
        #expect(joined?["you"] == "p1" && joined?["names"] == .object([("p1", "Ada"), ("p2", "Grace")]))
    }

    @Test func afterExpTheConnectionIsSignedOutButKeepsItsSeat() {
        let h = HubHarness(config: Self.config())
        h.open(1)
        signIn(h, 1, "u-ada", "Ada", exp: TokenMinter.now + 10)
        h.send(1, #"{"type":"create","kind":"four"}"#)
        let game = h.take(1).first { $0["type"] == "created" }!["game"]!.stringValue!
        h.advance(41)
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"x"}"#)
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        _ = h.take(1)
        h.send(1, #"{"type":"join","game":"\#(game)","id":"j"}"#)
        #expect(h.take(1).first?["code"] == "forbidden", "signed out: no join without the token")
        h.send(1, #"{"type":"say","text":"still here","id":"s"}"#)
        #expect(h.take(1).last?["type"] == "ack", "its seat and its place in the game stay")
    }

    @Test func requireAuthGuardsCreateJoinAndSayButNotWatch() {
        let h = HubHarness(config: Self.config(requireAuth: true))
        h.open(1)
        h.send(1, #"{"type":"create","kind":"four"}"#)
        #expect(h.take(1).first?["code"] == "forbidden")
        signIn(h, 1, "u-ada", "Ada")
        h.send(1, #"{"type":"create","kind":"four"}"#)
        let created = h.take(1).first { $0["type"] == "created" }!
        let game = created["game"]!.stringValue!, token = created["token"]!.stringValue!
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(h.take(2).first?["code"] == "forbidden")
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        #expect(h.take(2).contains { $0["type"] == "joined" })
        h.send(2, #"{"type":"say","text":"hello"}"#)
        #expect(h.take(2).first?["code"] == "forbidden")
    }

    @Test func aGameWatchedByLinkNeedsItsKeyAndIsInNoList() throws {
        let h = HubHarness(config: Self.config())
        let (game, _) = adaAndGrace(h, options: #"{"watch":"link"}"#)
        let key = try #require(h.take(2).first { $0["type"] == "joined" }?["key"]?.stringValue)
        h.open(3)
        h.send(3, #"{"type":"watch","game":"\#(game)"}"#)
        #expect(h.take(3).first?["code"] == "forbidden")
        h.send(3, #"{"type":"watch","game":"\#(game)","key":"\#(key)x"}"#)
        #expect(h.take(3).first?["code"] == "forbidden")
        h.send(3, #"{"type":"watch","game":"\#(game)","since":0,"key":"nope"}"#)
        #expect(h.take(3).first?["code"] == "forbidden", "a replay checks the key too")
        h.send(3, #"{"type":"watch","game":"\#(game)","key":"\#(key)"}"#)
        let joined = h.take(3).first { $0["type"] == "joined" }
        #expect(joined?["watch"] == "link" && joined?["key"] == nil, "spectators never see the key")
        #expect(!h.hub.lobby.entries().contains { $0.game == game })
        #expect(h.http("/api/games").map { String(decoding: $0.body, as: UTF8.self).contains(game) } == false)
        #expect(h.http("/api/games/" + game)?.status == 404)
        #expect(h.http("/api/games/" + game, query: "key=wrong")?.status == 404)
        #expect(h.http("/api/games/" + game, query: "key=" + key)?.status == 200)
    }

    @Test func aGameForItsPlayersOnlyHasNoSpectators() {
        let h = HubHarness(config: Self.config())
        h.open(1)
        h.send(1, #"{"type":"create","kind":"four","options":{"watch":"players"}}"#)
        let created = h.take(1).first { $0["type"] == "created" }!
        #expect(created["key"] != nil)
        h.open(2)
        h.send(2, #"{"type":"watch","game":"\#(created["game"]!.stringValue!)","key":"\#(created["key"]!.stringValue!)"}"#)
        #expect(h.take(2).first?["message"] == "this game has no spectators: only its players may see it")
        h.send(2, #"{"type":"create","kind":"four","options":{"watch":"friends"}}"#)
        #expect(h.take(2).first?["code"] == "bad-request")
    }

    @Test func withoutAKeyNobodySignsInAndJoinNeedsItsToken() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"auth","jwt":"\#(Self.token("u-ada", "Ada"))"}"#)
        #expect(h.take(1).first?["code"] == "forbidden")
        let (game, _) = h.createKlondike(1)
        h.open(2)
        h.send(2, #"{"type":"join","game":"\#(game)"}"#)
        let refused = h.take(2).first
        #expect(refused?["code"] == "bad-request" && refused?["message"] == "join needs a token")
        h.send(2, #"{"type":"watch","game":"\#(game)"}"#)
        #expect(h.take(2).first { $0["type"] == "joined" }?["names"] == nil, "no names without keys")
    }

    @Test func aBearerTokenAtTheUpgradeSignsTheConnectionIn() {
        let h = HubHarness(config: Self.config())
        h.run(.opened(1, ClientAddress("127.0.0.1")!, query: [:], user: SignedUser(id: "u-ada", name: "Ada",
                                                                                 expires: TokenMinter.now + 60)))
        h.send(1, #"{"type":"create","kind":"four"}"#)
        #expect(h.take(1).first { $0["type"] == "joined" }?["names"] == .object([("p1", "Ada")]))
        var gate = UpgradeGate(limits: ClientLimits(), auth: Self.config().auth)
        let local = ClientAddress("127.0.0.1")!
        #expect(gate.decide(UpgradeRequest(path: "/ws", peer: local,
                            authorization: "Bearer " + Self.token("u1", "Ada")), now: TokenMinter.now, stopping: false)
                == .admit(local, user: SignedUser(id: "u1", name: "Ada", expires: TokenMinter.now + 600)))
        guard case .refuse(let response, _) = gate.decide(UpgradeRequest(path: "/ws", peer: local,
                                                          authorization: "Bearer x.y.z"), now: TokenMinter.now, stopping: false)
        else { Issue.record("a bad Bearer token is refused"); return }
        #expect(response.status == 401 && response.body == Array("bad token: malformed\n".utf8))
        gate.opened(local)
    }
}
