import Core

/// Who is in which game: `create`, `join` and `watch` (a resting game is loaded first),
/// the state a new member is sent (a snapshot, the diffs after `since`, or a replay, reading
/// storage for what the window no longer holds), and `leave`.
final class Admission {
    let config: Hub.Config
    let sessions: SessionTable
    let rooms: RoomTable
    let durability: Durability
    let pending: PendingTable<PendingRequest>
    let play: Play
    let solver: SolverDesk
    let lobby: LobbyFeed
    private var random: HubRandom
    /// Frames sent at once (delayed spectators' replies), flushed into the effects in order.
    var directFrames: [(ConnectionID, OutFrame)] = []
    var replies: Replies { Replies(sessions: sessions, durability: durability) }
    /// Starts every new game id: a cluster node's code where ids name their owner, else empty.
    var idPrefix = ""
    /// New games a minute per client address (PROTOCOL section 14), over all its connections.
    var createRate: CreateRatePerAddress?
    /// Retention's touches (`--retain-days`): a join or watch touches its game.
    let touches: RetentionTouches

    init(config: Hub.Config, parts: HubParts, play: Play, random: HubRandom) {
        self.config = config
        sessions = parts.sessions
        rooms = parts.rooms
        durability = parts.durability
        pending = parts.pending
        self.play = play
        solver = parts.solver
        lobby = parts.lobby
        self.random = random
        touches = RetentionTouches(rooms: parts.rooms, durability: parts.durability)
    }

    // MARK: Create

    func create(_ id: ConnectionID, kind: GameKind, options: JSON, requestID: JSON?, now: Instant,
                into effects: inout Effects) {
        let request: SeedRequest?
        do throws(ProtocolError) {
            request = try config.games.seedRequest(creating: options, kind: kind)
        } catch {
            replies.error(id, error, requestID: requestID, now: now, into: &effects)
            return
        }
        if let refusal = SignInRequirement(required: config.requireAuth).refusal(sessions[id], now: now) {
            replies.error(id, refusal, requestID: requestID, now: now, into: &effects)
            return
        }
        // In place: the table is shared by every address, and a copy per create would cost its size.
        if createRate != nil, let address = sessions[id]?.address, address != .unknown,
           case .refused(let retryAfter)? = createRate?.take(address, now: now.monotonic) {
            effects.append(.countRefusal(.createRate))
            let message = createRate?.refusalMessage(retryAfter: retryAfter) ?? "over the create rate"
            replies.error(id, ProtocolError(.limited, message), requestID: requestID, now: now, into: &effects)
            return
        }
        let origin = CommandOrigin(connection: id, requestID: requestID)
        if let request {
            // A seed that must be proven first (a game's `ProvenSeeds`, section 12): from the pool, found, or the given one proved.
            let proof = PendingProof(origin: origin, waiting: .create(kind: kind, options: options), request: request)
            if let seed = solver.provenSeed(proof, into: &effects) {
                finishCreate(origin, kind: kind, options: options, seed: ChosenSeed(value: seed.seed, pooled: seed), now: now,
                             into: &effects)
            }
            return
        }
        finishCreate(origin, kind: kind, options: options, seed: nil, now: now, into: &effects)
    }

    /// Makes the game. `seed`: a proven seed the game puts in the options in place of any.
    func finishCreate(_ origin: CommandOrigin, kind: GameKind, options: JSON, seed: ChosenSeed?, now: Instant,
                      into effects: inout Effects) {
        let id = origin.connection, requestID = origin.requestID
        var options = options
        if let seed { options = config.games.options(options, seed: seed.value, kind: kind) }
        let game: AnyGame
        let storedOptions: JSON
        do throws(ProtocolError) {
            (game, storedOptions) = try config.games.create(kind: kind, options: options, time: now.unixTime, random: &random)
        } catch {
            replies.error(id, error, requestID: requestID, now: now, into: &effects)
            return
        }
        if let refusal = play.refusal {
            replies.error(id, refusal, requestID: requestID, now: now, into: &effects)
            return
        }
        let token = Secrets.token(using: &random)
        var gameID = GameIDs.make(prefix: idPrefix, using: &random)
        while rooms.isTaken(gameID) { gameID = GameIDs.make(prefix: idPrefix, using: &random) }
        let room = GameRoom(id: gameID, game: game, tokenHash: Secrets.hash(token), options: storedOptions, created: now,
                            memory: RoomMemory(windowSize: config.windowSize, keepsEverything: !config.durable))
        let creator = room.seats.first ?? RoomMembers.firstPlayer
        if let user = sessions[id]?.signedIn(at: now) { _ = room.record(user, as: creator) }
        adopt(room, now: now, into: &effects)
        // Storage refuses the game if its id is taken there (`WriteRefusal.idTaken`): checked in
        // the write itself, so no read sits on this path.
        var batch = StoreBatch(games: [room.storedGame], provenSeedsTaken: seed?.pooled.map { [$0] } ?? [])
        batch.newGames = [gameID]
        durability.store(batch, for: room, into: &effects)
        effects.log(.info, "game created", ["game": gameID, "kind": kind.rawValue, "conn": "\(id)"])
        // The token is handed out only once the game is durable (the outbox waits for its ticket).
        leaveGame(id, now: now, into: &effects)
        room.enqueue(.reply(id, ServerMessage.created(game: gameID, token: token, key: WatchKey.of(storedOptions)).frame))
        admit(id, to: room, Admittance(asPlayer: true, seat: room.seats.first, since: nil, replay: false,
                                       requestID: requestID, isCreation: true, quiet: false), now: now, into: &effects)
        sessions.modify(id) { $0.credential = token }
    }

    /// A room enters memory (new, loaded or restored); what players who are gone left behind
    /// is given up (what belongs to connections), as the game says.
    func adopt(_ room: GameRoom, loaded: Bool = false, now: Instant, into effects: inout Effects) {
        room.showsNames = config.auth != nil
        rooms.adopt(room)
        lobby.changed()
        for player in room.game.playersHoldingConnectionState { dropSelection(of: player, in: room, now: now, into: &effects) }
        play.adopted(room, loaded: loaded, now: now, into: &effects)
    }

    /// A game rebuilt from storage after a failed write: a player who left meanwhile gives up
    /// what belonged to its connection (the departure was not applied while the game was
    /// rebuilt), and its clock and bots carry on from the stored state.
    func rebuilt(_ room: GameRoom, now: Instant, into effects: inout Effects) {
        for player in room.game.playersHoldingConnectionState where room.members.holder(of: player) == nil {
            dropSelection(of: player, in: room, now: now, into: &effects)
        }
        play.adopted(room, loaded: true, now: now, into: &effects)
        startIfEverySeatWasTaken(room, now: now, into: &effects)
    }

    // MARK: Join and watch

    /// `join` (`asPlayer`) or `watch`. A resting game is loaded first; the request waits for it,
    /// held in front of anything sent after it. A join needs the game's token, or a signed-in
    /// user who played the game (PROTOCOL section 19); a watch needs the game's key when it is
    /// watched by link only.
    func enter(_ id: ConnectionID, _ request: ClientRequest, _ entry: GameEntry, now: Instant,
               into effects: inout Effects) {
        let (gameID, asPlayer, token, quiet) = (entry.game, entry.asPlayer, entry.token, entry.quiet)
        if asPlayer && token == nil && config.auth == nil {
            replies.error(id, .bad("join needs a token"), requestID: request.id, now: now, into: &effects)
            return
        }
        if asPlayer && !quiet, let refusal = SignInRequirement(required: config.requireAuth).refusal(sessions[id], now: now) {
            replies.error(id, refusal, requestID: request.id, now: now, into: &effects)
            return
        }
        if durability.isRewinding(gameID) {
            // Being rebuilt after a failed write: answered once it is back as storage has it.
            sessions.holdFirst(id, .request(.request(request), arrival: nil))
            durability.holdForRewind(id, game: gameID)
            return
        }
        guard let room = rooms[gameID] else {
            guard GameIDs.isPlausible(gameID) else {
                replies.error(id, ProtocolError(.notFound, "no game \(gameID)"), requestID: request.id, now: now, into: &effects)
                return
            }
            // A resting game: load it, and answer this request (and any held after it) once it is back.
            sessions.holdFirst(id, .request(.request(request), arrival: nil))
            sessions.setWait(id, .gameLoad(gameID))
            rooms.awaitLoad(gameID, for: .connection(id), into: &effects)
            return
        }
        let user = sessions[id]?.signedIn(at: now)
        let placement: Placement
        switch asPlayer ? Placement.player(in: room, token: token, seat: entry.seat, user: user, by: id)
                        : Placement.spectator(in: room, key: entry.watchKey) {
        case .failure(let refusal):
            replies.error(id, refusal, requestID: request.id, now: now, into: &effects)
            return
        case .success(let place):
            placement = place
        }
        if let evicted = placement.evicts, evicted != id {
            // The user's own place, held by another of their connections: it moves here.
            leaveGame(evicted, dropSelection: false, now: now, into: &effects)
            room.enqueue(.reply(evicted, ServerMessage.left(game: room.id).frame))
        }
        leaveGame(id, now: now, into: &effects)
        admit(id, to: room, Admittance(asPlayer: asPlayer, seat: placement.seat, since: entry.since, replay: entry.replay,
                                       requestID: request.id, isCreation: false, quiet: quiet), now: now, into: &effects)
        if let token { sessions.modify(id) { $0.credential = token } }
    }

    /// A game asked for by a load is in memory (or is not there): returns the connections
    /// that waited for it, to go on with their held requests.
    /// `epoch`: with a store shared by nodes, the epoch this node claimed the game at.
    func loaded(_ gameID: String, _ result: LoadResult, epoch: Int64? = nil, now: Instant,
                into effects: inout Effects) -> [ConnectionID] {
        let waiters = rooms.takeLoadWaiters(gameID)
        var resumable: [ConnectionID] = []
        switch result {
        case .loaded(let loadedGame):
            let room = rooms[gameID] ?? {
                let room = GameRoom(loaded: loadedGame, windowSize: config.windowSize, now: now)
                // Before anything it does is stored: its writes are fenced with this epoch.
                if let epoch { room.epoch = epoch }
                adopt(room, loaded: true, now: now, into: &effects)
                return room
            }()
            for waiter in waiters {
                switch waiter {
                case .connection(let id):
                    if sessions.endWait(id, .gameLoad(gameID)) { resumable.append(id) }
                case .http(let request, let key):
                    effects.append(.respond(request, room.apiAnswer(key: key)))
                case .takeover:
                    break
                }
            }
        case .notFound, .failed:
            let error: ProtocolError
            if case .failed(let why) = result {
                effects.log(.error, "a stored game could not be loaded", ["game": gameID, "error": why])
                error = .unavailable("game \(gameID) cannot be loaded from storage now")
            } else {
                error = ProtocolError(.notFound, "no game \(gameID)")
            }
            for waiter in waiters {
                switch waiter {
                case .connection(let id):
                    guard sessions.endWait(id, .gameLoad(gameID)) else { continue }
                    // The held join or watch that asked for the game is answered here, not sent round again.
                    if case .request(let parsed, _)? = sessions.takeFirstHeld(id) {
                        switch parsed {
                        case .request(let request): replies.error(id, error, requestID: request.id, now: now, into: &effects)
                        case .failure(let other, let requestID): replies.error(id, other, requestID: requestID, now: now, into: &effects)
                        }
                    }
                    resumable.append(id)
                case .http(let request, _):
                    effects.append(.respond(request, .text(error.code == .notFound ? 404 : 503, error.message + "\n")))
                case .takeover:
                    break
                }
            }
        }
        return resumable
    }

    /// Makes a connection a member: `joined`, then its state (a snapshot, the diffs after
    /// `since`, or the state at seq 0 and every diff for a replay), then the last chat lines it may read,
    /// then the ack. Diffs older than the window come from storage first; the connection waits
    /// meanwhile. A delayed spectator is answered at once, not behind the room's outbox: what it
    /// is shown is already durable, and its audience's cursor moves on its own.
    private func admit(_ id: ConnectionID, to room: GameRoom, _ admittance: Admittance, now: Instant,
                       into effects: inout Effects) {
        let (asPlayer, seat, since, replay) = (admittance.asPlayer, admittance.seat, admittance.since, admittance.replay)
        let (requestID, isCreation, quiet) = (admittance.requestID, admittance.isCreation, admittance.quiet)
        guard sessions.isOpen(id) else { return }
        let (role, name) = room.members.add(asPlayer: asPlayer, seat: seat, id: id)
        if case .player(let player) = role {
            // Stored with the game (before anything it is told): the user takes this place back
            // after a restart or through another node, and no node hands this id out again.
            let recorded = sessions[id]?.signedIn(at: now).map { room.record($0, as: player) } ?? false
            if room.noteIssued(player) || recorded {
                durability.store(StoreBatch(games: [room.storedGame]), for: room, into: &effects)
            }
            if recorded { lobby.changed() }
        }
        let key = room.audienceKey(for: role, seat: seat)
        sessions.join(id, room: room, role: role, key: key, name: name)
        touches.note(room, now: now, into: &effects)
        room.presenceDirty = true
        rooms.memberJoined(room)
        rooms.queuePresence(room)
        let seen = room.seq(for: key)
        var catchUp = HistoryCatchUp(connection: id, room: room, after: seen, requestID: quiet ? nil : requestID,
                                     isCreation: isCreation, direct: key == .delayed, quiet: quiet)
        if !quiet {
            emit(catchUp, room.joinedFrame(role: role, seq: seen, now: now, user: sessions[id]?.signedIn(at: now)))
        }
        // A replay, or `since: 0` (the whole history, section 15): the chat said along the way
        // comes with the diffs it followed, not after them all.
        if replay || (since == 0 && !quiet) {
            if replay { emit(catchUp, room.initialSnapshotFrame(for: key.viewer, games: config.games)) }
            catchUp.after = 0
            catchUp.replaying = true
            guard durability.durable else {
                // Nothing is stored: the game keeps its whole chat in memory.
                guard let session = sessions[id] else { return }
                catchUp.chat = room.replayable(room.chat.all(of: room.readableChatRooms(for: session), through: seen),
                                               for: session, now: now)
                emitChat(&catchUp, through: 0)
                _ = continueCatchUp(catchUp, token: nil, storageHadMore: true, now: now, into: &effects)
                return
            }
            // The chat said along the way is shown with the diffs: read it first.
            let token = pending.issue(.replayChat(catchUp))
            sessions.setWait(id, .pending(token))
            let read = StorageRead.chat(token: token, game: room.id, through: seen)
            if catchUp.direct { effects.append(.read(read)) } else { room.enqueue(.afterDurable(.read(read))) }
            durability.release(room, now: now, into: &effects)
            return
        } else if let since, since <= seen {
            catchUp.after = since
        } else if quiet, let since {
            // Its client saw past this copy through the game's newer owner, so the copy is stale
            // and the store will refuse it: a snapshot of it would take the client back.
            sessions.modify(id) { $0.shownThrough = since }
        } else {
            emit(catchUp, room.snapshotFrame(for: key))
        }
        _ = continueCatchUp(catchUp, token: nil, storageHadMore: true, now: now, into: &effects)
        // Only if the catch-up waits for storage: otherwise the game started inside the reply.
        startIfEverySeatWasTaken(room, now: now, into: &effects)
    }

    /// A game with seats starts once every seat has been taken (PROTOCOL sections 13 and 16): the
    /// server issues the game's start command, stored like any command so a replay starts it at the same seq.
    func startIfEverySeatWasTaken(_ room: GameRoom, now: Instant, into effects: inout Effects) {
        guard room.everySeatTaken, let start = room.game.startCommand else { return }
        play.applyServerCommand(start, as: "server", in: room, now: now, into: &effects)
    }

    // MARK: Leave

    func leave(_ id: ConnectionID, requestID: JSON?, now: Instant, into effects: inout Effects) {
        guard let room = sessions.room(of: id) else {
            replies.error(id, ProtocolError(.notJoined, "not in a game"), requestID: requestID, now: now, into: &effects)
            return
        }
        leaveGame(id, now: now, into: &effects)
        room.enqueue(.reply(id, ServerMessage.left(game: room.id).frame))
        if let requestID { room.enqueue(.ack(id, id: requestID, seq: nil, of: .other)) }
        durability.release(room, now: now, into: &effects)
    }

    /// Takes a connection out of its game; the game may give up what the player held (what belongs
    /// to its connection), unless the game is being handed to another node, which is not this node's to change.
    func leaveGame(_ id: ConnectionID, dropSelection drops: Bool = true, now: Instant, into effects: inout Effects) {
        guard let session = sessions[id], let room = session.room else { return }
        if let move = room.members.remove(id, role: session.role, key: session.key, slot: session.recipientSlot) {
            sessions.setSlot(move.id, move.slot)
        }
        room.presenceDirty = true
        sessions.leaveRoom(id)
        rooms.queuePresence(room)
        rooms.memberLeft(room)
        if drops, case .player(let player)? = session.role { dropSelection(of: player, in: room, now: now, into: &effects) }
    }

    /// What the game does when a player leaves (its departure command, stored as a diff).
    private func dropSelection(of player: String, in room: GameRoom, now: Instant, into effects: inout Effects) {
        guard let departure = room.game.departure(of: player) else { return }
        play.applyServerCommand(departure, as: player, in: room, now: now, into: &effects)
    }
}
