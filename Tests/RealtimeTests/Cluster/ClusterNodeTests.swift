import Core
import Foundation
import Testing
@testable import Realtime

/// Several hubs as cluster nodes, with Redis played in memory: channels, subscriptions and
/// game streams, delivered in order through one queue. No sockets, no threads.
final class ClusterHarness {
    final class Node {
        let name: String
        let cluster: ClusterNode
        var hub: Hub { cluster.hub }
        let store = try! SQLiteGameStore.inMemory()
        var open: Set<ConnectionID> = []
        var sent: [ConnectionID: [String]] = [:]
        var lastTicket: UInt64 = 0
        var actions: [HubAction] = []

        init(name: String, code: String) {
            self.name = name
            let random = LockedRandom(seed: UInt64(name.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) }))
            let hub = Hub(config: Hub.Config(games: .standard), random: { random.next() })
            cluster = ClusterNode(hub: hub, identity: ClusterIdentity(node: name, code: code, leaseSeconds: 3))
        }
    }

    var now = Instant(monotonic: 1000, unixTime: 1_800_000_000)
    private(set) var nodes: [String: Node] = [:]
    private var subscriptions: [String: Set<String>] = [:]
    private(set) var streams: [String: [Publication]] = [:]
    private var queue: [(node: String, event: ClusterEvent)] = []
    /// Nodes that get nothing on their node channel (not running, as far as others can tell).
    var deaf: Set<String> = []
    /// Nodes whose node-channel messages wait (a slow owner) until `release`.
    var holding: Set<String> = []
    private var held: [(node: String, payload: [UInt8])] = []
    /// Connections whose forwarded requests wait (an owner slow to get to one member) until `release`.
    var holdingForwardsOf: Set<ConnectionID> = []
    /// Publications on a game channel that a node does not get (a missed message).
    var dropping: ((String, Publication) -> Bool)?
    /// Redis's `bc:codes`: what a node's look-up of a code finds.
    private var codes: [String: String]

    /// `seen`: the nodes every node's first view holds alive (all of them by default).
    init(_ names: [String], seen: [String]? = nil) {
        codes = Dictionary(uniqueKeysWithValues: names.enumerated().map { ("c\($0.offset)", $0.element) })
        for (code, name) in codes {
            nodes[name] = Node(name: name, code: code)
            subscriptions[ClusterKeys.nodeChannel(name), default: []].insert(name)
        }
        let alive = Dictionary(uniqueKeysWithValues: (seen ?? names).map { ($0, "1") })
        for node in nodes.values {
            deliver(.link(up: true), to: node)
            deliver(.view(codes: codes, alive: alive, lobbies: [:]), to: node)
        }
        // Past the settling time after the link came up: missing keys are dead nodes from now on.
        now += NodeDirectory.settling
    }

    /// A test ends as the server's clients do: every open connection closes, and the other
    /// nodes hear of it.
    deinit {
        deaf = []
        dropping = nil
        for node in nodes.values {
            for id in node.open.sorted() { run(node, .closed(id)) }
        }
    }

    subscript(_ name: String) -> Node { nodes[name]! }

    // MARK: Events

    func open(_ name: String, _ id: ConnectionID) {
        let node = self[name]
        node.open.insert(id)
        run(node, .opened(id, .unknown, query: [:]))
    }

    func send(_ name: String, _ id: ConnectionID, _ text: String) {
        now += 0.02
        run(self[name], .frame(id, Array(text.utf8)))
    }

    func tick(_ name: String) { run(self[name], .tick) }

    func close(_ name: String, _ id: ConnectionID) {
        self[name].open.remove(id)
        run(self[name], .closed(id))
    }

    func take(_ name: String, _ id: ConnectionID) -> [JSON] {
        let node = self[name]
        defer { node.sent[id] = [] }
        return (node.sent[id] ?? []).map { (try? JSONText.parse($0)) ?? .string($0) }
    }

    func types(_ name: String, _ id: ConnectionID) -> [String] { take(name, id).map { $0["type"]?.stringValue ?? "text" } }

    /// Every node sees these nodes alive, with these incarnations.
    func view(alive: [String: String]) {
        for node in nodes.values { deliver(.view(codes: codes, alive: alive, lobbies: [:]), to: node) }
    }

    func clearStream(_ game: String) { streams[game] = [] }

    /// Redis restarts empty: every node's link drops and comes back, and their first look finds
    /// no codes and no live keys (the nodes write theirs again on their next rounds).
    func redisRestartedEmpty() {
        let written = codes
        codes = [:]
        for node in nodes.values {
            link(node.name, up: false)
            link(node.name, up: true)
            deliver(.view(codes: [:], alive: [:], lobbies: [:]), to: node)
        }
        codesWrittenAgain = written
    }

    private var codesWrittenAgain: [String: String] = [:]

    /// The nodes have written their codes into Redis again.
    func codesAreBack() { codes = codesWrittenAgain }

    /// A klondike game created by connection 1 on `a` and watched by connection 7 on `b`: its id.
    func createOnAWatchedFromB() -> String {
        open("a", 1)
        send("a", 1, #"{"type":"create","kind":"klondike","options":{"seed":4}}"#)
        let game = take("a", 1)[0]["game"]!.stringValue!
        open("b", 7)
        send("b", 7, #"{"type":"watch","game":"\#(game)"}"#)
        return game
    }

    /// A held node gets what waited for it, in order.
    func release(_ name: String) {
        holding.remove(name)
        holdingForwardsOf = []
        queue += held.filter { $0.node == name }.map { ($0.node, ClusterEvent.nodeMessage($0.payload)) }
        held.removeAll { $0.node == name }
        drain()
    }

    /// An envelope on a node's channel, as if another node sent it.
    func deliver(_ envelope: ClusterEnvelope, to name: String) { deliver(.nodeMessage(envelope.bytes), to: self[name]) }

    /// Nodes whose link to Redis is down: what they send is lost, as `RedisLink` drops it.
    private var linkDown: Set<String> = []

    /// A node's link to Redis drops or comes back.
    func link(_ name: String, up: Bool) {
        if up { linkDown.remove(name) } else { linkDown.insert(name) }
        deliver(.link(up: up), to: self[name])
    }

    // MARK: Carrying out actions, Redis included

    private func deliver(_ event: ClusterEvent, to node: Node) {
        node.actions = node.cluster.receive(event, at: now)
        carryOut(node.actions, on: node)
        drain()
    }

    private func run(_ node: Node, _ event: HubEvent) {
        node.actions = hub(node, event)
        carryOut(node.actions, on: node)
        drain()
    }

    private func hub(_ node: Node, _ event: HubEvent) -> [HubAction] { node.hub.handle(event, at: now) }

    /// Carries out one event's actions in order; storage commits once they all are, as the
    /// commit thread's answer would come.
    private func carryOut(_ actions: [HubAction], on node: Node) {
        let before = node.lastTicket
        for action in actions { carryOut(action, on: node) }
        if node.lastTicket > before { carryOut(hub(node, .committed(upTo: node.lastTicket, refused: [:])), on: node) }
    }

    private var draining = false

    private func drain() {
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !queue.isEmpty {
            let (name, event) = queue.removeFirst()
            let node = self[name]
            carryOut(node.cluster.receive(event, at: now), on: node)
        }
    }

    private func carryOut(_ action: HubAction, on node: Node) {
        switch action {
        case .send(let frame, let id):
            node.sent[id, default: []].append(frame.text)
        case .broadcast(let frame, let audience, _):
            for id in audience { node.sent[id, default: []].append(frame.text) }
        case .store(let batch, let ticket):
            try! node.store.write(batch)
            node.lastTicket = ticket
        case .read(.load(let game)):
            let loaded = GameLoader.load(game, from: node.store, games: .standard, windowSize: 128, asOf: now.unixTime)
            carryOut(hub(node, .read(.loaded(game: game, loaded))), on: node)
        case .link:
            guard let cluster = action.clusterAction else { return }
            switch cluster {
            case .send(let target, let envelope):
                guard !linkDown.contains(node.name) else { return }
                publish(ClusterKeys.nodeChannel(target), envelope.bytes)
            case .publish(let game, let publication):
                if publication.isDiff { streams[game, default: []].append(publication) }
                publish(ClusterKeys.gameChannel(game), publication.bytes)
            case .subscribe(let game):
                subscriptions[ClusterKeys.gameChannel(game), default: []].insert(node.name)
                queue.append((node.name, .subscribed(game: game)))
            case .unsubscribe(let game):
                subscriptions[ClusterKeys.gameChannel(game)]?.remove(node.name)
            case .readStream(let game):
                queue.append((node.name, .streamRead(game: game, streams[game] ?? [])))
            case .lookupCode(let code):
                queue.append((node.name, .codeFound(code: code, node: codes[code], linkFailed: false)))
            case .round:
                break
            }
        case .read(.chat(let token, let game, let through)):
            let lines = (try? node.store.chat(game: game, after: -1, through: through, limit: 10_000)) ?? []
            carryOut(hub(node, .read(.chat(token: token, lines: lines))), on: node)
        case .read, .solve, .respond, .countError, .countRefusal, .countSignIn, .log, .resumeStorage, .close, .remote, .wake:
            break
        }
    }

    private func isHeldForward(_ payload: [UInt8]) -> Bool {
        guard case .forward(_, let connection, _, _, _)? = ClusterEnvelope.parse(payload) else { return false }
        return holdingForwardsOf.contains(ConnectionID(raw: connection))
    }

    private func publish(_ channel: String, _ payload: [UInt8]) {
        for name in (subscriptions[channel] ?? []).sorted() {
            if channel.hasPrefix(ClusterKeys.gamePrefix) {
                let game = String(channel.dropFirst(ClusterKeys.gamePrefix.count))
                if let publication = Publication.parse(payload), dropping?(name, publication) == true { continue }
                queue.append((name, .gameMessage(game: game, payload)))
            } else if holding.contains(name) || isHeldForward(payload) {
                held.append((name, payload))
            } else if !deaf.contains(name) {
                queue.append((name, .nodeMessage(payload)))
            }
        }
    }
}

private final class LockedRandom: @unchecked Sendable {
    private var state: SplitMix64
    init(seed: UInt64) { state = SplitMix64(seed: seed) }
    func next() -> UInt64 { state.next() }
}

private func types(_ messages: [JSON]) -> [String] { messages.map { $0["type"]?.stringValue ?? "text" } }

@Suite struct ClusterHubTests {
    /// A game created on `a`, its id and token.
    private func create(_ cluster: ClusterHarness, kind: String = "klondike", options: String = #"{"seed":4}"#) -> (String, String) {
        cluster.open("a", 1)
        cluster.send("a", 1, #"{"type":"create","kind":"\#(kind)","options":\#(options)}"#)
        let created = cluster.take("a", 1)[0]
        return (created["game"]!.stringValue!, created["token"]!.stringValue!)
    }

    /// A game created on `a`, with connection 7 of `b` joined as its second player.
    @discardableResult
    private func playerOnB(_ cluster: ClusterHarness) -> String {
        let (game, token) = create(cluster)
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        _ = cluster.take("b", 7)
        return game
    }

    @Test func aGameIdCarriesItsOwnersCodeAndAnyNodeAnswersForIt() throws {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = create(cluster)
        #expect(game.count == 8 && game.hasPrefix(cluster["a"].cluster.machine.identity.code))
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)","id":"j"}"#)
        let joined = cluster.take("b", 7)
        #expect(types(joined) == ["joined", "snapshot", "ack"], "the owner's replies, passed through")
        #expect(joined[0]["you"] == "p2")
        cluster.send("b", 7, #"{"type":"tap","target":"/stock","id":"t"}"#)
        #expect(cluster.types("b", 7) == ["diff", "ack"])
        cluster.send("b", 7, #"{"type":"tap","target":"/stock","id":"t"}"#)
        #expect(cluster.take("b", 7) == [.object(["type": "ack", "id": "t", "seq": 1])], "applied once, cluster-wide")
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        #expect(cluster.take("b", 7).map { $0["seq"] } == [2], "the owner's move reaches the other node's member")
        cluster.send("b", 7, #"{"type":"alpha","step":1,"id":"x"}"#)
        #expect(cluster.take("b", 7).first?["code"] == "unknown-type")
        cluster.send("b", 7, #"{"type":"leave","id":"l"}"#)
        #expect(cluster.types("b", 7) == ["left", "ack"])
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        #expect(cluster.take("b", 7).isEmpty, "gone means gone")
    }

    @Test func anOwnerThatGetsToARequestItsSenderGaveUpDropsIt() {
        let cluster = ClusterHarness(["a", "b"])
        playerOnB(cluster)
        cluster.holding = ["a"]
        cluster.send("b", 7, #"{"type":"tap","target":"/stock","id":"t"}"#)
        #expect(cluster.take("b", 7).isEmpty)
        cluster.now += 4  // past the forward's deadline (the lease, 3 s)
        cluster.view(alive: ["a": "1", "b": "1"])
        let refused = cluster.take("b", 7)
        #expect(refused.map { $0["code"] } == ["unavailable"])
        cluster.release("a")  // the owner was slow, not gone: it gets to the tap now, too late
        #expect(cluster.take("b", 7).isEmpty, "not applied after its client heard `unavailable`")
        #expect(cluster["a"].cluster.counters.expiredForwards == 1)
        cluster.send("b", 7, #"{"type":"tap","target":"/stock","id":"t"}"#)
        let again = cluster.take("b", 7)
        #expect(again.map { $0["type"] } == ["diff", "ack"] && again.last?["seq"] == 1, "applied once, when sent again: \(again)")
        cluster.send("b", 7, #"{"type":"tap","target":"/stock","id":"u"}"#)
        #expect(cluster.types("b", 7) == ["diff", "ack"])
    }

    @Test func aRequestSentAgainWhileTheOwnerIsSlowGetsOneAnswer() {
        let cluster = ClusterHarness(["a", "b"])
        playerOnB(cluster)
        cluster.holding = ["a"]
        cluster.send("b", 7, #"{"type":"say","text":"hi","id":"l"}"#)
        cluster.now += 4
        cluster.view(alive: ["a": "1", "b": "1"])
        #expect(cluster.take("b", 7).map { $0["code"] } == ["unavailable"])
        cluster.send("b", 7, #"{"type":"say","text":"hi","id":"l"}"#)  // sent again, to the same slow owner
        cluster.release("a")
        let answers = cluster.take("b", 7).filter { $0["id"] == "l" }
        #expect(answers.count == 1, "two requests, two answers in all (one unavailable): \(answers)")
    }

    @Test func membersOfANodeTakenForDeadJoinAgainWhenItIsBack() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = create(cluster, kind: "four", options: "{}")
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2"}"#)
        _ = cluster.take("b", 7)
        cluster.send("a", 1, #"{"type":"tap","target":"/columns/3"}"#)
        _ = cluster.take("b", 7)
        // b is cut off past its lease: a takes it for dead and ends its sessions; b never knew.
        cluster.view(alive: ["a": "1"])
        cluster.now += 2  // past the grace for a missing key
        cluster.view(alive: ["a": "1"])
        cluster.now += 1
        cluster.view(alive: ["a": "1", "b": "1"])  // b is back, the same process
        cluster.send("b", 7, #"{"type":"tap","target":"/columns/4","id":"t"}"#)
        let reply = cluster.take("b", 7)
        #expect(reply.first { $0["type"] == "diff" }?["cause"]?["by"] == "p2", "still p2, still in the game: \(reply)")
        #expect(reply.last?["type"] == "ack")
    }

    @Test func aMemberItsOwnerForgotJoinsAgainBeforeItsNextTry() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = create(cluster, kind: "four", options: "{}")
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2"}"#)
        cluster.send("a", 1, #"{"type":"tap","target":"/columns/3"}"#)
        _ = cluster.take("b", 7)
        // a takes b for dead and ends its sessions; b's member moves before a sees b back.
        cluster.view(alive: ["a": "1"])
        cluster.now += 2
        cluster.view(alive: ["a": "1"])
        cluster.send("b", 7, #"{"type":"tap","target":"/columns/4","id":"t"}"#)
        let refused = cluster.take("b", 7)
        #expect(refused.map { $0["code"] } == ["unavailable"], "not applied, and not `not-joined`: \(refused)")
        cluster.send("b", 7, #"{"type":"tap","target":"/columns/4","id":"t"}"#)
        let reply = cluster.take("b", 7)
        #expect(reply.first { $0["type"] == "diff" }?["cause"]?["by"] == "p2", "joined again as p2: \(reply)")
    }

    /// A four-in-a-row game created on `a`, with connection 7 of `b` in seat p2: its id and token.
    private func fourWithP2OnB(_ cluster: ClusterHarness) -> (String, String) {
        let (game, token) = create(cluster, kind: "four", options: "{}")
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2"}"#)
        #expect(cluster.take("b", 7).first?["you"] == "p2")
        return (game, token)
    }

    @Test func aNodeThatRestartedGivesUpItsOldConnectionsSeats() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = fourWithP2OnB(cluster)
        for _ in 0..<3 { cluster.view(alive: ["a": "1", "b": "1"]) }  // seconds go by
        // b is killed and back within its lease: a new incarnation, none of its old connections.
        // One of its new connections watches before a's next view sees the new incarnation.
        cluster.open("b", 9)
        cluster.send("b", 9, #"{"type":"watch","game":"\#(game)"}"#)
        _ = cluster.take("b", 9)
        cluster.view(alive: ["a": "1", "b": "2"])
        cluster.open("b", 8)
        cluster.send("b", 8, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2","id":"j"}"#)
        let joined = cluster.take("b", 8)
        #expect(joined.first?["type"] == "joined" && joined.first?["you"] == "p2", "the seat is free again: \(joined)")
        cluster.send("a", 1, #"{"type":"tap","target":"/columns/3"}"#)
        #expect(cluster.take("b", 9).contains { $0["type"] == "diff" }, "a new connection's session is not taken for an old one")
    }

    /// A four-in-a-row game on `a` whose second player's join from `b` (connection 7) was given
    /// up at its deadline while `a` was slow: its id and token.
    private func joinGivenUp(_ cluster: ClusterHarness) -> (String, String) {
        let (game, token) = create(cluster, kind: "four", options: "{}")
        cluster.holding = ["a"]
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2","id":"j"}"#)
        cluster.now += 4  // past the forward's deadline
        cluster.view(alive: ["a": "1", "b": "1"])
        #expect(cluster.take("b", 7).map { $0["code"] } == ["unavailable"])
        return (game, token)
    }

    @Test func aJoinGivenUpWhileItsOwnerWasSlowHoldsNoSeatThere() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = joinGivenUp(cluster)
        cluster.close("b", 7)  // its client tries elsewhere
        cluster.release("a")  // a was slow, not gone: it gets to the join now
        cluster.open("b", 8)
        cluster.send("b", 8, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2","id":"k"}"#)
        let joined = cluster.take("b", 8)
        #expect(joined.first?["type"] == "joined" && joined.first?["you"] == "p2", "nobody holds p2: \(joined)")
    }

    /// A new connection on `b` asks for seat p2, and gets it.
    private func expectSeatP2Free(_ cluster: ClusterHarness, game: String, token: String) {
        cluster.open("b", 8)
        cluster.send("b", 8, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2"}"#)
        let joined = cluster.take("b", 8)
        #expect(joined.first?["type"] == "joined" && joined.first?["you"] == "p2", "the seat is free: \(joined)")
    }

    @Test func aSeatIsFreedEvenIfItsConnectionClosedWhileTheLinkWasDown() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = fourWithP2OnB(cluster)
        cluster.link("b", up: false)
        cluster.close("b", 7)  // its client gives up and tries elsewhere
        cluster.link("b", up: true)
        expectSeatP2Free(cluster, game: game, token: token)
    }

    /// The 30-minute run's longest wait (62 s): Redis restarted, a connection closed meanwhile,
    /// and its node told the owner as soon as its link was back, before the owner listened again.
    @Test func aSeatIsFreedEvenIfItsOwnerWasNotListeningYetWhenTheLinkCameBack() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = fourWithP2OnB(cluster)
        cluster.link("a", up: false)
        cluster.link("b", up: false)
        cluster.close("b", 7)
        cluster.deaf = ["a"]  // a's subscriptions are not renewed yet
        cluster.link("b", up: true)
        cluster.link("a", up: true)
        cluster.deaf = []
        cluster.now += NodeDirectory.settling
        cluster.view(alive: ["a": "1", "b": "1"])
        expectSeatP2Free(cluster, game: game, token: token)
    }

    @Test func aJoinGivenUpAndAskedAgainOnTheSameConnectionTakesTheSeat() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = joinGivenUp(cluster)
        cluster.release("a")
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)","seat":"p2","id":"j"}"#)
        let joined = cluster.take("b", 7)
        #expect(joined.first?["type"] == "joined" && joined.first?["you"] == "p2", "\(joined)")
        cluster.send("a", 1, #"{"type":"tap","target":"/columns/3"}"#)
        #expect(cluster.take("b", 7).contains { $0["type"] == "diff" }, "a member, receiving")
    }

    @Test func aMissedDiffIsFilledFromTheGamesStreamBeforeAnythingLater() {
        let cluster = ClusterHarness(["a", "b"])
        _ = cluster.createOnAWatchedFromB()
        _ = cluster.take("b", 7)
        cluster.dropping = { node, publication in node == "b" && publication.seq == 2 }
        for _ in 0..<3 { cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#) }
        #expect(cluster.take("b", 7).map { $0["seq"] } == [1, 2, 3])
        #expect(cluster["b"].cluster.counters.gapsFilled == 1)
    }

    @Test func whenTheStreamLostItTheMemberCatchesUpSilentlyThroughItsOwner() {
        let cluster = ClusterHarness(["a", "b"])
        let game = cluster.createOnAWatchedFromB()
        _ = cluster.take("b", 7)
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.dropping = { node, publication in node == "b" && (2...3).contains(publication.seq) }
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.clearStream(game)  // Redis restarted: the stream is gone
        cluster.dropping = nil
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        let got = cluster.take("b", 7)
        #expect(types(got) == ["diff", "diff", "diff", "diff"], "no second joined, no ack: only what it missed")
        #expect(got.map { $0["seq"] } == [1, 2, 3, 4])
    }

    @Test func aMemberFoundBehindWhileItsCommandWaitsCatchesUpWithoutAGap() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = create(cluster)
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"watch","game":"\#(game)"}"#)
        cluster.open("b", 8)
        cluster.send("b", 8, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        _ = cluster.take("b", 7)
        #expect(cluster.take("b", 8).last?["seq"] == 1)
        // 8's command waits at its owner; meanwhile b misses diff 2, and the stream lost it too.
        cluster.holdingForwardsOf = [8]
        cluster.send("b", 8, #"{"type":"tap","target":"/stock","id":"t"}"#)
        cluster.dropping = { node, publication in node == "b" && publication.seq == 2 }
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.clearStream(game)
        cluster.dropping = nil
        // 3 shows the gap: both members catch up through a; 7's marker (at 3) moves b's feed on.
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.release("a")
        cluster.view(alive: ["a": "1", "b": "1"])
        cluster.send("b", 8, #"{"type":"tap","target":"/stock","id":"t"}"#)
        let got = cluster.take("b", 8)
        let seqs = got.filter { $0["type"] == "diff" }.compactMap { $0["seq"]?.intValue }
        #expect(seqs == Array(2...seqs.count + 1), "every diff once, in order: \(seqs)")
        #expect(got.first?["message"] == "this node fell behind the game; send it again", "\(got)")
        let acks = got.filter { $0["id"] == "t" }
        #expect(acks.last?["type"] == "ack", "its command is answered, and acked when sent again: \(acks)")
        if let seq = acks.last?["seq"]?.intValue {
            let diffAt = got.firstIndex { $0["type"] == "diff" && $0["seq"]?.intValue == seq }
            let ackAt = got.lastIndex { $0["id"] == "t" }
            #expect(diffAt != nil && diffAt! < ackAt!, "the diff its command caused comes before its ack: \(got)")
        }
        #expect(cluster.take("b", 7).compactMap { $0["seq"]?.intValue } == [2, 3, 4, 5])
    }

    @Test func aNewMembersMarkerShowsTheOthersBehindAndTheyGetWhatTheyMissed() {
        let cluster = ClusterHarness(["a", "b"])
        let game = cluster.createOnAWatchedFromB()
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.dropping = { node, publication in node == "b" && publication.seq == 2 }
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)  // b missed it, and nothing later shows it yet
        cluster.dropping = nil
        cluster.open("b", 9)
        cluster.send("b", 9, #"{"type":"watch","game":"\#(game)"}"#)  // its marker is at 2
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        #expect(cluster.take("b", 7).compactMap { $0["seq"]?.intValue }.filter { $0 > 0 } == [1, 2, 3])
        #expect(cluster.take("b", 9).filter { $0["type"] == "diff" }.compactMap { $0["seq"]?.intValue } == [3])
    }

    @Test func twoCatchUpsOfOneMemberAnsweredInTurnGiveEachDiffOnce() {
        let cluster = ClusterHarness(["a", "b"])
        _ = cluster.createOnAWatchedFromB()
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        // b's link drops and comes back twice while a is slow: two catch-ups on their way to a,
        // the first given up when the link dropped.
        cluster.holding = ["a"]
        cluster.link("b", up: false)
        cluster.link("b", up: true)
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.link("b", up: false)
        cluster.link("b", up: true)
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.release("a")
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        let seqs = cluster.take("b", 7).filter { $0["type"] == "diff" }.compactMap { $0["seq"]?.intValue }
        #expect(seqs == [1, 2, 3, 4], "every diff once, in order: \(seqs)")
    }

    @Test func aCatchUpItsClientDidNotAskForNeverRepeatsWhatTheFeedPassed() {
        let cluster = ClusterHarness(["a", "b"])
        let game = cluster.createOnAWatchedFromB()
        for _ in 0..<3 { cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#) }
        #expect(cluster.take("b", 7).filter { $0["type"] == "diff" }.map { $0["seq"] } == [1, 2, 3])
        // An owner's answer to a catch-up sent twice, the second answered in turn: diff 2 again.
        let frame = Array(#"{"type":"diff","game":"\#(game)","seq":2,"ops":[]}"#.utf8)
        cluster.deliver(.reply(connection: ConnectionID(raw: 7).raw, kind: .diff(seq: 2), frame: frame), to: "b")
        #expect(cluster.take("b", 7).isEmpty)
        cluster.send("b", 7, #"{"type":"watch","game":"\#(game)","since":1,"id":"w"}"#)
        let asked = cluster.take("b", 7).filter { $0["type"] == "diff" }.map { $0["seq"] }
        #expect(asked == [2, 3], "what its client asks for, it gets")
    }

    @Test func presenceCountsMembersOnEveryNode() {
        let cluster = ClusterHarness(["a", "b", "c"])
        let game = cluster.createOnAWatchedFromB()
        cluster.open("c", 8)
        cluster.send("c", 8, #"{"type":"watch","game":"\#(game)"}"#)
        cluster.now += 1
        cluster.tick("a")
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        #expect(cluster["a"].hub.room(game)?.members.spectators == 2)
    }

    @Test func aRacersCopyIsMaskedOnAnotherNodeToo() throws {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = create(cluster, kind: "race", options: #"{"seed":9}"#)
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        #expect(cluster.types("b", 7) == ["joined", "snapshot", "diff", "event"])
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        let rival = cluster.take("b", 7)
        let waste = try #require(rival.first?["ops"]?.arrayValue?.first { $0["path"]?.stringValue == "/tables/p1/waste/0" })
        #expect(waste["value"] == "??")
        let own = cluster.take("a", 1).last { $0["type"] == "diff" }
        #expect(own?["ops"]?.arrayValue?.contains { $0["value"] != "??" && $0["path"]?.stringValue == "/tables/p1/waste/0" } == true)
    }

    @Test func anOwnerNotSeenYetIsAskedAnywayAndAnOwnerThatStaysUnseenIsUnavailableAfterAWhile() {
        // Two nodes started together: b's first look at Redis came before a's key was there.
        let cluster = ClusterHarness(["a", "b"], seen: ["b"])
        let (game, _) = create(cluster)
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"watch","game":"\#(game)","id":"w"}"#)
        #expect(cluster.types("b", 7) == ["joined", "snapshot", "ack"], "forwarded, not refused: a may just have started")
        // A request to an owner that stays unseen fails once it has waited the patience (2 s).
        cluster.open("b", 8)
        cluster.deaf.insert("a")  // as if a were not running after all
        cluster.send("b", 8, #"{"type":"watch","game":"\#(game)","id":"x"}"#)
        cluster.view(alive: ["b": "1"])
        #expect(cluster.take("b", 8).isEmpty, "still waiting: unseen for less than the patience")
        cluster.now += 2.5
        cluster.view(alive: ["b": "1"])
        #expect(cluster.take("b", 8).first?["code"] == "unavailable")
    }

    @Test func aGameOfACodeRedisForgotIsStillFoundThroughTheCodeThisNodeLearned() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, _) = create(cluster)
        cluster.redisRestartedEmpty()
        // The nodes' live keys are back a round later; their codes not yet.
        cluster.view(alive: ["a": "1", "b": "1"])
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"watch","game":"\#(game)","id":"w"}"#)
        #expect(cluster.types("b", 7) == ["joined", "snapshot", "ack"], "a code names its node for good")
    }

    @Test func aCodeNoNodeHasIsUnavailableUntilRedisHasHadALeaseToHearFromEveryNode() {
        let cluster = ClusterHarness(["a", "b"])
        cluster.redisRestartedEmpty()
        cluster.open("b", 7)
        // A code b never learned (a node that joined while b was away), not yet written again.
        let unheard = "zz" + String(repeating: "q", count: GameIDs.length - 2)
        cluster.send("b", 7, #"{"type":"watch","game":"\#(unheard)","id":"w"}"#)
        #expect(cluster.take("b", 7).map { $0["code"] } == ["unavailable"], "not `not-found`: Redis may only have forgotten")
        cluster.now += NodeDirectory.settling
        cluster.view(alive: ["a": "1", "b": "1"])
        cluster.send("b", 7, #"{"type":"watch","game":"\#(unheard)","id":"x"}"#)
        #expect(cluster.take("b", 7).map { $0["code"] } == ["unavailable"], "settled, but not yet a lease since the link came up")
        cluster.now += 3  // the harness's lease
        cluster.view(alive: ["a": "1", "b": "1"])
        cluster.codesAreBack()
        cluster.send("b", 7, #"{"type":"watch","game":"\#(unheard)","id":"y"}"#)
        #expect(cluster.take("b", 7).map { $0["code"] } == ["not-found"], "every live node has written its code again")
    }

    @Test func anOwnerThatIsGoneAnswersUnavailableAndItsMembersStay() {
        let cluster = ClusterHarness(["a", "b"])
        let (game, token) = create(cluster)
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(token)"}"#)
        _ = cluster.take("b", 7)
        cluster.view(alive: ["b": "1"])
        cluster.send("b", 7, #"{"type":"tap","target":"/stock","id":"u"}"#)
        #expect(cluster.take("b", 7).first?["code"] == "unavailable")
        cluster.open("b", 8)
        cluster.send("b", 8, #"{"type":"watch","game":"\#(game)","id":"w"}"#)
        #expect(cluster.take("b", 8).first?["code"] == "unavailable")
        // Back, with a new incarnation: the member's session is renewed without a word to the client.
        cluster.view(alive: ["a": "2", "b": "1"])
        #expect(cluster.take("b", 7).isEmpty)
        cluster.send("b", 7, #"{"type":"tap","target":"/stock","id":"v"}"#)
        #expect(cluster.types("b", 7) == ["diff", "ack"])
    }
}

@Suite struct ClusterNodeDeathTests {
    @Test func aDeadNodesMembersLeaveThePresenceCountsOnceItsKeyStaysMissing() {
        let cluster = ClusterHarness(["a", "b", "c"])
        let game = cluster.createOnAWatchedFromB()
        cluster.open("c", 8)
        cluster.send("c", 8, #"{"type":"watch","game":"\#(game)"}"#)
        #expect(cluster["a"].hub.room(game)?.members.spectators == 2)
        // b is killed: no detach comes; its key is gone at the next look.
        cluster.deaf.insert("b")
        cluster.now += 1
        cluster.view(alive: ["a": "1", "c": "1"])
        #expect(cluster["a"].hub.room(game)?.members.spectators == 2, "a key missing a moment: a late renewal, maybe")
        cluster.now += NodeDirectory.grace
        cluster.view(alive: ["a": "1", "c": "1"])
        #expect(cluster["a"].hub.room(game)?.members.spectators == 1, "missing past the grace: its sessions end")
        _ = cluster.take("a", 1)
        cluster.now += 1
        cluster.tick("a")
        #expect(cluster.take("a", 1).last { $0["type"] == "presence" }?["spectators"] == 1)
        #expect(cluster.take("c", 8).last { $0["type"] == "presence" }?["spectators"] == 1, "other nodes' members too")
    }

    @Test func rightAfterTheLinkCameBackAMissingKeyIsARestartedRedisNotADeadNode() {
        let cluster = ClusterHarness(["a", "b"])
        let game = cluster.createOnAWatchedFromB()
        cluster.link("a", up: false)
        cluster.link("a", up: true)
        cluster.view(alive: ["a": "1"])  // Redis came back empty; b has not renewed yet
        #expect(cluster["a"].hub.room(game)?.members.spectators == 1, "not dropped while keys fill up again")
        cluster.now += NodeDirectory.settling
        cluster.view(alive: ["a": "1", "b": "1"])
        #expect(cluster["a"].hub.room(game)?.members.spectators == 1)
    }
}

/// One clock: every deadline is the event's monotonic time plus a duration.
@Suite struct ClusterClockTests {
    @Test func aSilentCatchUpWaitsItsLeaseNotAFixedPointInTime() {
        let cluster = ClusterHarness(["a", "b"])
        _ = cluster.createOnAWatchedFromB()
        _ = cluster.take("b", 7)
        // b's link drops and comes back while a hears nothing: b's catch-up is in flight.
        cluster.deaf.insert("a")
        cluster.link("b", up: false)
        cluster.link("b", up: true)
        let forwarded = cluster["b"].cluster.counters.forwarded
        cluster.now += 1
        cluster.view(alive: ["a": "1", "b": "1"])
        #expect(cluster["b"].cluster.counters.forwarded == forwarded, "still within its lease: not failed, not sent again")
        cluster.now += 3  // the harness's lease
        cluster.view(alive: ["a": "1", "b": "1"])
        #expect(cluster["b"].cluster.counters.forwarded == forwarded + 1, "past its lease: failed, and tried again")
        #expect(cluster.take("b", 7).isEmpty, "the client never hears of the node's own catch-up")
    }
}

/// Section 15 across nodes: a delayed game's spectators on another node, and chat.
@Suite struct ClusterWatchingTogetherTests {
    /// A klondike game with a 10 s delay created by connection 1 on `a`, watched by connection 7 on `b`.
    private func delayedGameWatchedFromB(_ cluster: ClusterHarness) {
        cluster.open("a", 1)
        cluster.send("a", 1, #"{"type":"create","kind":"klondike","options":{"seed":4,"delay":10}}"#)
        let game = cluster.take("a", 1)[0]["game"]!.stringValue!
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"watch","game":"\#(game)","id":"w"}"#)
    }

    @Test func aDelayedGamesSpectatorsOnAnotherNodeGetItsDelayedStream() {
        let cluster = ClusterHarness(["a", "b"])
        delayedGameWatchedFromB(cluster)
        #expect(cluster.types("b", 7) == ["joined", "snapshot", "ack"])
        cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#)
        cluster.send("a", 1, "say gl hf")
        #expect(cluster.take("b", 7).filter { $0["type"] == "diff" || $0["type"] == "chat" }.isEmpty, "nothing early")
        cluster.now += 10.2
        cluster.tick("a")
        let late = cluster.take("b", 7)
        #expect(late.filter { $0["type"] == "diff" }.map { $0["seq"] } == [1])
        #expect(late.contains { $0["type"] == "chat" && $0["text"] == "gl hf" }, "the players' chat, as late as the game")
    }

    @Test func aDelayedSpectatorThatMissedADiffGetsItBeforeTheNext() {
        let cluster = ClusterHarness(["a", "b"])
        delayedGameWatchedFromB(cluster)
        _ = cluster.take("b", 7)
        for _ in 0..<3 { cluster.send("a", 1, #"{"type":"tap","target":"/stock"}"#) }
        cluster.dropping = { node, publication in node == "b" && publication.delayed && publication.seq == 2 }
        cluster.now += 10.2
        cluster.tick("a")
        cluster.now += 10.2
        cluster.tick("a")  // the catch-up's own delayed diffs, if any, come out too
        let seqs = cluster.take("b", 7).filter { $0["type"] == "diff" }.compactMap { $0["seq"]?.intValue }
        #expect(seqs == [1, 2, 3], "every delayed diff once, in order: \(seqs)")
    }

    @Test func chatCrossesNodesAndPlayersElsewhereNeverReadTheSpectators() {
        let cluster = ClusterHarness(["a", "b", "c"])
        cluster.open("a", 1)
        cluster.send("a", 1, #"{"type":"create","kind":"klondike","options":{"seed":4}}"#)
        let created = cluster.take("a", 1)[0]
        let game = created["game"]!.stringValue!
        cluster.open("b", 7)
        cluster.send("b", 7, #"{"type":"join","game":"\#(game)","token":"\#(created["token"]!.stringValue!)"}"#)
        cluster.open("c", 8)
        cluster.send("c", 8, #"{"type":"watch","game":"\#(game)"}"#)
        _ = cluster.take("b", 7)
        _ = cluster.take("c", 8)
        cluster.send("c", 8, #"{"type":"say","text":"spectating from c","id":"s"}"#)
        let spoken = cluster.take("c", 8)
        #expect(spoken.first { $0["type"] == "chat" }?["by"] == "s1")
        #expect(spoken.last?["type"] == "ack")
        #expect(cluster.take("b", 7).filter { $0["type"] == "chat" }.isEmpty, "a player on another node never reads it")
        cluster.send("b", 7, "say hello from b")
        #expect(cluster.take("c", 8).contains { $0["type"] == "chat" && $0["by"] == "p2" && $0["room"] == "players" })
        #expect(cluster.take("a", 1).contains { $0["type"] == "chat" && $0["text"] == "hello from b" })
    }
}
