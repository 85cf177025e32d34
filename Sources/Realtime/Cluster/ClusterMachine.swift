import Core

/// A cluster node's part of the realtime layer (PROTOCOL section 11), in front of the hub:
/// it decides where a request goes (here, or carried to its game's owner), turns what the
/// hub owes other nodes' connections into messages, and turns other nodes' messages into
/// requests the hub handles as if they were local. The hub sees local members and, per game,
/// one remote audience, and calls this type only as its `NodeLink`; nothing below this type
/// knows Redis.
final class ClusterMachine: NodeLink {
    let identity: ClusterIdentity
    /// Game ids start with their owner's code (each node keeps its own storage), unless the
    /// nodes share one store, where owners are recorded and move.
    var idsNameOwner: Bool { !nodes.sharesStore }
    var gameIDPrefix: String? { idsNameOwner ? identity.code : nil }
    private let sessions: SessionTable
    var nodes: NodeDirectory
    let feeds: RemoteFeeds
    private var owned: RemoteSessions
    /// `/api/games/GAME` asked of an owner on another node, by token.
    private let apiRequests = PendingTable<(request: HTTPRequestID, deadline: Instant)>()
    /// Connections waiting for the node behind a game id's code.
    private var codeWaiters: [String: [ConnectionID]] = [:]
    private var linkUp = false
    private var fenced = false
    private var lastRound = Instant.distantPast
    /// Views of the cluster taken so far (each a read of Redis's keys, about one a second).
    private var views = 0
    private var published = 0
    private var expiredForwards = 0
    /// How far apart nodes' clocks may be (NTP keeps them within milliseconds): an owner drops a
    /// forward this long before its sender's deadline, so that it is never applied after the
    /// sender answered `unavailable`.
    static let clockSkew = 0.5
    /// Games this node is taking over (their owner is gone), so each is claimed once.
    var takingOver: Set<String> = []
    var takeovers = 0

    init(identity: ClusterIdentity, sessions: SessionTable, sharesStore: Bool) {
        self.identity = identity
        self.sessions = sessions
        nodes = NodeDirectory(identity: identity, sharesStore: sharesStore)
        feeds = RemoteFeeds(node: identity.node, sessions: sessions)
        owned = RemoteSessions(sessions: sessions)
    }

    var counters: ClusterCounters {
        var counters = feeds.counters
        counters.published = published
        counters.expiredForwards = expiredForwards
        return counters
    }

    /// How long a request for an owner never seen alive may wait before it is unavailable.
    private var patience: Double { max(2, identity.leaseSeconds / 2) }

    /// The seq a local member of another node's game has seen (nil: in no such game).
    func seenSeq(_ id: ConnectionID) -> Int? { feeds.seenSeq(id) }

    /// Which owners a claim may take a game from now.
    var takeoverPolicy: TakeoverPolicy { nodes.takeoverPolicy }

    // MARK: Routing a local connection's request

    func route(_ id: ConnectionID, _ request: ClientRequest, now: Instant, into effects: inout Effects) -> RequestRoute {
        switch request.command {
        case .create, .list, .auth:
            return .here
        case .join(let game, _, _, _), .watch(let game, _, _, _):
            switch nodes.owner(of: game) {
            case .here, .nobody:
                return .here
            case .unknownCode(let code):
                guard linkUp else { return .here }
                // A code this node has not heard of yet (a node that just joined): ask Redis, then route.
                sessions.holdFirst(id, .request(.request(request), arrival: nil))
                sessions.setWait(id, .owner(code))
                if codeWaiters[code] == nil { effects.append(.cluster(.lookupCode(code))) }
                codeWaiters[code, default: []].append(id)
                return .elsewhere
            case .node(let owner):
                if nodes.sharesStore, nodes.isGone(owner), nodes.takeoverPolicy.allows(takingFrom: owner) {
                    // Its owner is gone: this node claims the game from the store and serves it.
                    nodes.forgetOwner(of: game)
                    return .here
                }
                feeds.clientRejoins(id)
                forward(id, request, to: owner, game: game, now: now, into: &effects)
                return .elsewhere
            }
        case .leave, .show, .hint, .gesture, .say, .mute:
            guard let membership = feeds.memberships[id] else { return .here }
            forward(id, request, to: membership.owner, game: nil, now: now, into: &effects)
            return .elsewhere
        }
    }

    private func forward(_ id: ConnectionID, _ request: ClientRequest, to owner: String, game: String?, now: Instant,
                         into effects: inout Effects) {
        guard linkUp else {
            refuse(id, .unavailable("the cluster's link to Redis is down; try again"), request.id, into: &effects)
            return
        }
        // An owner never seen alive may have started a moment ago (its key written after this
        // node's last look): its requests go, and fail only if it stays unseen a while. An
        // owner seen and now gone is refused at once.
        guard !nodes.isGone(owner) else {
            refuse(id, .unavailable("the node that owns this game cannot be reached now; try again"), request.id,
                   into: &effects)
            return
        }
        feeds.forward(id, .init(request: request, owner: owner, game: game, silent: false), now: now,
                      lease: identity.leaseSeconds, into: &effects)
    }

    private func refuse(_ id: ConnectionID, _ error: ProtocolError, _ requestID: JSON?, into effects: inout Effects) {
        effects.append(.countError(error.code))
        effects.send(ServerMessage.error(error, id: requestID).frame, to: id)
    }

    /// A request of a local connection was handled here: if that put it in a game of this
    /// node, it is no longer in a game elsewhere.
    func settle(_ id: ConnectionID, into effects: inout Effects) {
        guard sessions.room(of: id) != nil, feeds.memberships[id] != nil else { return }
        feeds.detach(id, into: &effects)
    }

    /// `/api/games/GAME` for a game another node owns: asked of the owner. True if handled.
    func routeHTTP(_ request: HTTPRequestID, path: String, query: String?, now: Instant, into effects: inout Effects) -> Bool {
        guard path.hasPrefix("/api/games/"), case .node(let owner) = nodes.owner(of: String(path.dropFirst(11))) else {
            return false
        }
        guard linkUp, nodes.isAlive(owner) else {
            effects.append(.respond(request, .text(503, "the node that owns this game cannot be reached now\n")))
            return true
        }
        let token = apiRequests.issue((request, now + identity.leaseSeconds))
        // A watch key (base64url: no `|`) goes with the game, for the owner to check.
        let key = WatchKey.fromQuery(query).map { "?key=" + $0 } ?? ""
        effects.append(.cluster(.send(node: owner, .apiRequest(from: identity.node, token: token,
                                                               game: String(path.dropFirst(11)) + key))))
        return true
    }

    func closed(_ id: ConnectionID, into effects: inout Effects) {
        if id.isRemote {
            owned.forget(id)
        } else {
            feeds.closed(id, into: &effects)
            // While the link is down they wait for it: a detach lost then leaves a seat held.
            if linkUp { feeds.sendOwedDetaches(settling: !nodes.isSettled, into: &effects) }
        }
    }

    // MARK: Events

    func receive(_ event: ClusterEvent, now: Instant, into effects: inout Effects) -> [NodeRequest] {
        switch event {
        case .link(let up):
            guard linkUp != up else { return [] }
            linkUp = up
            if !up { nodes.linkWentDown() }
            if up {
                nodes.linkCameUp(now: now)
                // Broadcasts may have been missed while the link was down: every remote member catches up.
                lastRound = .distantPast
                feeds.sendOwedDetaches(settling: !nodes.isSettled, into: &effects)
                return resync(feeds.members(where: { _ in true }), now: now, into: &effects)
            }
            return fail(feeds.failForwards { _ in true })
        case .view(let codes, let alive, let lobbies):
            return view(codes: codes, alive: alive, lobbies: lobbies, now: now, into: &effects)
        case .nodeMessage(let bytes):
            guard let envelope = ClusterEnvelope.parse(bytes) else {
                effects.log(.warning, "a malformed message on this node's channel was dropped", ["bytes": "\(bytes.count)"])
                return []
            }
            return envelopeArrived(envelope, now: now, into: &effects)
        case .gameMessage(let game, let bytes):
            guard let publication = Publication.parse(bytes) else { return [] }
            feeds.publication(publication, of: game, into: &effects)
            return resync(feeds.takeDelayedGaps(), now: now, into: &effects)
        case .subscribed(let game):
            feeds.channelSubscribed(game, into: &effects)
            return []
        case .streamRead(let game, let publications):
            return resync(feeds.streamRead(game, publications, into: &effects), now: now, into: &effects)
        case .codeFound(let code, let node, let linkFailed):
            return codeFound(code, node: node, linkFailed: linkFailed, now: now)
        case .fenced:
            guard !fenced else { return [] }
            fenced = true
            effects.log(.critical, "another process took this node's name: it stops applying commands for its games",
                        ["node": identity.node])
            return [.refuseCommands(.unavailable("this node no longer owns games: another process took its name"))]
        case .leaseLapsed:
            guard nodes.sharesStore else { return [] }
            effects.log(.warning, "this node's lease had run out: checking which of its games it still owns")
            return [.verifyOwnership]
        }
    }

    private func envelopeArrived(_ envelope: ClusterEnvelope, now: Instant, into effects: inout Effects) -> [NodeRequest] {
        switch envelope {
        case .forward(let from, let connection, let number, let expires, let message):
            // As owner: the request of another node's connection, answered as if it were local.
            // One its node has given up (this node was paused, or cut off and healed) is dropped:
            // its client heard `unavailable` and may have sent it again elsewhere, and applied
            // now it would come after that answer.
            guard now.unixTime < Double(expires) / 1000 - Self.clockSkew else {
                expiredForwards += 1
                effects.log(.info, "a request another node has given up was dropped", ["node": from])
                return []
            }
            let id = owned.session(node: from, connection: connection, now: now, view: views)
            return [.frame(id, message), .marker(id, number)]
        case .detach(let from, let connection):
            guard let id = owned.existing(node: from, connection: connection) else { return [] }
            return [.closed(id)]
        case .apiRequest(let from, let token, let game):
            let parts = game.split(separator: "?", maxSplits: 1).map(String.init)
            return [.http(owned.httpRequest(node: from, token: token), path: "/api/games/" + (parts.first ?? ""),
                          query: parts.count > 1 ? parts[1] : nil)]
        case .reply(let connection, let kind, let frame):
            let id = ConnectionID(raw: connection)
            guard !id.isRemote, sessions.isOpen(id) else { return [] }
            let outcome = feeds.reply(id, kind: kind, frame: frame, into: &effects)
            if outcome.deliver { effects.send(OutFrame(bytes: frame, kind: FrameKind(kind)), to: id) }
            if let instead = outcome.instead { effects.send(instead, to: id) }
            return outcome.leavesLocalGame ? [.leaveLocalGame(id)] : []
        case .done(let connection, let number):
            let id = ConnectionID(raw: connection)
            guard feeds.done(id, number: number) else { return [] }
            return (feeds.takeRejoin(id) ? resync([id], now: now, into: &effects) : []) + [.resume(id)]
        case .subscribed(let connection, let game, let audience, let seq):
            let behind = feeds.subscribed(ConnectionID(raw: connection), game: game, audience: audience, seq: seq)
            return resync(behind, now: now, into: &effects)
        case .forgotten(let owner):
            // Its sessions of this node's connections were closed: members there join again.
            var requests = resync(feeds.forgotten(by: owner, into: &effects), now: now, into: &effects)
            if nodes.sharesStore {
                // A node that took this one for dead may have taken its games, after the check its
                // lapsed lease made (a pause ends, the check runs, the claim lands): a game whose
                // local players wait for another's move would never hear of it.
                effects.log(.notice, "another node took this node for dead: checking which of its games it still owns",
                            ["node": owner])
                requests.append(.verifyOwnership)
            }
            return requests
        case .apiAnswer(let token, let status, let body):
            guard let pending = apiRequests.take(token) else { return [] }
            let type = status == 200 ? "application/json" : "text/plain"
            effects.append(.respond(pending.request, HTTPResponse(status: status, contentType: type,
                                                                  body: String(decoding: body, as: UTF8.self))))
            return []
        }
    }

    private func codeFound(_ code: String, node: String?, linkFailed: Bool, now: Instant) -> [NodeRequest] {
        if let node { nodes.learn(code: code, node: node) }
        var requests: [NodeRequest] = []
        for id in codeWaiters.removeValue(forKey: code) ?? [] where sessions.endWait(id, .owner(code)) {
            if node == nil, case .request(.request(let request), _)? = sessions.takeFirstHeld(id) {
                // No node has this code: no such game anywhere, once Redis has had time to hear
                // from every live node again; before that, its node may only not have said so yet.
                let error = linkFailed ? ProtocolError.unavailable("the cluster's link to Redis is down; try again")
                    : !nodes.codeAbsenceIsKnown(now: now)
                    ? ProtocolError.unavailable("the cluster is finding this game's node; try again")
                    : ProtocolError(.notFound, "no game with that id")
                requests.append(.refuse(id, error, requestID: request.id))
            } else {
                requests.append(.resume(id))
            }
        }
        return requests
    }

    /// Forwards that failed: their clients hear `unavailable` (unless the node sent them itself).
    private func fail(_ failed: [(ConnectionID, RemoteFeeds.Forward)],
                      why: String = "the node that owns this game cannot be reached now; try again") -> [NodeRequest] {
        failed.map { id, forward in
            forward.silent ? .resume(id) : .refuse(id, .unavailable(why), requestID: forward.requestID)
        }
    }

    /// Members to catch up through their owners; a command one of them waited on is given up
    /// (`RemoteFeeds.resync`), and its client hears `unavailable`.
    private func resync(_ ids: [ConnectionID], now: Instant, into effects: inout Effects) -> [NodeRequest] {
        fail(ids.compactMap { feeds.resync($0, now: now, lease: identity.leaseSeconds, into: &effects) },
             why: "this node fell behind the game; send it again")
    }

    /// What the periodic look at Redis found.
    private func view(codes: [String: String], alive: [String: String], lobbies: [String: [LobbyEntry]], now: Instant,
                      into effects: inout Effects) -> [NodeRequest] {
        let changes = nodes.read(codes: codes, alive: alive, now: now)
        views += 1
        var requests: [NodeRequest] = [.lobbies(lobbies.filter { $0.key != identity.node && alive[$0.key] != nil })]
        // Owners gone past their lease, or never seen and past the patience: what waits on them is unavailable.
        requests += fail(feeds.failForwards { forward in
            let unseenTooLong = nodes.wasNeverSeen(forward.owner) && now.since(forward.sent) >= patience
            return (!nodes.isAlive(forward.owner) && (!nodes.wasNeverSeen(forward.owner) || unseenTooLong))
                || now > forward.deadline
        })
        if linkUp {
            feeds.sendOwedDetaches(settling: !nodes.isSettled, into: &effects)
            if nodes.isSettled { feeds.repeatDetaches(into: &effects) }
        }
        // Owners back with a new incarnation lost their sessions: members join again. On a shared
        // store the new incarnation owns nothing, and a node that saw the old one die may hold its
        // games now: the store is asked who does before anyone catches up (a catch-up through the
        // restarted node went unanswered for good while the new owner's diffs passed them by).
        let orphaned = feeds.members(where: { changes.restarted.contains($0.owner) })
        if nodes.sharesStore {
            for game in feeds.ownerUnknown(orphaned, into: &effects).subtracting(takingOver).sorted() {
                takingOver.insert(game)
                requests.append(.takeOver(game))
            }
        } else {
            requests += resync(orphaned, now: now, into: &effects)
        }
        // Members whose catch-up got lost (an owner not listening yet after a restart) try again.
        requests += resync(feeds.adrift(ownerAlive: nodes.isAlive), now: now, into: &effects)
        // Nodes whose lease ran out: their connections' sessions here end, and leave the presence counts.
        for node in changes.dead.sorted() {
            effects.log(.notice, "a node's lease ran out: its connections' sessions here end", ["node": node])
        }
        // A node back as a new incarnation (killed and restarted within its lease) has none of
        // its old connections either: their seats here are free again.
        for node in changes.restarted.sorted() {
            effects.log(.notice, "a node restarted: its old connections' sessions here end", ["node": node])
        }
        for id in owned.sessions(of: changes.dead) { requests.append(.closed(id)) }
        // A node taken for dead that was only cut off or paused still has those connections, and
        // they think they are members: its members here were forgotten, and join again.
        for node in changes.revived.sorted() {
            effects.log(.notice, "a node taken for dead is back: it hears its sessions here ended", ["node": node])
            effects.append(.cluster(.send(node: node, .forgotten(from: identity.node))))
        }
        for id in owned.sessions(of: changes.restarted, bornBefore: views - 2) { requests.append(.closed(id)) }
        if nodes.sharesStore {
            // Games whose owner is gone, with members here: claimed from the store (one node wins;
            // the others learn it and send their members' requests there).
            let policy = nodes.takeoverPolicy
            let orphans = feeds.games { owner in !nodes.isAlive(owner) && policy.allows(takingFrom: owner) }
            for game in orphans.subtracting(takingOver).sorted() {
                takingOver.insert(game)
                requests.append(.takeOver(game))
            }
        }
        for (_, pending) in apiRequests.takeAll(where: { now > $0.deadline }) {
            effects.append(.respond(pending.request, .text(503, "the node that owns this game cannot be reached now\n")))
        }
        return requests
    }

    /// Once a second, the driver's round: the lease renewed, the lobby shared, the view read.
    func tick(now: Instant, lobby: @autoclosure () -> [LobbyEntry], into effects: inout Effects) -> [NodeRequest] {
        guard linkUp, now.since(lastRound) >= 1 else { return [] }
        lastRound = now
        effects.append(.cluster(.round(lobby: lobby())))
        return []
    }

    // MARK: What the hub owes other nodes

    /// Turns the hub's actions for other nodes' connections into messages to their nodes.
    func outgoing(_ actions: [HubAction]) -> [HubAction] {
        guard actions.contains(where: needsRewrite) else { return actions }
        return actions.compactMap { action in
            switch action {
            case .send(let frame, let id) where id.isRemote:
                guard let address = owned.address(of: id) else { return nil }
                return .cluster(.send(node: address.node, .reply(connection: address.connection,
                                                                 kind: ClusterEnvelope.ReplyKind(frame.kind),
                                                                 frame: frame.bytes)))
            case .close(let id, _, _) where id.isRemote:
                return nil
            case .remote(.diff(let game, let seq, let frames, let delayed)):
                published += 1
                return .cluster(.publish(game: game, Publication(isDiff: true, seq: seq, frames, delayed: delayed)))
            case .remote(.frame(let game, let seq, let frame, let delayed)):
                published += 1
                return .cluster(.publish(game: game, Publication(isDiff: false, seq: seq, [frame], delayed: delayed)))
            case .remote(.subscribed(let id, let game, let audience, let seq)):
                guard let address = owned.address(of: id) else { return nil }
                return .cluster(.send(node: address.node, .subscribed(connection: address.connection, game: game,
                                                                      audience: audience.tag, seq: seq)))
            case .remote(.marker(let id, let number)):
                guard let address = owned.address(of: id) else { return nil }
                return .cluster(.send(node: address.node, .done(connection: address.connection, request: number)))
            case .respond(let request, let response) where RemoteSessions.isRemoteHTTP(request):
                guard let asker = owned.takeHTTPRequest(request) else { return nil }
                return .cluster(.send(node: asker.node, .apiAnswer(token: asker.token, status: response.status,
                                                                   body: response.body)))
            default:
                return action
            }
        }
    }

    private func needsRewrite(_ action: HubAction) -> Bool {
        switch action {
        case .send(_, let id), .close(let id, _, _): return id.isRemote
        case .remote: return true
        case .respond(let request, _): return RemoteSessions.isRemoteHTTP(request)
        default: return false
        }
    }
}

extension ClusterMachine {
}
