import Core

/// This node's connections in games that other nodes own: where each one's requests go
/// (forwards, one at a time, answered by the owner's `done`), which game's broadcasts it
/// receives, and each such game's feed: the publications passed on in seq order, a gap
/// filled from the game's stream, or the members caught up again through the owner.
///
/// Its parts: this file (its state, owners' replies, publications), `RemoteFeeds+Forwarding.swift`
/// (forwards in flight and the detaches owed), `RemoteFeeds+CatchingUp.swift` (members caught up
/// through their owner, owners changing) and `RemoteFeeds+Leaving.swift`.
final class RemoteFeeds {
    let node: String
    let sessions: SessionTable
    var memberships: [ConnectionID: Membership] = [:]
    var feeds: [String: Feed] = [:]
    var forwards: [ConnectionID: Forward] = [:]
    /// Connections sent a `joined` no forward of theirs waits for (a forward given up at its
    /// deadline, answered late by a slow owner): the rest of that reply is stale too, until the
    /// owner's `done` or a `joined` that is awaited.
    var staleJoins: Set<ConnectionID> = []
    /// Word owed to owners that a connection of this node is gone (`OwedDetaches`).
    var owed = OwedDetaches()
    /// Members whose owner answered a command `not-joined` (it took this node for dead and
    /// ended their sessions): they join again once that forward is done.
    var rejoinAfterDone: Set<ConnectionID> = []
    var lastNumber: UInt64 = 0
    var counters = ClusterCounters()

    init(node: String, sessions: SessionTable) {
        self.node = node
        self.sessions = sessions
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
            // A diff follows the `joined` that made the connection a member. Without a membership
            // it answers a catch-up given up (the game came to this node since, or the member left):
            // the client has that seq from elsewhere, or is in no game of that owner.
            guard let membership = memberships[id] else { return ReplyOutcome(deliver: false) }
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
            // The same holds for the rest of such a reply (its events, its snapshot).
            return ReplyOutcome(deliver: !staleJoins.contains(id) && (memberships[id] != nil || forwards[id] != nil))
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
}
