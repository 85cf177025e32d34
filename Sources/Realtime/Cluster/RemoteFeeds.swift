import Core

/// This node's connections in games that other nodes own: where each one's requests go
/// (forwards, one at a time, answered by the owner's `done`), which game's broadcasts it
/// receives, and each such game's feed: the publications passed on in seq order, a gap
/// filled from the game's stream, or the members caught up again through the owner.
final class RemoteFeeds {
    private let node: String
    private let sessions: SessionTable
    private(set) var memberships: [ConnectionID: Membership] = [:]
    private var feeds: [String: Feed] = [:]
    private(set) var forwards: [ConnectionID: Forward] = [:]
    /// Connections sent a `joined` no forward of theirs waits for (a forward given up at its
    /// deadline, answered late by a slow owner): the rest of that reply is stale too, until the
    /// owner's `done` or a `joined` that is awaited.
    private var staleJoins: Set<ConnectionID> = []
    private var lastNumber: UInt64 = 0
    private(set) var counters = ClusterCounters()

    init(node: String, sessions: SessionTable) {
        self.node = node
        self.sessions = sessions
    }

    // MARK: Forwarding

    /// Carries a request to its game's owner; the connection waits until the owner's `done`.
    /// A join or watch subscribes to the game's channel first, so no broadcast after it is missed.
    func forward(_ id: ConnectionID, _ request: ClientRequest, to owner: String, game: String?, now: Instant,
                 lease: Double, silent: Bool, into effects: inout Effects) {
        lastNumber += 1
        sessions.setWait(id, .remote(lastNumber))
        // Who the connection is signed in as goes with the request, and only this node says so.
        var message = request.message.removing(SignedUser.forwardedField)
        if let user = sessions[id]?.signedIn(at: now) { message = message.setting(SignedUser.forwardedField, to: user.forwarded) }
        forwards[id] = Forward(owner: owner, number: lastNumber, requestID: request.id, deadline: now + lease, sent: now,
                               join: game == nil ? nil : message, game: game, silent: silent)
        let envelope = ClusterEnvelope.forward(from: node, connection: id.raw, request: lastNumber,
                                               expires: Int64(((now + lease).unixTime * 1000).rounded()),
                                               message: Array(message.encoded.utf8))
        counters.forwarded += 1
        guard let game else {
            effects.append(.cluster(.send(node: owner, envelope)))
            return
        }
        if feeds[game] == nil {
            feeds[game] = Feed(awaiting: [(owner, envelope)])
            effects.append(.cluster(.subscribe(game: game)))
        } else if feeds[game]?.subscribed == false {
            feeds[game]?.awaiting.append((owner, envelope))
        } else {
            effects.append(.cluster(.send(node: owner, envelope)))
        }
    }

    /// Redis confirmed a game channel: the forwards that waited for it go out.
    func channelSubscribed(_ game: String, into effects: inout Effects) {
        guard feeds[game] != nil else { return }
        feeds[game]?.subscribed = true
        for (owner, envelope) in feeds[game]?.awaiting ?? []
        where forwards.values.contains(where: { $0.owner == owner && isForward(envelope, $0.number) }) {
            effects.append(.cluster(.send(node: owner, envelope)))
        }
        feeds[game]?.awaiting = []
    }

    /// Whether a member should join again now that its forward is done (see `rejoinAfterDone`).
    func takeRejoin(_ id: ConnectionID) -> Bool { rejoinAfterDone.remove(id) != nil }

    /// The owner's `done`: the forward is answered in full. True if it was the one waited for.
    func done(_ id: ConnectionID, number: UInt64) -> Bool {
        staleJoins.remove(id)
        guard forwards[id]?.number == number, sessions.endWait(id, .remote(number)) else { return false }
        forwards[id] = nil
        return true
    }

    /// Forwards that can no longer be answered (their owner is gone, a deadline passed, the
    /// link dropped): the connection stops waiting; its client hears `unavailable` unless the
    /// forward was the node's own.
    func failForwards(where failing: (Forward) -> Bool) -> [(ConnectionID, Forward)] {
        var failed: [(ConnectionID, Forward)] = []
        for (id, forward) in forwards.sorted(by: { $0.key < $1.key }) where failing(forward) {
            forwards[id] = nil
            owed.owe(id, to: forward.owner)
            if let game = forward.game { feeds[game]?.awaiting.removeAll { $0.owner == forward.owner && isForward($0.envelope, forward.number) } }
            if sessions.endWait(id, .remote(forward.number)) { failed.append((id, forward)) }
        }
        return failed
    }

    /// Word owed to owners that a connection of this node is gone (`OwedDetaches`).
    private var owed = OwedDetaches()

    /// Sends the detaches owed (the link is up); `settling`: see `OwedDetaches.due`.
    func sendOwedDetaches(settling: Bool, into effects: inout Effects) {
        send(owed.due(settling: settling, unless: isAt), into: &effects)
    }

    /// The link has settled: every owner listens again, and hears once more what it may have missed.
    func repeatDetaches(into effects: inout Effects) { send(owed.dueAgain(unless: isAt), into: &effects) }

    private func send(_ detaches: [OwedDetaches.Detach], into effects: inout Effects) {
        for (owner, id) in detaches { effects.append(.cluster(.send(node: owner, .detach(from: node, connection: id.raw)))) }
    }

    /// Whether a connection is a member at that owner, or has a request on its way there: a
    /// detach would end what it asked for since.
    private func isAt(_ owner: String, _ id: ConnectionID) -> Bool {
        memberships[id]?.owner == owner || forwards[id]?.owner == owner
    }

    private func isForward(_ envelope: ClusterEnvelope, _ number: UInt64) -> Bool {
        if case .forward(_, _, let n, _, _) = envelope { return n == number }
        return false
    }

    // MARK: Replies from owners

    /// What a reply from an owner asks of the node.
    struct ReplyOutcome {
        var deliver: Bool
        /// The connection joined a remote game while in a game of this node: it leaves that one.
        var leavesLocalGame = false
        /// Sent instead of the owner's frame.
        var instead: OutFrame?
    }

    /// Members whose owner answered a command `not-joined` (it took this node for dead and
    /// ended their sessions): they join again once that forward is done.
    private var rejoinAfterDone: Set<ConnectionID> = []

    /// An owner answers a forward given up (its client already heard `unavailable`) as late as it
    /// gets to it: such stale replies are dropped here, so a client gets one answer per request
    /// and no `joined` it did not ask for. Replies do not say which forward they answer, so an
    /// answer counts when it carries the waiting forward's id and is its first.
    func reply(_ id: ConnectionID, kind: ClusterEnvelope.ReplyKind, frame: [UInt8], into effects: inout Effects)
        -> ReplyOutcome {
        let silent = forwards[id]?.silent == true
        switch kind {
        case .joined(let game, _, let player):
            guard let forward = forwards[id], forward.game == game else {
                staleJoins.insert(id)
                return ReplyOutcome(deliver: false)
            }
            staleJoins.remove(id)
            // The owner took it in: whatever game it was in before, here or on another node, it left.
            let outcome = ReplyOutcome(deliver: !silent, leavesLocalGame: sessions.room(of: id) != nil)
            let old = memberships[id]
            if let old, old.game != game || old.owner != forward.owner {
                if old.owner == forward.owner { stopReceiving(id, into: &effects) } else { detach(id, into: &effects) }
            }
            var join = forward.join ?? old?.join ?? .null
            if let player {
                // A re-join takes the same seat back (in a game without seats, the same player id).
                join = join.setting("seat", to: .string(player))
            }
            let same = old?.game == game && old?.owner == forward.owner
            memberships[id] = Membership(owner: forward.owner, game: game, join: join, audience: same ? old!.audience : "",
                                         seq: same ? old?.seq ?? 0 : 0, slot: same ? old?.slot ?? -1 : -1)
            return outcome
        case .diff(let seq):
            if staleJoins.contains(id) { return ReplyOutcome(deliver: false) }
            guard let membership = memberships[id] else { return ReplyOutcome(deliver: true) }
            // A catch-up not asked by its client (one sent again, answered in turn) never
            // repeats what the feed passed it.
            let seen = forwards[id]?.silent != false ? self.seen(by: membership) : membership.seq
            guard seq > seen else { return ReplyOutcome(deliver: false) }  // it has this one already
            memberships[id]?.seq = seq
            return ReplyOutcome(deliver: true)
        case .answer:
            let answer = try? JSONText.parse(frame)
            guard let forward = forwards[id], !forward.answered, answer?["id"] == forward.requestID else {
                return ReplyOutcome(deliver: false)
            }
            forwards[id]?.answered = true
            let asked = forward.join?["type"]?.stringValue
            if asked != "join", asked != "watch", answer?["code"] == "not-joined", memberships[id] != nil {
                // The owner forgot this member (it took this node for dead): the command was not
                // applied, and the member joins again, silently, before its client's next try.
                stopReceivingToRejoin(id, into: &effects)
                rejoinAfterDone.insert(id)
                let refusal = ProtocolError.unavailable("the node that owns this game lost this connection for a moment; send it again")
                return ReplyOutcome(deliver: false, instead: ServerMessage.error(refusal, id: forward.requestID).frame)
            }
            return ReplyOutcome(deliver: !silent)
        case .left(let game):
            if memberships[id]?.game == game {
                stopReceiving(id, into: &effects)
                memberships[id] = nil
                dropFeedIfIdle(game, into: &effects)
            }
            return ReplyOutcome(deliver: true)
        case .plain:
            return ReplyOutcome(deliver: !staleJoins.contains(id))
        }
    }

    /// The owner's marker: the member's state is current as of `seq`, and it receives the
    /// game's publications from here on. Every publication up to `seq` reached this node before
    /// the marker (one sender, one order), so members that were receiving and are behind it
    /// missed diffs: they are returned, to catch up through the owner.
    func subscribed(_ id: ConnectionID, game: String, audience: String, seq: Int) -> [ConnectionID] {
        guard !staleJoins.contains(id), var membership = memberships[id], membership.game == game, membership.slot < 0,
              AudienceKey(tag: audience) != nil else { return [] }
        var behind: [ConnectionID] = []
        var feed = feeds[game] ?? Feed(subscribed: true)
        let delayed = audience == "~"
        let streamLast = delayed ? feed.lastDelayedSeq : feed.lastSeq
        if let last = streamLast, seq > last {
            behind = feed.audiences.filter { ($0.key == "~") == delayed }.values.flatMap { $0 }.sorted()
        }
        if streamLast == nil || seq > streamLast! {
            if delayed { feed.lastDelayedSeq = seq } else { feed.lastSeq = seq }
        }
        membership.audience = audience
        membership.seq = max(membership.seq, seq)
        membership.slot = feed.audiences[audience, default: []].count
        feed.audiences[audience, default: []].append(id)
        feed.receivers += 1
        feeds[game] = feed
        memberships[id] = membership
        if let last = streamLast { fellBehind(behind, seen: last) }
        return behind
    }

    /// Members that missed what the feed has moved past: they stop receiving as of what they
    /// saw, so that the join sent again on their behalf asks from there, not from the feed.
    private func fellBehind(_ ids: [ConnectionID], seen: Int) {
        var effects = Effects()  // stopping an audience member orders nothing
        for id in ids {
            guard let had = memberships[id]?.seq else { continue }
            memberships[id]?.seq = max(had, seen)
            stopReceiving(id, into: &effects)
        }
    }

    // MARK: Publications

    /// A broadcast on a game's channel, passed to this node's members of that game in seq
    /// order; a gap is read from the game's stream first (`readStream`).
    func publication(_ publication: Publication, of game: String, into effects: inout Effects) {
        counters.received += 1
        guard var feed = feeds[game] else { return }
        defer { feeds[game] = feed }
        if feed.gap != nil {
            feed.gap?.append(publication)
            return
        }
        if publication.delayed {
            // The delayed spectators' stream: its seq is theirs. It is not kept in the game's
            // stream, so a gap is caught up through the owner.
            if publication.isDiff {
                let last = feed.lastDelayedSeq ?? (publication.seq - 1)
                if publication.seq <= last { return }
                feed.lastDelayedSeq = publication.seq
                if publication.seq > last + 1, let spectators = feed.audiences["~"] {
                    feeds[game] = feed
                    fellBehind(Array(spectators), seen: last)
                    feed = feeds[game]!
                    feed.resyncDue.formUnion(spectators)
                    return
                }
            }
            pass(publication, to: feed, into: &effects)
            return
        }
        if publication.isDiff {
            if feed.receivers == 0 {
                // No member receives it yet (they are joining): nothing to fill, just where the stream is.
                feed.lastSeq = max(feed.lastSeq ?? 0, publication.seq)
                return
            }
            let last = feed.lastSeq ?? (publication.seq - 1)
            if publication.seq <= last { return }
            if publication.seq > last + 1 {
                feed.gap = [publication]
                effects.append(.cluster(.readStream(game: game)))
                return
            }
            feed.lastSeq = publication.seq
        }
        pass(publication, to: feed, into: &effects)
    }

    /// Delayed spectators of games whose delayed stream skipped a seq: to catch up through the owner.
    func takeDelayedGaps() -> [ConnectionID] {
        var behind: [ConnectionID] = []
        for (game, feed) in feeds where !feed.resyncDue.isEmpty {
            feeds[game]?.resyncDue = []
            behind += feed.resyncDue
        }
        return behind.sorted()
    }

    /// Each part's frame once, to the audiences of its views.
    private func pass(_ publication: Publication, to feed: Feed, into effects: inout Effects) {
        for part in publication.parts {
            let frame = OutFrame(bytes: part.frame, kind: publication.isDiff ? .diff(seq: publication.seq) : .plain)
            if part.views == ["all"] {
                for (tag, audience) in feed.audiences.sorted(by: { $0.key < $1.key }) where tag != "~" && !audience.isEmpty {
                    effects.append(.broadcast(frame, to: audience, arrival: nil))
                }
            } else {
                for tag in part.views {
                    guard let audience = feed.audiences[tag], !audience.isEmpty else { continue }
                    effects.append(.broadcast(frame, to: audience, arrival: nil))
                }
            }
        }
    }

    /// The game's stream, read for a gap: the missing diffs, then what was held; when the
    /// stream no longer has them (Redis restarted), returns the members to catch up through the owner.
    func streamRead(_ game: String, _ publications: [Publication]?, into effects: inout Effects) -> [ConnectionID] {
        guard var feed = feeds[game], let held = feed.gap else { return [] }
        feed.gap = nil
        let last = feed.lastSeq ?? 0
        let firstHeld = held.first { $0.isDiff }?.seq ?? last + 1
        let missing = (publications ?? []).filter { $0.isDiff && $0.seq > last && $0.seq < firstHeld }
            .sorted { $0.seq < $1.seq }
        guard missing.map(\.seq) == Array(stride(from: last + 1, to: firstHeld, by: 1)) else {
            feeds[game] = feed
            return memberships.filter { $0.value.game == game }.map(\.key).sorted()
        }
        counters.gapsFilled += 1
        for publication in missing {
            feed.lastSeq = publication.seq
            pass(publication, to: feed, into: &effects)
        }
        feeds[game] = feed
        for publication in held { self.publication(publication, of: game, into: &effects) }
        counters.received -= held.count  // counted when they first arrived
        return []
    }

    // MARK: Catching up

    /// Takes a member out of its feed's audience and sends its join again, silently, with
    /// `since` its last seq: the client gets only the diffs it missed.
    ///
    /// A member busy with a request stops receiving now all the same: the feed moves on past
    /// what it missed. A command of its that waits for the owner is given up and returned (its
    /// client hears `unavailable` and sends it again, acked with its seq if it was applied): its
    /// ack would otherwise come before the diffs missed, the one it caused among them. A join
    /// of its own brings it up to date; any other wait ends and leaves it adrift, to catch up then.
    /// `busy: .leftAlone` keeps the old way for members that move to a new owner: a busy one
    /// goes on receiving (the new owner's markers show whether it fell behind).
    func resync(_ id: ConnectionID, busy: BusyMember = .caughtUp, now: Instant, lease: Double,
                into effects: inout Effects) -> (ConnectionID, Forward)? {
        guard let membership = memberships[id], sessions.isOpen(id) else { return nil }
        guard !membership.owner.isEmpty else {
            // Whose the game is waits on a claim: its answer catches the member up (`repoint`, `takeMembers`).
            stopReceivingToRejoin(id, into: &effects)
            return nil
        }
        if busy == .leftAlone, forwards[id] != nil || sessions.wait(of: id) != nil { return nil }
        var givenUp: (ConnectionID, Forward)?
        if let forward = forwards[id] {
            let asked = forward.join?["type"]?.stringValue
            guard !forward.silent, asked != "join", asked != "watch",
                  let failed = failForwards(where: { $0.number == forward.number }).first else {
                stopReceivingToRejoin(id, into: &effects)
                return nil
            }
            givenUp = failed
        }
        guard sessions.wait(of: id) == nil else {
            stopReceivingToRejoin(id, into: &effects)
            return givenUp
        }
        let since = seen(by: membership)
        stopReceiving(id, into: &effects)
        memberships[id]?.seq = since
        counters.resyncs += 1
        effects.log(.info, "a member catches up through its game's owner",
                    ["conn": "\(id)", "game": membership.game, "owner": membership.owner, "since": "\(since)"])
        let message = membership.join.setting("since", to: .int(since)).removing("id")
        guard case .request(let request) = ClientMessageParser.parse(message: message, games: .noGameCommands) else {
            return givenUp
        }
        forward(id, request, to: membership.owner, game: membership.game, now: now, lease: lease, silent: true,
                into: &effects)
        return givenUp
    }

    enum BusyMember { case caughtUp, leftAlone }

    /// Members an owner forgot (it took this node for dead): each stops receiving as of what it
    /// has seen, to join again; those free to now are returned, the rest go adrift (and join
    /// again once their request is answered).
    func forgotten(by owner: String, into effects: inout Effects) -> [ConnectionID] {
        var now: [ConnectionID] = []
        for id in memberships.filter({ $0.value.owner == owner }).map(\.key).sorted() {
            stopReceivingToRejoin(id, into: &effects)
            if forwards[id] == nil && sessions.wait(of: id) == nil { now.append(id) }
        }
        return now
    }

    /// Members whose owner restarted, on a store shared by the nodes: its new incarnation owns
    /// nothing it owned, and another node may hold the game now. Each stops receiving as of what
    /// it saw and has no owner until the store says who it is (`repoint`, or `takeMembers` if
    /// this node's claim wins). Returns their games, to claim.
    func ownerUnknown(_ ids: [ConnectionID], into effects: inout Effects) -> Set<String> {
        var games: Set<String> = []
        for id in ids {
            guard let game = memberships[id]?.game else { continue }
            stopReceivingToRejoin(id, into: &effects)
            memberships[id]?.owner = ""
            games.insert(game)
        }
        return games
    }

    /// Stops passing a member its game's broadcasts, noting what it has seen, so that a join
    /// sent again on its behalf asks only for what it missed.
    private func stopReceivingToRejoin(_ id: ConnectionID, into effects: inout Effects) {
        guard let membership = memberships[id] else { return }
        memberships[id]?.seq = seen(by: membership)
        stopReceiving(id, into: &effects)
    }

    /// The last seq a member has: from the owner's replies, or passed by its feed while it receives.
    private func seen(by membership: Membership) -> Int {
        guard membership.slot >= 0, let feed = feeds[membership.game] else { return membership.seq }
        let fed = membership.audience == AudienceKey.delayed.tag ? feed.lastDelayedSeq : feed.lastSeq
        return max(membership.seq, fed ?? 0)
    }

    /// Members whose catch-up got lost (an owner not listening yet after a restart): in a
    /// game, not receiving, and waiting for nothing.
    func adrift(ownerAlive: (String) -> Bool) -> [ConnectionID] {
        memberships.filter { id, membership in
            membership.slot < 0 && ownerAlive(membership.owner) && forwards[id] == nil && sessions.wait(of: id) == nil
        }.map(\.key).sorted()
    }

    // MARK: Owners changing (a store shared by nodes)

    /// The game moved to another owner: its members here send their requests there from now on.
    func repoint(_ game: String, to owner: String) -> [ConnectionID] {
        let members = memberships.filter { $0.value.game == game && $0.value.owner != owner }.map(\.key).sorted()
        for id in members { memberships[id]?.owner = owner }
        return members
    }

    /// This node took the game over: its members here become members of the room here. Returns
    /// each one's join (with `since` its last seq), to admit it quietly.
    func takeMembers(of game: String, into effects: inout Effects) -> [(ConnectionID, JSON)] {
        var taken: [(ConnectionID, JSON)] = []
        for id in memberships.filter({ $0.value.game == game }).map(\.key).sorted() {
            guard let membership = memberships[id] else { continue }
            let since = seen(by: membership)
            stopReceiving(id, into: &effects)
            memberships[id] = nil
            forwards[id] = nil
            taken.append((id, membership.join.setting("since", to: .int(since)).removing("id").removing("replay")))
        }
        dropFeedIfIdle(game, into: &effects)
        return taken
    }

    /// A member of a game this node lost (another node holds it now): it becomes a member there,
    /// caught up through its new owner from what it has seen.
    func adopt(_ id: ConnectionID, game: String, owner: String, join: JSON, seen: Int) {
        memberships[id] = Membership(owner: owner, game: game, join: join, audience: "", seq: seen)
    }

    /// Games whose owner is gone, with members here: to take over (or to learn who did).
    func games(ownedBy owners: (String) -> Bool) -> Set<String> {
        Set(memberships.values.filter { owners($0.owner) }.map(\.game))
    }

    /// A client's own join or watch: the replies to it are what it asked for, whatever it had.
    func clientRejoins(_ id: ConnectionID) { memberships[id]?.seq = 0 }

    /// The seq a member of a remote game has seen (its replies' and the broadcasts passed on), for
    /// an ack this node answers itself.
    func seenSeq(_ id: ConnectionID) -> Int? { memberships[id].map(seen(by:)) }

    func members(where matches: (Membership) -> Bool) -> [ConnectionID] {
        memberships.filter { matches($0.value) }.map(\.key).sorted()
    }

    // MARK: Leaving

    /// A connection leaves its remote game (it closed, or went to a game elsewhere): its
    /// owner hears of it.
    func detach(_ id: ConnectionID, into effects: inout Effects) {
        guard let membership = memberships[id] else { return }
        stopReceiving(id, into: &effects)
        memberships[id] = nil
        effects.append(.cluster(.send(node: membership.owner, .detach(from: node, connection: id.raw))))
        dropFeedIfIdle(membership.game, into: &effects)
    }

    /// A connection closed: its owners (its game's, and a join's on its way, which makes a session
    /// there) are owed word that it is gone (`sendOwedDetaches`, once the link is up).
    func closed(_ id: ConnectionID, into effects: inout Effects) {
        staleJoins.remove(id)
        rejoinAfterDone.remove(id)
        if let membership = memberships[id] {
            stopReceiving(id, into: &effects)
            memberships[id] = nil
            owed.owe(id, to: membership.owner)
            dropFeedIfIdle(membership.game, into: &effects)
        }
        guard let forward = forwards.removeValue(forKey: id) else { return }
        owed.owe(id, to: forward.owner)
        if let game = forward.game { dropFeedIfIdle(game, into: &effects) }
    }

    private func stopReceiving(_ id: ConnectionID, into effects: inout Effects) {
        guard let membership = memberships[id], membership.slot >= 0, var feed = feeds[membership.game],
              var audience = feed.audiences[membership.audience], membership.slot < audience.count,
              audience[membership.slot] == id else { return }
        feed.audiences[membership.audience] = nil  // keep the array unique while it changes
        let last = audience.removeLast()
        if membership.slot < audience.count {
            audience[membership.slot] = last
            memberships[last]?.slot = membership.slot
        }
        if !audience.isEmpty { feed.audiences[membership.audience] = audience }
        feed.receivers -= 1
        feeds[membership.game] = feed
        memberships[id]?.slot = -1
    }

    /// A feed nobody receives or joins any more: the node stops listening to the game.
    private func dropFeedIfIdle(_ game: String, into effects: inout Effects) {
        guard let feed = feeds[game], feed.receivers == 0, !memberships.values.contains(where: { $0.game == game }),
              !forwards.values.contains(where: { $0.game == game }) else { return }
        feeds[game] = nil
        effects.append(.cluster(.unsubscribe(game: game)))
    }
}
