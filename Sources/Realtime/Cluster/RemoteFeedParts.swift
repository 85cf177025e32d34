import Core

/// The values `RemoteFeeds` keeps: a member of a remote game, one remote game's feed, a request
/// carried to an owner, and what the node counts.
extension RemoteFeeds {
    /// A local connection in a game another node owns.
    struct Membership {
        var owner: String
        var game: String
        /// The join or watch that put it there, to send again (with `since`) to catch it up.
        var join: JSON
        /// Its audience in the game (`AudienceKey.tag`), as the owner's marker said.
        var audience = ""
        /// The seq of the last diff it was given in the owner's replies.
        var seq: Int
        /// Its slot in its feed's audience while it receives publications; -1 before.
        var slot = -1
    }

    /// One remote game as this node receives it.
    struct Feed {
        var audiences: [String: Audience] = [:]
        var receivers = 0
        /// The seq of the last diff passed on (nil: none seen yet), live and to delayed spectators.
        var lastSeq: Int?
        var lastDelayedSeq: Int?
        /// Publications held while a gap is read from the game's stream.
        var gap: [Publication]?
        /// Redis confirmed the channel: forwards that join the game waited for that.
        var subscribed = false
        var awaiting: [(owner: String, envelope: ClusterEnvelope)] = []
        /// Delayed spectators the delayed stream skipped a seq for: to catch up through the owner.
        var resyncDue: Set<ConnectionID> = []
    }

    /// A request carried to an owner and not yet answered in full.
    struct Forward {
        var owner: String
        var number: UInt64
        var requestID: JSON?
        var deadline: Instant
        var sent: Instant
        /// A join or watch: the message, and the game it is for.
        var join: JSON?
        var game: String?
        /// Sent by this node to catch a member up, not by its client: the client sees only the
        /// diffs it missed (no second `joined`, no ack, no error if it fails).
        var silent: Bool
        /// Its ack or error came: any other is stale (an earlier forward's, given up).
        var answered = false
    }
}

/// What a cluster node counts for `/metrics`.
struct ClusterCounters: Sendable, Equatable {
    var forwarded = 0
    var published = 0
    var received = 0
    var gapsFilled = 0
    var resyncs = 0
    /// Forwards this node dropped as owner because their sender had given them up.
    var expiredForwards = 0
}

/// Word owed to owners that a connection of this node is gone. A request given up here may
/// still reach its owner and leave a session there, holding a seat that nobody answers for; a
/// connection that closes while the link to Redis is down cannot say so then. The word waits for
/// the link. What goes while the link settles goes once more after: with Redis restarted, an owner
/// may not listen again yet, and pub/sub keeps nothing for a channel nobody listens to.
struct OwedDetaches {
    typealias Detach = (owner: String, id: ConnectionID)
    private var owed: [Detach] = []
    private var toRepeat: [Detach] = []

    mutating func owe(_ id: ConnectionID, to owner: String) { owed.append((owner, id)) }

    /// What to send now, less the connections that are at that owner again (`isAt`: a member
    /// there, or a request on its way), whose session a detach would end.
    mutating func due(settling: Bool, unless isAt: (String, ConnectionID) -> Bool) -> [Detach] {
        let due = owed.filter { !isAt($0.owner, $0.id) }
        owed = []
        if settling { toRepeat += due }
        return due
    }

    /// What went while the link settled, to send once more (an owner that had it ignores it).
    mutating func dueAgain(unless isAt: (String, ConnectionID) -> Bool) -> [Detach] {
        defer { toRepeat = [] }
        return toRepeat.filter { !isAt($0.owner, $0.id) }
    }
}
