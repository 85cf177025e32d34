// RemoteFeeds catching members up through their game's owner, and following games whose owner changes.
import Core

extension RemoteFeeds {
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
        forward(id, Forwarding(request: request, owner: membership.owner, game: membership.game, silent: true),
                now: now, lease: lease, into: &effects)
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
    func stopReceivingToRejoin(_ id: ConnectionID, into effects: inout Effects) {
        guard let membership = memberships[id] else { return }
        memberships[id]?.seq = seen(by: membership)
        stopReceiving(id, into: &effects)
    }

    /// The last seq a member has: from the owner's replies, or passed by its feed while it receives.
    func seen(by membership: Membership) -> Int {
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
}
