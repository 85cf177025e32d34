import Testing

@testable import BoardcastClient

/// The state machine fed as a fake server and a fake clock would feed it: PROTOCOL section 21's
/// guarantees, one by one.
struct Driver {
    var follower: GameFollower
    var now: Double = 0
    var log: [GameFollower.Action] = []

    init(_ start: GameFollower.Start, settings: GameFollower.Settings = .init(), since: Int? = nil, state: JSONValue? = nil, seed: UInt64 = 7) {
        follower = GameFollower(start: start, settings: settings, since: since, state: state, seed: seed)
    }

    var connection: Int { follower.connection }

    @discardableResult
    mutating func on(_ event: GameFollower.Event) -> [GameFollower.Action] {
        let actions = follower.handle(event, now: now)
        log += actions
        return actions
    }

    @discardableResult
    mutating func receive(_ text: String) -> [GameFollower.Action] {
        on(.received(connection: connection, try! JSONValue(parsing: text)))
    }

    /// Opens the current connection and answers its join (or watch, or create) with `replies`
    /// then an ack; returns the join message it sent.
    @discardableResult
    mutating func join(replies: [String] = []) -> JSONValue {
        on(.opened(connection: connection))
        let join = Self.sent(log).last!
        for r in replies { receive(r) }
        receive(#"{"type":"ack","id":"\#(join["id"]!.stringValue!)"}"#)
        return join
    }

    /// Drops the connection and fires the reconnection timer; returns the delay it asked for.
    @discardableResult
    mutating func drop() -> Double {
        let actions = on(.closed(connection: connection, reason: "reset"))
        guard let (timer, delay) = Self.schedules(actions).first(where: { if case .reconnect = $0.0 { true } else { false } }) else {
            Issue.record("no reconnection scheduled: \(actions)")
            return -1
        }
        now += delay
        on(.timer(timer))
        return delay
    }

    static func sent(_ actions: [GameFollower.Action]) -> [JSONValue] {
        actions.compactMap { if case .send(_, let m) = $0 { m } else { nil } }
    }

    static func states(_ actions: [GameFollower.Action]) -> [StateChange] {
        actions.compactMap { if case .state(let c) = $0 { c } else { nil } }
    }

    static func completions(_ actions: [GameFollower.Action]) -> [(String, Result<Int?, BoardcastError>)] {
        actions.compactMap { if case .complete(let id, let r) = $0 { (id, r) } else { nil } }
    }

    static func schedules(_ actions: [GameFollower.Action]) -> [(GameFollower.Timer, Double)] {
        actions.compactMap { if case .schedule(let t, let d) = $0 { (t, d) } else { nil } }
    }
}

let fourState = #"{"columns":[[],[],[],[],[],[],[]],"rows":6,"turn":"p1","first":"p1","status":"playing","winner":null,"line":null,"moves":0}"#

func diff(_ seq: Int, column: Int, by: String = "p1", moves: Int? = nil) -> String {
    #"{"type":"diff","game":"g1","seq":\#(seq),"ops":[{"op":"add","path":"/columns/\#(column)/-","value":"\#(by)"},{"op":"replace","path":"/moves","value":\#(moves ?? seq)}],"cause":{"type":"tap","target":"/columns/\#(column)","by":"\#(by)"}}"#
}

@Suite struct GameFollowerTests {
    @Test func appliesSnapshotAndDiffsInSeqOrder() throws {
        var d = Driver(.watch(game: "g1", key: nil, replay: false))
        #expect(d.on(.start).contains(.connect(connection: 1)))
        let watch = d.join(replies: [
            #"{"type":"joined","game":"g1","kind":"four","role":"spectator","seq":4}"#,
            #"{"type":"snapshot","game":"g1","kind":"four","seq":4,"state":\#(fourState)}"#,
        ])
        #expect(watch["type"] == "watch")
        #expect(watch["since"] == nil)
        #expect(d.follower.seq == 4)
        var changes = Driver.states(d.receive(diff(5, column: 3)))
        changes += Driver.states(d.receive(diff(6, column: 3, by: "p2")))
        #expect(changes.map(\.seq) == [5, 6])
        #expect(changes.map(\.via) == [.diff, .diff])
        #expect(d.follower.state?["columns"]?[3] == ["p1", "p2"])
        #expect(changes[1].previous == changes[0].state)
        #expect(changes[1].cause?["by"] == "p2")
        // A diff seen again (a re-join's overlap) changes nothing.
        #expect(Driver.states(d.receive(diff(6, column: 3, by: "p2"))).isEmpty)
        #expect(d.follower.seq == 6)
    }

    @Test func aGapIsAskedAgainWithSince() throws {
        var d = Driver(.join(game: "g1", token: "tok", seat: nil))
        d.on(.start)
        d.join(replies: [
            #"{"type":"joined","game":"g1","kind":"four","role":"player","seq":0,"you":"p1"}"#,
            #"{"type":"snapshot","game":"g1","kind":"four","seq":0,"state":\#(fourState)}"#,
        ])
        d.receive(diff(1, column: 0))
        let actions = d.receive(diff(3, column: 1))
        #expect(Driver.states(actions).isEmpty, "diff 3 is not applied on seq 1")
        let ask = try #require(Driver.sent(actions).first)
        #expect(ask["type"] == "join")
        #expect(ask["since"] == 1)
        #expect(ask["seat"] == "p1")
        #expect(ask["token"] == "tok")
        #expect(d.follower.shownSeq == 3)
        // A second gap while the first is being filled does not ask twice.
        #expect(Driver.sent(d.receive(diff(4, column: 1))).isEmpty)
        // The server answers with the diffs after 1, then the ack.
        let filled = Driver.states(d.receive(diff(2, column: 1, by: "p2"))) + Driver.states(d.receive(diff(3, column: 1)))
            + Driver.states(d.receive(diff(4, column: 1, by: "p2")))
        d.receive(#"{"type":"ack","id":"\#(ask["id"]!.stringValue!)","seq":4}"#)
        #expect(filled.map(\.seq) == [2, 3, 4])
        #expect(d.follower.seq == 4)
        #expect(d.follower.state?["columns"]?[1] == ["p2", "p1", "p2"])
    }

    @Test func aDiffThatDoesNotApplyAsksForASnapshot() throws {
        var d = Driver(.watch(game: "g1", key: nil, replay: false))
        d.on(.start)
        d.join(replies: [#"{"type":"snapshot","game":"g1","kind":"four","seq":0,"state":\#(fourState)}"#])
        let actions = d.receive(#"{"type":"diff","game":"g1","seq":1,"ops":[{"op":"remove","path":"/nothing"}],"cause":{}}"#)
        let ask = try #require(Driver.sent(actions).first)
        #expect(ask["type"] == "watch")
        #expect(ask["since"] == nil, "no since: a snapshot")
        #expect(d.follower.seq == 0)
    }

    @Test func anUnansweredCommandIsSentAgainWithItsIdAfterTheRejoinAndSettledOnce() throws {
        var d = Driver(.create(kind: "four", options: ["bots": ["p2": 1]]))
        d.on(.start)
        let create = d.join(replies: [
            #"{"type":"created","game":"g1","token":"secret"}"#,
            #"{"type":"joined","game":"g1","kind":"four","role":"player","seq":0,"you":"p1"}"#,
            #"{"type":"snapshot","game":"g1","kind":"four","seq":1,"state":\#(fourState)}"#,
        ])
        #expect(create["type"] == "create")
        #expect(create["options"] == ["bots": ["p2": 1]])
        let first = d.on(.command(id: "m1", body: ["type": "tap", "target": "/columns/3"], basedOn: 1, once: false))
        #expect(Driver.sent(first) == [["type": "tap", "target": "/columns/3", "id": "m1"]])
        // The connection drops before the answer (the server may or may not have applied it).
        let delay = d.drop()
        #expect(delay >= 0 && delay <= 1)
        #expect(d.connection == 2)
        d.on(.opened(connection: 2))
        let rejoin = try #require(Driver.sent(d.log).last)
        #expect(rejoin["type"] == "join", "not a second create")
        #expect(rejoin["game"] == "g1")
        #expect(rejoin["token"] == "secret")
        #expect(rejoin["seat"] == "p1")
        #expect(rejoin["since"] == 1)
        // The server had applied it: the catch-up shows its diff, then the join's ack...
        d.receive(diff(2, column: 3))
        let afterJoin = d.receive(#"{"type":"ack","id":"\#(rejoin["id"]!.stringValue!)","seq":2}"#)
        // ...and the command goes again with the same id, though the state moved: it was sent
        // before, so it is not a new choice.
        #expect(Driver.sent(afterJoin) == [["type": "tap", "target": "/columns/3", "id": "m1"]])
        #expect(Driver.completions(afterJoin).isEmpty)
        // The server acks the re-sent id with the seq of the diff it caused then, and no diff.
        let acked = Driver.completions(d.receive(#"{"type":"ack","id":"m1","seq":2}"#))
        #expect(acked.count == 1)
        #expect(acked.first?.0 == "m1")
        #expect(try acked.first?.1.get() == 2)
        // A second answer to the same id settles nothing.
        #expect(Driver.completions(d.receive(#"{"type":"ack","id":"m1","seq":2}"#)).isEmpty)
        #expect(d.follower.unanswered.isEmpty)
    }

    @Test func aCommandMadeWhileDisconnectedGoesAfterTheRejoin() throws {
        var d = Driver(.join(game: "g1", token: "t", seat: "p2"))
        d.on(.start)
        d.join(replies: [#"{"type":"snapshot","game":"g1","kind":"four","seq":3,"state":\#(fourState)}"#])
        d.on(.closed(connection: 1, reason: "reset"))
        #expect(Driver.sent(d.on(.command(id: "m1", body: ["type": "resign"], basedOn: nil, once: false))).isEmpty)
        d.now += 1
        d.on(.timer(.reconnect(1)))
        let rejoin = d.join()
        #expect(rejoin["seat"] == "p2")
        #expect(Driver.sent(d.log).last == ["type": "resign", "id": "m1"])
    }

    @Test func aStaleChoiceIsRefusedAndNeverSent() throws {
        var d = Driver(.join(game: "g1", token: "t", seat: nil))
        d.on(.start)
        d.join(replies: [#"{"type":"snapshot","game":"g1","kind":"four","seq":3,"state":\#(fourState)}"#])
        d.receive(diff(4, column: 0))
        // Chosen from seq 3, but seq 4 has been shown.
        var actions = d.on(.command(id: "a", body: ["type": "tap", "target": "/columns/1"], basedOn: 3, once: false))
        #expect(Driver.sent(actions).isEmpty)
        #expect(throws: BoardcastError(code: "stale", message: "chosen from seq 3, but the server has shown seq 4: choose again")) {
            try Driver.completions(actions).first?.1.get()
        }
        // A diff past a gap counts as shown too, while the gap is filled.
        d.receive(diff(6, column: 0))
        actions = d.on(.command(id: "b", body: ["type": "tap", "target": "/columns/1"], basedOn: 4, once: false))
        #expect(Driver.sent(actions).isEmpty)
        #expect(Driver.completions(actions).first.map { (try? $0.1.get()) == nil } == true)
        // From the newest shown seq it goes.
        actions = d.on(.command(id: "c", body: ["type": "tap", "target": "/columns/1"], basedOn: 6, once: false))
        #expect(Driver.sent(actions).count == 1)
        // And a command queued while disconnected that the catch-up overtook is refused at sending.
        var e = Driver(.join(game: "g1", token: "t", seat: nil))
        e.on(.start)
        e.join(replies: [#"{"type":"snapshot","game":"g1","kind":"four","seq":3,"state":\#(fourState)}"#])
        e.on(.closed(connection: 1, reason: "reset"))
        e.on(.command(id: "q", body: ["type": "tap", "target": "/columns/1"], basedOn: nil, once: false))
        e.on(.timer(.reconnect(1)))
        e.on(.opened(connection: 2))
        let rejoin = try #require(Driver.sent(e.log).last)
        e.receive(diff(4, column: 2, by: "p2"))
        let flushed = e.receive(#"{"type":"ack","id":"\#(rejoin["id"]!.stringValue!)","seq":4}"#)
        #expect(Driver.sent(flushed).isEmpty)
        #expect(Driver.completions(flushed).first?.0 == "q")
        #expect((try? Driver.completions(flushed).first?.1.get()) == nil)
    }

    @Test func backoffBoundsAndJitter() {
        let backoff = Backoff()
        for attempt in 0..<60 {
            for r in [0.0, 0.25, 0.5, 0.999_999] {
                let delay = backoff.delay(attempt: attempt, random: r)
                #expect(delay >= 0)
                #expect(delay <= (attempt == 0 ? 1 : 5))
            }
            // Equal jitter: at least half the cap, and not the same for every client.
            #expect(backoff.delay(attempt: attempt, random: 0) * 2 >= backoff.delay(attempt: attempt, random: 0.999))
            #expect(backoff.delay(attempt: attempt, random: 0) < backoff.delay(attempt: attempt, random: 0.9))
        }
        // Whatever the settings say, the protocol's bounds hold.
        let wild = Backoff(initial: 60, maximum: 600, factor: 10)
        #expect(wild.delay(attempt: 0, random: 0.9) <= 1)
        #expect(wild.delay(attempt: 5, random: 0.9) <= 5)
        #expect((0...5).contains(Backoff(initial: .nan).delay(attempt: 3, random: 0.5)))
        #expect((0...1).contains(Backoff(initial: -1).delay(attempt: 0, random: 0.5)))
    }

    @Test func reconnectsForeverWithinTheBoundsAndJittered() {
        var d = Driver(.watch(game: "g1", key: nil, replay: false))
        d.on(.start)
        var delays: [Double] = []
        for _ in 0..<200 {
            let delay = d.drop()  // each try refused
            delays.append(delay)
        }
        #expect(delays[0] <= 1)
        #expect(delays.allSatisfy { $0 >= 0 && $0 <= 5 })
        #expect(Set(delays.suffix(50)).count > 40, "jittered, not a fixed wait")
        #expect(delays.suffix(50).allSatisfy { $0 >= 2.5 }, "backed off to the cap's half at least")
        #expect(d.connection == 201)
        // Once a connection gets through, the next drop starts over within 1 s.
        d.join(replies: [#"{"type":"snapshot","game":"g1","kind":"four","seq":0,"state":\#(fourState)}"#])
        #expect(d.drop() <= 1)
        // Two different seeds do not come back in the same instant.
        var a = Driver(.watch(game: "g1", key: nil, replay: false), seed: 1)
        var b = Driver(.watch(game: "g1", key: nil, replay: false), seed: 2)
        a.on(.start)
        b.on(.start)
        #expect(a.drop() != b.drop())
    }

    @Test func aConnectionThatHangsIsGivenUpAndTriedAgainAtOnce() {
        var d = Driver(.watch(game: "g1", key: nil, replay: false))
        let actions = d.on(.start)
        #expect(Driver.schedules(actions).contains { $0.0 == .connectTimeout(1) && $0.1 == 5 })
        d.now = 5
        let timeout = d.on(.timer(.connectTimeout(1)))
        #expect(timeout.contains(.disconnect(connection: 1)))
        #expect(Driver.schedules(timeout).contains { $0.0 == .reconnect(1) && $0.1 == 0 })
        // A late timer of an old connection does nothing.
        d.on(.timer(.reconnect(1)))
        #expect(d.on(.timer(.connectTimeout(1))).isEmpty)
        // Events of an old connection are ignored.
        #expect(d.on(.opened(connection: 1)).isEmpty)
        #expect(d.on(.closed(connection: 1, reason: "late")).isEmpty)
    }

    @Test func aSnapshotAfterReconnectReplacesTheState() throws {
        var d = Driver(.watch(game: "g1", key: nil, replay: false))
        d.on(.start)
        d.join(replies: [#"{"type":"snapshot","game":"g1","kind":"four","seq":2,"state":\#(fourState)}"#])
        d.drop()
        d.on(.opened(connection: 2))
        let rewatch = try #require(Driver.sent(d.log).last)
        #expect(rewatch["type"] == "watch")
        #expect(rewatch["since"] == 2)
        // The server cannot produce the diffs (or restarted past them): a snapshot at seq 9.
        let won = #"{"columns":[["p1","p1","p1","p1"],["p2","p2","p2"],[],[],[],[],[]],"rows":6,"turn":null,"first":"p1","status":"won","winner":"p1","line":[[0,0],[0,1],[0,2],[0,3]],"moves":7}"#
        let actions = d.receive(#"{"type":"snapshot","game":"g1","kind":"four","seq":9,"state":\#(won)}"#)
        d.receive(#"{"type":"ack","id":"\#(rewatch["id"]!.stringValue!)","seq":9}"#)
        let change = try #require(Driver.states(actions).first)
        #expect(change.seq == 9)
        #expect(change.via == .snapshot)
        #expect(d.follower.seq == 9)
        #expect(d.follower.ended)
        #expect(d.follower.status == .ready)
    }

    @Test func aRejoinRefusedForbiddenIsTriedAgainWhileOurOldSeatIsFreed() throws {
        var d = Driver(.join(game: "g1", token: "t", seat: nil), settings: .init(rejoinTimeout: 60))
        d.on(.start)
        d.join(replies: [#"{"type":"joined","game":"g1","kind":"four","role":"player","seq":0,"you":"p2"}"#])
        d.drop()
        d.on(.opened(connection: 2))
        var rejoin = try #require(Driver.sent(d.log).last)
        let refused = d.receive(#"{"type":"error","id":"\#(rejoin["id"]!.stringValue!)","code":"forbidden","message":"seat p2 is held"}"#)
        #expect(refused.contains(.disconnect(connection: 2)))
        #expect(!d.follower.isClosed)
        // Past the rejoin timeout, forbidden is final.
        d.now += 61
        let t = Driver.schedules(refused).first!.0
        d.on(.timer(t))
        d.on(.opened(connection: 3))
        rejoin = try #require(Driver.sent(d.log).last)
        let final = d.receive(#"{"type":"error","id":"\#(rejoin["id"]!.stringValue!)","code":"forbidden","message":"seat p2 is held"}"#)
        #expect(d.follower.isClosed)
        #expect(final.contains { if case .finished("error", let e) = $0 { e?.code == "forbidden" } else { false } })
    }

    @Test func unavailableIsTriedAgainAndNotFoundEndsTheSession() throws {
        var d = Driver(.watch(game: "g1", key: nil, replay: false))
        d.on(.start)
        d.on(.opened(connection: 1))
        var watch = try #require(Driver.sent(d.log).last)
        d.receive(#"{"type":"error","id":"\#(watch["id"]!.stringValue!)","code":"unavailable","message":"owner down"}"#)
        #expect(!d.follower.isClosed)
        #expect(d.follower.status == .reconnecting)
        d.on(.timer(.reconnect(1)))
        d.on(.opened(connection: 2))
        watch = try #require(Driver.sent(d.log).last)
        let actions = d.receive(#"{"type":"error","id":"\#(watch["id"]!.stringValue!)","code":"not-found","message":"no such game"}"#)
        #expect(d.follower.isClosed)
        #expect(actions.contains(.finished(reason: "error", error: BoardcastError(code: "not-found", message: "no such game", reply: try JSONValue(parsing: #"{"type":"error","id":"\#(watch["id"]!.stringValue!)","code":"not-found","message":"no such game"}"#)))))
    }

    @Test func signsInOnEveryConnectionBeforeJoining() throws {
        var d = Driver(.join(game: "g1", token: nil, seat: "p1"), settings: .init(signsIn: true))
        d.on(.start)
        for c in 1...2 {
            let opened = d.on(.opened(connection: c))
            #expect(opened.contains(.fetchToken(connection: c)))
            #expect(Driver.sent(opened).isEmpty, "nothing before the sign-in")
            let auth = try #require(Driver.sent(d.on(.token(connection: c, "jwt-\(c)"))).first)
            #expect(auth["type"] == "auth")
            #expect(auth["jwt"] == .string("jwt-\(c)"))
            let join = try #require(Driver.sent(d.receive(#"{"type":"ack","id":"\#(auth["id"]!.stringValue!)"}"#)).first)
            #expect(join["type"] == "join")
            #expect(join["token"] == nil)
            d.receive(#"{"type":"ack","id":"\#(join["id"]!.stringValue!)","seq":0}"#)
            #expect(d.follower.status == .ready)
            if c == 1 { d.drop() }
        }
        // A refused sign-in is reported, and the join goes on (it may not need it).
        d.drop()
        d.on(.opened(connection: 3))
        let auth = try #require(Driver.sent(d.on(.token(connection: 3, "expired"))).first)
        let next = d.receive(#"{"type":"error","id":"\#(auth["id"]!.stringValue!)","code":"forbidden","message":"expired"}"#)
        #expect(next.contains { if case .error(let e) = $0 { e.code == "forbidden" } else { false } })
        #expect(Driver.sent(next).first?["type"] == "join")
    }

    @Test func chatIsNeverSentTwice() throws {
        var d = Driver(.join(game: "g1", token: "t", seat: nil))
        d.on(.start)
        d.join(replies: [#"{"type":"snapshot","game":"g1","kind":"four","seq":0,"state":\#(fourState)}"#])
        d.on(.command(id: "say1", body: ["type": "say", "text": "hi"], basedOn: .max, once: true))
        let dropped = d.on(.closed(connection: 1, reason: "reset"))
        #expect(Driver.completions(dropped).first?.0 == "say1")
        #expect((try? Driver.completions(dropped).first?.1.get()) == nil)
        // Chat lines a re-join shows again are not delivered twice.
        d.on(.timer(.reconnect(1)))
        d.join(replies: [#"{"type":"chat","game":"g1","room":"players","by":"p2","text":"gg","at":"2026-11-28T00:00:00Z","n":1}"#])
        d.drop()
        let again = d.join(replies: [#"{"type":"chat","game":"g1","room":"players","by":"p2","text":"gg","at":"2026-11-28T00:00:00Z","n":1}"#])
        #expect(again["type"] == "join")
        #expect(d.log.filter { if case .chat = $0 { true } else { false } }.count == 1)
    }

    @Test func suspendLetsGoAndResumeCatchesUpWithSince() throws {
        var d = Driver(.join(game: "g1", token: "t", seat: nil))
        d.on(.start)
        d.join(replies: [
            #"{"type":"joined","game":"g1","kind":"four","role":"player","seq":0,"you":"p1"}"#,
            #"{"type":"snapshot","game":"g1","kind":"four","seq":5,"state":\#(fourState)}"#,
        ])
        d.on(.command(id: "m", body: ["type": "tap", "target": "/columns/0"], basedOn: 5, once: false))
        let suspended = d.on(.suspend)
        #expect(suspended.contains(.disconnect(connection: 1)))
        #expect(Driver.schedules(suspended).isEmpty, "no reconnection while suspended")
        #expect(d.follower.status == .suspended)
        #expect(d.on(.closed(connection: 1, reason: "closed")).isEmpty)
        let resumed = d.on(.resume)
        #expect(resumed.contains(.connect(connection: 2)))
        d.on(.opened(connection: 2))
        let rejoin = try #require(Driver.sent(d.log).last)
        #expect(rejoin["since"] == 5)
        #expect(rejoin["seat"] == "p1")
        let flushed = d.receive(#"{"type":"ack","id":"\#(rejoin["id"]!.stringValue!)","seq":5}"#)
        #expect(Driver.sent(flushed) == [["type": "tap", "target": "/columns/0", "id": "m"]])
    }

    @Test func closeRefusesWhatWaitsAndStopsEverything() {
        var d = Driver(.join(game: "g1", token: "t", seat: nil))
        d.on(.start)
        d.join()
        d.on(.closed(connection: 1, reason: "reset"))
        d.on(.command(id: "m", body: ["type": "undo"], basedOn: nil, once: false))
        let closed = d.on(.close)
        #expect(Driver.completions(closed).map(\.0) == ["m"])
        #expect(closed.contains(.status(.closed)))
        #expect(d.on(.timer(.reconnect(1))).isEmpty, "nothing reconnects after close")
        #expect(Driver.completions(d.on(.command(id: "n", body: ["type": "undo"], basedOn: nil, once: false))).first.map { (try? $0.1.get()) == nil } == true)
    }

    @Test func repliesAreMatchedById() throws {
        var d = Driver(.join(game: "g1", token: "t", seat: nil))
        d.on(.start)
        d.join(replies: [#"{"type":"snapshot","game":"g1","kind":"four","seq":0,"state":\#(fourState)}"#])
        d.on(.command(id: "a", body: ["type": "tap", "target": "/columns/0"], basedOn: 0, once: false))
        d.on(.command(id: "b", body: ["type": "tap", "target": "/columns/1"], basedOn: 0, once: false))
        let r1 = Driver.completions(d.receive(#"{"type":"error","id":"b","code":"illegal-move","message":"it is p2's turn"}"#))
        #expect(r1.map(\.0) == ["b"])
        #expect(throws: BoardcastError.self) { try r1[0].1.get() }
        if case .failure(let e) = r1[0].1 {
            #expect(e.code == "illegal-move")
            #expect(e.message == "it is p2's turn")
        }
        let r2 = Driver.completions(d.receive(#"{"type":"ack","id":"a","seq":1}"#))
        #expect(r2.map(\.0) == ["a"])
        // An answer to an id nobody waits for is nobody's.
        #expect(Driver.completions(d.receive(#"{"type":"ack","id":"zzz","seq":1}"#)).isEmpty)
    }

    @Test func aReplayWatchesFromTheDeal() {
        var d = Driver(.watch(game: "g1", key: "k", replay: false), since: 0)
        d.on(.start)
        let watch = d.join()
        #expect(watch["replay"] == true)
        #expect(watch["key"] == "k")
    }
}
