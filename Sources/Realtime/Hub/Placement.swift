import Core

/// Where `join` or `watch` puts a connection in a game, decided from the game's token, the
/// signed-in user and who may watch (PROTOCOL sections 13, 16 and 19): a value, or the refusal.
struct Placement {
    /// The seat (a game with seats) or player id (a game without); nil: the next player id.
    var seat: String?
    /// Another connection holding that place now (the same user on another device).
    var evicts: ConnectionID?
}

extension Placement {
    /// A join's place: the token, or the signed-in user's own place, decides; a seat that a
    /// signed-in user played is theirs alone.
    static func player(in room: GameRoom, token: String?, seat asked: String?, user: SignedUser?,
                       by id: ConnectionID) -> Result<Placement, ProtocolError> {
        if let token, !Secrets.matches(token, hash: room.tokenHash) {
            return .failure(ProtocolError(.forbidden, "wrong token for \(room.id)"))
        }
        let own = user.flatMap { room.users.player(of: $0.id) }
        if token == nil && own == nil {
            return .failure(ProtocolError(.forbidden, user == nil
                ? "join needs the game's token (or sign in as a player of this game)"
                : "join needs the game's token: you have not played this game"))
        }
        func isOthers(_ place: String) -> Bool {
            guard let holder = room.users.holder(of: place) else { return false }
            return holder.user != user?.id
        }
        guard !room.seats.isEmpty else {
            // No seats: a signed-in player gets their own player id back; a player coming back
            // through another node (`seat`: the id its `joined` gave it) gets that id if nobody
            // holds it and it is no other user's; anyone else the next one.
            if let own { return .success(Placement(seat: own, evicts: room.members.holder(of: own))) }
            // Held by this very connection: a member joining again (a node's silent catch-up
            // sent twice) keeps its id.
            if let asked, RoomMembers.isPlayerID(asked), room.members.holder(of: asked) ?? id == id, !isOthers(asked) {
                return .success(Placement(seat: asked))
            }
            return .success(Placement())
        }
        let wanted = asked ?? own
        if let wanted, isOthers(wanted), let holder = room.users.holder(of: wanted) {
            return .failure(ProtocolError(.forbidden, "seat \(wanted) is \(holder.name)'s"))
        }
        if let wanted, wanted == own, room.seats.contains(wanted) {
            return .success(Placement(seat: wanted, evicts: room.members.holder(of: wanted)))
        }
        // A game with seats seats each player in one of its own; a dropped player takes theirs back by name.
        let open = room.peopleSeats.filter { !isOthers($0) }
        guard let free = room.members.freeSeat(asked: wanted, by: id, seats: open) else {
            let why = wanted.map { seat in
                !room.seats.contains(seat) ? "this game has no seat \(seat)"
                    : room.bots.level(of: seat) != nil ? "seat \(seat) is played by a bot"
                    : "seat \(seat) is held by another connection"
            } ?? "every seat of this game is held"
            return .failure(ProtocolError(.forbidden, why))
        }
        return .success(Placement(seat: free, evicts: nil))
    }

    /// A watch: who may watch is the game's (section 19).
    static func spectator(in room: GameRoom, key: String?) -> Result<Placement, ProtocolError> {
        switch room.watchPolicy {
        case .anyone:
            return .success(Placement())
        case .players:
            return .failure(ProtocolError(.forbidden, "this game has no spectators: only its players may see it"))
        case .link:
            guard WatchKey.matches(key, options: room.options) else {
                return .failure(ProtocolError(.forbidden, "this game is watched by link: wrong or missing key"))
            }
            return .success(Placement())
        }
    }
}
