import Core
import Foundation

/// A cluster node's knowledge of the others and of the sessions that cross nodes
/// (PROTOCOL section 11). Part of the hub's state: only the service thread touches it.
final class ClusterState {
    let identity: ClusterIdentity
    var linkUp = false
    /// This node's liveness key was taken by another process with its name: it must not
    /// apply commands any more (a game never has two owners).
    var fenced = false
    /// Game id codes to node names, and each live node's incarnation.
    var codes: [String: String] = [:]
    var alive: [String: String] = [:]
    /// As owner: the connections of other nodes, by `node/connection`.
    var virtuals: [String: Connection] = [:]
    var nextVirtual: ConnectionID = 1 << 62
    /// As a node serving other owners' games: its connections that have a remote session,
    /// by id, and, per remote game, those that receive its broadcasts.
    var attached: [ConnectionID: Connection] = [:]
    var audiences: [String: [ConnectionID: Connection]] = [:]
    /// The seq of the last diff passed on, per remote game; publications held while a gap is filled.
    var lastSeq: [String: Int] = [:]
    var gaps: [String: [ClusterMessage.Publication]] = [:]
    /// Forwards waiting for their game's channel to be subscribed first.
    var awaitingSubscription: [String: [ClusterMessage]] = [:]
    var forwards: [ConnectionID: Forward] = [:]
    var nextRequest: UInt64 = 0
    var remoteLobbies: [String: [LobbyEntry]] = [:]
    var apiRequests: [UInt64: (request: HTTPRequestID, deadline: Double)] = [:]
    var codeWaiters: [String: [Connection]] = [:]
    /// Every node's incarnation as last seen: a new one means the node restarted and lost its sessions.
    var knownIncarnations: [String: String] = [:]
    /// When a node's liveness key went missing.
    var missingSince: [String: Double] = [:]

    struct Forward {
        var owner: String
        var request: UInt64
        var requestID: JSON?
        var deadline: Double
        var sent: Double
        /// A join or watch: what to remember to send again, and for which game.
        var join: JSON?
        var game: String?
        /// Sent by this node to catch a member up, not by its client: the client sees only the
        /// diffs it missed (no second `joined`, no ack, no error if it fails).
        var silent = false
    }

    init(identity: ClusterIdentity) { self.identity = identity }

    var node: String { identity.node }
}

extension RaceViewer {
    /// A view as a cluster publication names it.
    var tag: String {
        switch self {
        case .spectator: return "*"
        case .seat(let seat): return seat
        }
    }
}

extension Hub {
    // MARK: Who owns a game

    /// The node that owns a game, read off the code its id starts with; nil outside a cluster.
    func owner(of game: String) -> String? {
        guard let cluster, game.utf8.count == 8 else { return nil }
        let code = String(game.prefix(2))
        if code == cluster.identity.code { return cluster.node }
        return cluster.codes[code]
    }

    func isRemote(_ game: String) -> Bool {
        guard let cluster, let owner = owner(of: game) else { return false }
        return owner != cluster.node
    }

    // MARK: Routing a local connection's request

    /// Sends a request to the node that owns its game, when that is another node; returns
    /// whether it did. The connection waits until the owner has answered it all.
    func routeToOwner(_ connection: Connection, _ request: ClientRequest, now: Double) -> Bool {
        guard let cluster, connection.remote == nil else { return false }
        switch request.command {
        case .create, .list, .forwardDone:
            return false
        case .join(let game, _, _, _), .watch(let game, _, _):
            if game.utf8.count == 8, owner(of: game) == nil, cluster.linkUp {
                // A code this node has not heard of yet (a node that just joined): ask Redis, then route.
                let code = String(game.prefix(2))
                connection.session.held.insert(HeldRequest(parsed: .request(request), arrival: nil),
                                               at: connection.session.heldHead)
                connection.session.wait = .nodeCode(code)
                if cluster.codeWaiters[code] == nil { actions.append(.redis(.lookupCode(code))) }
                cluster.codeWaiters[code, default: []].append(connection)
                return true
            }
            guard let owner = owner(of: game), owner != cluster.node else { return false }
            connection.session.remoteSeq = 0
            forward(connection, request, to: owner, game: game, now: now)
            return true
        case .leave, .show, .hint, .gesture:
            guard let attachment = connection.session.attachment else { return false }
            forward(connection, request, to: attachment.owner, game: nil, now: now)
            return true
        }
    }

    private func forward(_ connection: Connection, _ request: ClientRequest, to owner: String, game: String?, now: Double,
                         silent: Bool = false) {
        guard let cluster else { return }
        guard cluster.linkUp || silent else {
            reply(connection, error: .unavailable("the cluster's link to Redis is down; try again"), requestID: request.id)
            return
        }
        // An owner this node has never seen alive may have started a moment ago (its key
        // written after this node's last look): its requests go, and fail only if it stays
        // unseen a while. An owner seen and now gone is refused at once.
        guard cluster.alive[owner] != nil || cluster.knownIncarnations[owner] == nil || silent else {
            reply(connection, error: .unavailable("the node that owns this game cannot be reached now; try again"),
                  requestID: request.id)
            return
        }
        cluster.nextRequest += 1
        let number = cluster.nextRequest
        connection.session.wait = .remote(number)
        cluster.attached[connection.id] = connection
        let join: JSON? = game == nil ? nil : request.message
        cluster.forwards[connection.id] = ClusterState.Forward(
            owner: owner, request: number, requestID: request.id, deadline: now + cluster.identity.leaseSeconds, sent: now,
            join: join, game: game, silent: silent)
        let message = ClusterMessage.forward(from: cluster.node, connection: connection.id, request: number,
                                             message: Array(request.message.encoded.utf8))
        counters.forwarded += 1
        if let game, cluster.audiences[game] == nil && cluster.awaitingSubscription[game] == nil {
            // Subscribed before the owner answers, so no broadcast after the join is missed.
            cluster.awaitingSubscription[game] = [message]
            actions.append(.redis(.subscribe(ClusterKeys.gameChannel(game))))
        } else if let game, cluster.awaitingSubscription[game] != nil {
            cluster.awaitingSubscription[game]?.append(message)
        } else {
            actions.append(.redis(.publish(channel: ClusterKeys.nodeChannel(owner), payload: message.bytes)))
        }
    }

    /// Redis confirmed a subscription: forwards that waited for it go out.
    func subscribed(channel: String) -> [HubAction] {
        guard let cluster, channel.hasPrefix(ClusterKeys.gamePrefix) else { return [] }
        let game = String(channel.dropFirst(ClusterKeys.gamePrefix.count))
        if cluster.audiences[game] == nil { cluster.audiences[game] = [:] }
        for message in cluster.awaitingSubscription.removeValue(forKey: game) ?? [] {
            guard case .forward(_, let connection, _, _) = message, let forward = cluster.forwards[connection] else { continue }
            actions.append(.redis(.publish(channel: ClusterKeys.nodeChannel(forward.owner), payload: message.bytes)))
        }
        return takeActions()
    }

    /// A local connection leaves its remote session (it closed, or went to a game elsewhere).
    func detachRemote(_ connection: Connection) {
        guard let cluster, let attachment = connection.session.attachment else { return }
        connection.session.attachment = nil
        stopReceiving(connection, game: attachment.game)
        actions.append(.redis(.publish(channel: ClusterKeys.nodeChannel(attachment.owner),
                                       payload: ClusterMessage.detach(from: cluster.node, connection: connection.id).bytes)))
    }

    private func stopReceiving(_ connection: Connection, game: String) {
        guard let cluster else { return }
        cluster.audiences[game]?[connection.id] = nil
        if cluster.audiences[game]?.isEmpty == true && cluster.forwards.values.allSatisfy({ $0.game != game }) {
            cluster.audiences[game] = nil
            cluster.lastSeq[game] = nil
            cluster.gaps[game] = nil
            actions.append(.redis(.unsubscribe(ClusterKeys.gameChannel(game))))
        }
    }

    // MARK: Messages from other nodes

    /// A message on this node's own channel.
    func nodeMessage(_ payload: [UInt8], now: Double) -> [HubAction] {
        guard let cluster, let message = ClusterMessage.parse(payload) else { return [] }
        switch message {
        case .forward(let from, let connectionID, let request, let text):
            // As owner: the request of a connection of `from`, answered as if it were local.
            let address = RemoteAddress(node: from, connection: connectionID)
            let virtual = cluster.virtuals[address.key] ?? {
                cluster.nextVirtual += 1
                let made = Connection(id: cluster.nextVirtual, remote: address, now: now)
                cluster.virtuals[address.key] = made
                return made
            }()
            accept(virtual, ClientMessageParser.parse(text), now: now, arrival: nil)
            accept(virtual, .request(ClientRequest(id: nil, command: .forwardDone(request))), now: now, arrival: nil)
        case .detach(let from, let connectionID):
            if let virtual = cluster.virtuals.removeValue(forKey: RemoteAddress(node: from, connection: connectionID).key) {
                actions += closed(virtual, now: now)
            }
        case .apiRequest(let from, let token, let game):
            if let room = rooms[game] {
                actions.append(.redis(.publish(channel: ClusterKeys.nodeChannel(from), payload: ClusterMessage.apiAnswer(
                    token: token, status: 200, body: Array(room.lobbyEntry.json.encoded.utf8)).bytes)))
            } else {
                load(game, for: .remoteHTTP(node: from, token: token))
            }
        case .reply(let connectionID, let frame):
            if let connection = cluster.attached[connectionID] { receiveReply(frame, for: connection, now: now) }
        case .apiAnswer(let token, let status, let body):
            if let pending = cluster.apiRequests.removeValue(forKey: token) {
                let type = status == 200 ? "application/json" : "text/plain"
                actions.append(.respond(pending.request, HTTPResponse(status: status, contentType: type,
                                                                      body: String(decoding: body, as: UTF8.self))))
            }
        case .publication:
            break
        }
        return takeActions()
    }

    /// A reply from a game's owner for one of this node's connections.
    private func receiveReply(_ frame: [UInt8], for connection: Connection, now: Double) {
        guard let cluster, connection.session.isOpen else { return }
        if ClusterControl.isControl(frame) {
            guard let control = try? JSONText.parse(frame) else { return }
            switch control["type"]?.stringValue {
            case "_done":
                guard let number = control["n"]?.intValue, connection.session.wait == .remote(UInt64(number)) else { return }
                connection.session.wait = nil
                cluster.forwards[connection.id] = nil
                resume(connection, now: now)
            case "_subscribe":
                guard let game = control["game"]?.stringValue, let seq = control["seq"]?.intValue,
                      connection.session.attachment?.game == game else { return }
                // Every broadcast up to `seq` reached this node before this marker (one sender, one
                // order), so the game's stream here is current as of `seq` at least. Members that were
                // receiving and are behind it missed diffs: they join again too.
                if let last = cluster.lastSeq[game], seq > last {
                    let behind = cluster.audiences[game]?.values.filter { $0 !== connection } ?? []
                    cluster.lastSeq[game] = seq
                    if !behind.isEmpty { resyncMembers { member in behind.contains { $0 === member } } }
                } else if cluster.lastSeq[game] == nil {
                    cluster.lastSeq[game] = seq
                }
                cluster.audiences[game, default: [:]][connection.id] = connection
            default:
                break
            }
            return
        }
        let silent = cluster.forwards[connection.id]?.silent == true
        if frame.starts(with: Self.diffPrefix), let seq = Self.seq(ofDiff: frame) {
            guard seq > connection.session.remoteSeq else { return }  // it has this one already
            connection.session.remoteSeq = seq
        } else if silent && (frame.starts(with: Self.ackPrefix) || frame.starts(with: Self.errorPrefix)) {
            return
        }
        if frame.starts(with: Self.joinedPrefix), let joined = try? JSONText.parse(frame),
           let game = joined["game"]?.stringValue, let forward = cluster.forwards[connection.id] {
            // The owner took it in: whatever game it was in before, here or on another node, it left.
            if connection.session.room != nil { leaveGame(connection, now: now) }
            if let old = connection.session.attachment, old.game != game || old.owner != forward.owner {
                if old.owner == forward.owner { stopReceiving(connection, game: old.game) } else { detachRemote(connection) }
            }
            var join = forward.join ?? connection.session.attachment?.join ?? .null
            if joined["kind"] == "race", joined["role"] == "player", let seat = joined["you"]?.stringValue {
                connection.session.view = .seat(seat)
                join = join.setting("seat", to: .string(seat))  // a re-join takes the same table back
            } else {
                connection.session.view = .spectator
            }
            connection.session.attachment = Attachment(owner: forward.owner, game: game, join: join)
            if silent { return }  // the client is in this game already: it gets the diffs it missed, nothing else
        } else if frame.starts(with: Self.leftPrefix), let attachment = connection.session.attachment {
            connection.session.attachment = nil
            stopReceiving(connection, game: attachment.game)
        }
        deliver(OutFrame(bytes: frame), to: connection)
    }

    private static let joinedPrefix = Array(#"{"type":"joined""#.utf8)
    private static let leftPrefix = Array(#"{"type":"left""#.utf8)
    private static let diffPrefix = Array(#"{"type":"diff""#.utf8)
    private static let ackPrefix = Array(#"{"type":"ack""#.utf8)
    private static let errorPrefix = Array(#"{"type":"error""#.utf8)

    /// The seq of a diff frame, read without parsing the rest (`"seq":N` follows the game id).
    private static func seq(ofDiff frame: [UInt8]) -> Int? {
        let key = Array(#","seq":"#.utf8)
        guard let start = frame.firstRange(of: key)?.upperBound else { return nil }
        var value = 0
        var index = start
        while index < frame.count, frame[index] >= UInt8(ascii: "0"), frame[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int(frame[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index > start ? value : nil
    }

    /// A broadcast on a game's channel: passed to this node's members of that game, in seq
    /// order; a gap is filled from the game's stream (or the members re-join) before anything later.
    func gameMessage(game: String, payload: [UInt8], now: Double) -> [HubAction] {
        guard let cluster, case .publication(let publication)? = ClusterMessage.parse(payload) else { return [] }
        counters.received += 1
        if cluster.gaps[game] != nil {
            cluster.gaps[game]?.append(publication)
            return []
        }
        if publication.isDiff && (cluster.audiences[game]?.isEmpty ?? true) {
            // No member receives it yet (they are joining): nothing to fill, just where the stream is.
            cluster.lastSeq[game] = max(cluster.lastSeq[game] ?? 0, publication.seq)
            return []
        }
        if publication.isDiff {
            let last = cluster.lastSeq[game] ?? (publication.seq - 1)
            if publication.seq <= last { return [] }
            if publication.seq > last + 1 {
                cluster.gaps[game] = [publication]
                actions.append(.redis(.readStream(game: game)))
                return takeActions()
            }
            cluster.lastSeq[game] = publication.seq
        }
        pass(publication, of: game)
        return takeActions()
    }

    private func pass(_ publication: ClusterMessage.Publication, of game: String) {
        guard let members = cluster?.audiences[game], !members.isEmpty else { return }
        // Each part's views, read once, so members are matched by value, not by building a tag each.
        let parts = publication.parts.map { part -> (all: Bool, views: [RaceViewer]) in
            (part.views == ["all"], part.views.map { $0 == "*" ? .spectator : .seat($0) })
        }
        var groups: [Int: ContiguousArray<Connection>] = [:]
        for member in members.values {
            if publication.isDiff {
                // A member caught up through its owner's replies may have this diff already.
                guard publication.seq > member.session.remoteSeq else { continue }
                member.session.remoteSeq = publication.seq
            }
            let view = member.session.view
            if let index = parts.firstIndex(where: { $0.all || $0.views.contains(view) }) {
                groups[index, default: []].append(member)
            }
        }
        for (index, receivers) in groups {
            actions.append(.broadcast(OutFrame(bytes: publication.parts[index].frame), to: receivers, arrival: nil))
        }
    }

    /// The game's stream, read for a gap: the missing diffs, then what was held, or, when the
    /// stream no longer has them (Redis restarted), every member joins again from its seq.
    func streamRead(game: String, publications: [ClusterMessage.Publication]?) -> [HubAction] {
        guard let cluster, let held = cluster.gaps.removeValue(forKey: game) else { return [] }
        let last = cluster.lastSeq[game] ?? 0
        let firstHeld = held.first { $0.isDiff }?.seq ?? last + 1
        let missing = (publications ?? []).filter { $0.isDiff && $0.seq > last && $0.seq < firstHeld }
            .sorted { $0.seq < $1.seq }
        let complete = missing.map(\.seq) == Array(stride(from: last + 1, to: firstHeld, by: 1))
        if complete {
            counters.gapsFilled += 1
            for publication in missing {
                cluster.lastSeq[game] = publication.seq
                pass(publication, of: game)
            }
            for publication in held {
                actions += gameMessage(game: game, payload: ClusterMessage.publication(publication).bytes, now: 0)
            }
        } else {
            counters.resyncs += 1
            resyncMembers { $0.session.attachment?.game == game }
        }
        return takeActions()
    }

    /// Sends again, with `since`, the join or watch of every matching member: after its owner
    /// restarted, the link came back, or a gap could not be filled. The client sees `joined`
    /// again and the diffs it missed.
    func resyncMembers(now: Double = 0, where matches: (Connection) -> Bool) {
        guard let cluster else { return }
        for connection in Array(cluster.attached.values) where connection.session.isOpen && matches(connection) {
            guard let attachment = connection.session.attachment, connection.session.wait == nil else { continue }
            cluster.audiences[attachment.game]?[connection.id] = nil
            let message = attachment.join.setting("since", to: .int(connection.session.remoteSeq)).removing("id")
            guard case .request(let request) = ClientMessageParser.parse(message: message) else { continue }
            forward(connection, request, to: attachment.owner, game: attachment.game, now: now, silent: true)
        }
    }

    /// Redis answered which node a code belongs to (nil: none): the requests that waited go on.
    func nodeCodeFound(_ code: String, node: String?, linkFailed: Bool = false, now: Double) -> [HubAction] {
        guard let cluster else { return [] }
        if let node { cluster.codes[code] = node }
        for connection in cluster.codeWaiters.removeValue(forKey: code) ?? [] where connection.session.wait == .nodeCode(code) {
            connection.session.wait = nil
            if node == nil, let first = connection.session.takeHeld() {
                // No node has this code: no such game anywhere.
                if case .request(let request) = first.parsed {
                    let error = linkFailed ? ProtocolError.unavailable("the cluster's link to Redis is down; try again")
                        : ProtocolError(.notFound, "no game with that id")
                    reply(connection, error: error, requestID: request.id)
                }
            }
            resume(connection, now: now)
        }
        return takeActions()
    }

    // MARK: The link and the other nodes

    func clusterLink(up: Bool, now: Double) -> [HubAction] {
        guard let cluster, cluster.linkUp != up else { return [] }
        cluster.linkUp = up
        if up {
            // Broadcasts may have been missed while the link was down: every remote member catches up.
            resyncMembers(now: now) { _ in true }
        } else {
            failForwards(now: now) { _ in true }
        }
        return takeActions()
    }

    /// What the periodic look at Redis found: codes, live nodes, other nodes' lobbies.
    func clusterView(codes: [String: String], alive: [String: String], lobbies: [String: [LobbyEntry]],
                     now: Double) -> [HubAction] {
        guard let cluster else { return [] }
        let before = cluster.alive
        cluster.codes = codes
        cluster.alive = alive
        cluster.remoteLobbies = lobbies.filter { $0.key != cluster.node && alive[$0.key] != nil }
        lobbyChanged()
        // Owners gone past their lease: what waits on them is unavailable now.
        let patience = max(2, cluster.identity.leaseSeconds / 2)
        failForwards(now: now) { forward in
            let unseen = cluster.knownIncarnations[forward.owner] == nil
            return (alive[forward.owner] == nil && (!unseen || now - forward.sent >= patience)) || now > forward.deadline
        }
        // Owners back with a new incarnation lost their sessions: members join again.
        var restarted: Set<String> = []
        for (node, incarnation) in alive {
            if let known = cluster.knownIncarnations[node], known != incarnation { restarted.insert(node) }
            cluster.knownIncarnations[node] = incarnation
        }
        if !restarted.isEmpty { resyncMembers(now: now) { restarted.contains($0.session.attachment?.owner ?? "") } }
        // Members whose catch-up got lost (an owner not listening yet after a restart) try again.
        resyncMembers(now: now) { member in
            guard let attachment = member.session.attachment, alive[attachment.owner] != nil else { return false }
            return cluster.audiences[attachment.game]?[member.id] == nil
        }
        // Nodes gone for a while (not a Redis restart, after which keys come back within a
        // second or two): their connections' sessions here end. Walked only when one went.
        for node in Set(before.keys).union(cluster.knownIncarnations.keys)
        where alive[node] == nil && cluster.missingSince[node] == nil {
            cluster.missingSince[node] = now
        }
        for node in alive.keys { cluster.missingSince[node] = nil }
        let gone = Set(cluster.missingSince.filter { now - $0.value >= patience }.keys)
        for node in gone { cluster.missingSince[node] = nil }
        if !gone.isEmpty {
            for (key, virtual) in cluster.virtuals where gone.contains(virtual.remote?.node ?? "") {
                cluster.virtuals[key] = nil
                actions += closed(virtual, now: now)
            }
        }
        for (token, pending) in cluster.apiRequests where now > pending.deadline {
            cluster.apiRequests[token] = nil
            actions.append(.respond(pending.request, .text(503, "the node that owns this game cannot be reached now\n")))
        }
        return takeActions()
    }

    private func failForwards(now: Double, where failing: (ClusterState.Forward) -> Bool) {
        guard let cluster else { return }
        for (id, forward) in cluster.forwards where failing(forward) {
            cluster.forwards[id] = nil
            guard let connection = cluster.attached[id], connection.session.wait == .remote(forward.request) else { continue }
            connection.session.wait = nil
            if let game = forward.game { cluster.awaitingSubscription[game] = nil }
            if !forward.silent {
                reply(connection, error: .unavailable("the node that owns this game cannot be reached now; try again"),
                      requestID: forward.requestID)
            }
            resume(connection, now: now)
        }
    }

    /// `/api/games/GAME` of a game another node owns.
    func askOwner(_ request: HTTPRequestID, game: String, owner: String, now: Double) {
        guard let cluster, cluster.linkUp, cluster.alive[owner] != nil else {
            actions.append(.respond(request, .text(503, "the node that owns this game cannot be reached now\n")))
            return
        }
        nextToken += 1
        cluster.apiRequests[nextToken] = (request, now + cluster.identity.leaseSeconds)
        actions.append(.redis(.publish(channel: ClusterKeys.nodeChannel(owner), payload: ClusterMessage.apiRequest(
            from: cluster.node, token: nextToken, game: game).bytes)))
    }

    /// This node's own lobby entries, for the other nodes.
    var ownLobbyEntries: [LobbyEntry] { Lobby.top(rooms.values.lazy.map(\.lobbyEntry), limit: Lobby.liveLimit) }

    func fence(now: Double) -> [HubAction] {
        guard let cluster, !cluster.fenced else { return [] }
        cluster.fenced = true
        log(.critical, "another process took this node's name: it stops applying commands for its games",
            ["node": cluster.node])
        return takeActions()
    }
}

extension JSON {
    func setting(_ key: String, to value: JSON) -> JSON {
        .object((objectPairs ?? []).filter { $0.key != key } + [(key, value)])
    }

    func removing(_ key: String) -> JSON {
        .object((objectPairs ?? []).filter { $0.key != key })
    }
}

/// What a cluster node counts for `/metrics`.
struct ClusterCounters {
    var forwarded = 0
    var published = 0
    var received = 0
    var gapsFilled = 0
    var resyncs = 0
}
