// RemoteFeeds' forwards: requests in flight to their games' owners, and the detaches owed to owners.
import Core

extension RemoteFeeds {
    /// What `forward` carries, and to whom.
    struct Forwarding {
        var request: ClientRequest
        /// The game's owner.
        var owner: String
        /// The game a join or watch is for: its channel is subscribed to first.
        var game: String?
        /// Sent by this node to catch a member up (`Forward.silent`).
        var silent: Bool
    }

    /// Carries a request to its game's owner; the connection waits until the owner's `done`.
    /// A join or watch subscribes to the game's channel first, so no broadcast after it is missed.
    func forward(_ id: ConnectionID, _ forwarding: Forwarding, now: Instant, lease: Double, into effects: inout Effects) {
        let (request, owner) = (forwarding.request, forwarding.owner)
        lastNumber += 1
        sessions.setWait(id, .remote(lastNumber))
        // Who the connection is signed in as goes with the request, and only this node says so.
        var message = request.message.removing(SignedUser.forwardedField)
        if let user = sessions[id]?.signedIn(at: now) { message = message.setting(SignedUser.forwardedField, to: user.forwarded) }
        forwards[id] = Forward(owner: owner, number: lastNumber, requestID: request.id, deadline: now + lease, sent: now,
                               join: forwarding.game == nil ? nil : message, game: forwarding.game, silent: forwarding.silent)
        let envelope = ClusterEnvelope.forward(from: node, connection: id.raw, request: lastNumber,
                                               expires: Int64(((now + lease).unixTime * 1000).rounded()),
                                               message: Array(message.encoded.utf8))
        counters.forwarded += 1
        guard let game = forwarding.game else {
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
}
