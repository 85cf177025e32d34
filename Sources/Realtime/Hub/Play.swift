import Foundation
import Core

/// Commands inside a game: gestures from players (applied at most once per id), and `show`
/// and `hint` from any member. Applying a command stores it and queues its diff and events
/// for every member behind the storage ticket.
final class Play {
    private let sessions: SessionTable
    private let rooms: RoomTable
    private let durability: Durability
    private let pending: PendingTable<PendingRequest>
    private let solver: SolverDesk
    private let lobby: LobbyFeed
    private let games: GameCatalog
    /// Clocks that run out and bots due to move.
    let timers = TurnTimers()
    private var replies: Replies { Replies(sessions: sessions, durability: durability) }
    /// Set while this node must apply no command (a cluster node whose name another process took).
    var refusal: ProtocolError?
    /// `--require-auth`: chat needs a signed-in connection (section 19).
    var signIn = SignInRequirement()

    init(_ parts: HubParts, games: GameCatalog) {
        self.games = games
        sessions = parts.sessions
        rooms = parts.rooms
        durability = parts.durability
        pending = parts.pending
        solver = parts.solver
        lobby = parts.lobby
    }

    // MARK: Gestures

    func gesture(_ origin: CommandOrigin, type: String, message: JSON, now: Instant, into effects: inout Effects) {
        let id = origin.connection, requestID = origin.requestID
        guard let session = sessions[id], let room = session.room else {
            do {
                try games.validateForAnyKind(type: type, message: message)
                replies.error(id, ProtocolError(.notJoined, "\(type) needs a game: create, join or watch one"),
                              requestID: requestID, now: now, into: &effects)
            } catch {
                replies.error(id, error, requestID: requestID, now: now, into: &effects)
            }
            return
        }
        var parsed: ParsedGesture
        do {
            parsed = try games.parse(type: type, message: message, kind: room.kind)
        } catch {
            replies.error(id, error, requestID: requestID, now: now, into: &effects)
            return
        }
        guard session.role?.isPlayer == true else {
            replies.error(id, ProtocolError(.forbidden, "spectators cannot \(type)"), requestID: requestID, now: now, into: &effects)
            return
        }
        if type == "reset", let options = message["options"], options["bots"] != nil || options["bot"] != nil {
            // Section 18: `bots` in a reset's options seats the next game's bots; stored with the
            // reset (the layer's field, beside the game's own), so a replay seats them again.
            do throws(ProtocolError) {
                let bots = try BotSeats.read(options, seats: room.seats, levels: room.game.botLevels)
                try room.game.checkBots(creating: options)
                if let held = bots.seats.first(where: room.members.isHeld) {
                    throw ProtocolError(.forbidden, "seat \(held) is held by a player: a bot takes a free seat")
                }
                parsed.stored = parsed.stored.setting("bots", to: bots.json)
            } catch {
                replies.error(id, error, requestID: requestID, now: now, into: &effects)
                return
            }
        }
        if let requestID {
            switch room.appliedIDs.lookup(requestID.encoded) {
            case .applied(let seq):
                room.enqueue(.ack(id, id: requestID, seq: seq, of: .resent))
                durability.release(room, now: now, into: &effects)
                return
            case .maybe:
                // Applied long ago, or a hash collision: storage knows. The connection waits for the answer.
                let token = pending.issue(.commandLookup(PendingLookup(connection: id, room: room, gesture: parsed,
                                                                       requestID: requestID, arrival: origin.arrival)))
                sessions.setWait(id, .pending(token))
                room.enqueue(.afterDurable(.read(.command(token: token, game: room.id, clientID: requestID.encoded))))
                durability.release(room, now: now, into: &effects)
                return
            case .new:
                break
            }
        }
        proveThenApply(origin, parsed, in: room, now: now, into: &effects)
    }

    /// A command whose id is new: applied now, or once the seed it asks for is proven. After the
    /// applied-id check, so that a command sent again is acked, not applied with a new seed.
    private func proveThenApply(_ origin: CommandOrigin, _ parsed: ParsedGesture, in room: GameRoom, now: Instant,
                                into effects: inout Effects) {
        if let request = room.game.seedRequest(for: parsed) {
            let proof = PendingProof(origin: origin, waiting: .command(room: room, gesture: parsed), request: request)
            if let seed = solver.provenSeed(proof, into: &effects) {
                applyGesture(origin, room.game.seeded(parsed, seed: seed.seed), in: room, now: now, poolSeed: seed,
                             into: &effects)
            }
            return
        }
        applyGesture(origin, parsed, in: room, now: now, into: &effects)
    }

    /// Storage found (or not) an old command id: acked with its seq, or applied now.
    func commandFound(_ lookup: PendingLookup, token: UInt64, seq: Int?, now: Instant, into effects: inout Effects) {
        let id = lookup.connection
        guard sessions.endWait(id, .pending(token)) else { return }
        if let seq {
            lookup.room.enqueue(.ack(id, id: lookup.requestID, seq: seq, of: .resent))
            durability.release(lookup.room, now: now, into: &effects)
        } else if sessions.room(of: id) === lookup.room {
            proveThenApply(CommandOrigin(connection: id, requestID: lookup.requestID, arrival: lookup.arrival),
                           lookup.gesture, in: lookup.room, now: now, into: &effects)
        }
    }

    func applyGesture(_ origin: CommandOrigin, _ parsed: ParsedGesture, in room: GameRoom, now: Instant,
                      poolSeed: ProvenSeed? = nil, into effects: inout Effects) {
        let id = origin.connection, requestID = origin.requestID
        guard case .player(let player)? = sessions[id]?.role else { return }
        if let refusal {
            replies.error(id, refusal, requestID: requestID, now: now, into: &effects)
            return
        }
        let source = CommandSource(player: player, clientID: requestID?.encoded, arrival: origin.arrival)
        switch apply(parsed, from: source, in: room, now: now, poolSeed: poolSeed, into: &effects) {
        case .success:
            if let requestID { room.enqueue(.ack(id, id: requestID, seq: room.seq, of: .command)) }
        case .failure(let error):
            replies.error(id, ProtocolError(error), requestID: requestID, now: now, into: &effects)
        }
        durability.release(room, now: now, into: &effects)
    }

    /// Applies one command to a room: the diff and events are queued for every member
    /// and the command goes to storage. Nothing changes if the game refuses it.
    @discardableResult
    func apply(_ parsed: ParsedGesture, from source: CommandSource, in room: GameRoom, now: Instant,
               poolSeed: ProvenSeed? = nil, into effects: inout Effects) -> Result<Void, GameError> {
        let (frames, events, applied): ([GameRoom.ViewFrame], [GameEvent], AppliedCommand)
        switch room.apply(parsed.command, cause: parsed.cause, player: source.player, author: source.author,
                          clientID: source.clientID, now: now) {
        case .success(let outcome): (frames, events, applied) = outcome
        case .failure(let error): return .failure(error)
        }
        if let bots = parsed.stored["bots"] { room.seatBots(bots) }
        timers.changed(room, now: now)
        let row = StoredCommand(game: room.id, seq: room.seq, command: source.author.stored(parsed.stored),
                                player: source.player, clientID: source.clientID,
                                time: now.unixTime, diff: frames.first?.frame.text)
        durability.store(StoreBatch(games: [room.storedGame], commands: [row],
                                    provenSeedsTaken: poolSeed.map { [$0] } ?? []), for: room, into: &effects)
        room.enqueue(.viewBroadcast(frames, seq: room.seq, command: applied), arrival: source.arrival)
        for event in events {
            room.enqueue(.broadcast(ServerMessage.event(game: room.id, seq: room.seq, event: event).frame))
        }
        lobby.changed()
        return .success(())
    }

    /// A command the server issues itself (a start once every seat is taken, a departed player's
    /// selection), stored like any other so a replay issues it at the same seq.
    func applyServerCommand(_ parsed: ParsedGesture, as player: String, author: CommandAuthor = .player, in room: GameRoom,
                            now: Instant, into effects: inout Effects) {
        // A game being rebuilt after a failed write is not what storage holds: a command applied
        // to it now would be stored after a seq that never was (a gap no load gets past). What it
        // stood for is decided again once the game is back (`rebuilt`).
        guard !durability.isRewinding(room.id) else { return }
        apply(parsed, from: CommandSource(player: player, author: author), in: room, now: now, into: &effects)
        durability.release(room, now: now, into: &effects)
    }

    // MARK: Clocks and bots (sections 17 and 18)

    /// A game came into memory: a clock that was running gives back the time the failure took
    /// (`resume`), and its bots carry on.
    func adopted(_ room: GameRoom, loaded: Bool, now: Instant, into effects: inout Effects) {
        if loaded && room.game.clockRunning {
            applyServerCommand(ClockResume.parsed, as: "server", author: .clock, in: room, now: now, into: &effects)
        }
        timers.changed(room, now: now)
    }

    /// What came due: a clock that ran out ends the game; a bot starts thinking off the service thread.
    func turnsDue(now: Instant, isLive: (GameRoom) -> Bool, seed: () -> UInt64, into effects: inout Effects) {
        for (room, due) in timers.popDue(now: now) {
            guard isLive(room) else {
                if case .bot(let seat) = due { timers.botDone(room, seat: seat) }
                continue
            }
            switch due {
            case .clock:
                guard let seat = room.game.clock?.runningSeat, let deadline = room.game.clockDeadline,
                      deadline <= now.unixTime + 0.001, let timeout = room.game.timeout(of: seat) else { continue }
                applyServerCommand(timeout, as: "server", author: .clock, in: room, now: now, into: &effects)
            case .bot(let seat):
                guard room.game.awaits(seat), let level = room.bots.level(of: seat) else {
                    timers.botDone(room, seat: seat)
                    continue
                }
                let token = pending.issue(.bot(room, seat: seat))
                effects.append(.solve(.bot(token: token, game: room.game, seat: seat, level: level, seed: seed())))
            }
        }
    }

    /// A bot's move, thought of: played as its seat's command, `"bot":true` in its cause.
    func botMoved(_ room: GameRoom, seat: String, _ move: ParsedGesture?, isLive: Bool, now: Instant,
                  into effects: inout Effects) {
        timers.botDone(room, seat: seat)
        guard isLive, room.game.awaits(seat), let move else { return }
        if let refusal {
            effects.log(.warning, "a bot's move was not applied", ["game": room.id, "why": refusal.message])
            return
        }
        if case .failure(let error) = apply(move, from: CommandSource(player: seat, author: .bot), in: room, now: now,
                                            into: &effects) {
            effects.log(.warning, "a bot's move was refused", ["game": room.id, "seat": seat, "why": error.message])
            timers.changed(room, now: now)
        }
        durability.release(room, now: now, into: &effects)
    }

    // MARK: Show and hint

    func show(_ id: ConnectionID, requestID: JSON?, now: Instant, into effects: inout Effects) {
        guard let session = sessions[id], let room = session.room else {
            replies.error(id, ProtocolError(.notJoined, "show needs a game: join or watch one"), requestID: requestID,
                          now: now, into: &effects)
            return
        }
        replies.answer(id, room.textBoardFrames(for: session.key), requestID: requestID, now: now, into: &effects)
    }

    func hint(_ id: ConnectionID, requestID: JSON?, now: Instant, into effects: inout Effects) {
        guard let session = sessions[id], let room = session.room else {
            replies.error(id, ProtocolError(.notJoined, "hint needs a game: join or watch one"), requestID: requestID,
                          now: now, into: &effects)
            return
        }
        // A delayed spectator asks about the game as it sees it, never about what it has not seen yet.
        let game = room.game(for: session.key)
        let asker = HintContext(viewer: session.view, isPlayer: session.role?.isPlayer == true, againstBot: !room.bots.isEmpty)
        switch game.hintPlan(for: asker) {
        case .refused(let why):
            replies.error(id, ProtocolError(why), requestID: requestID, now: now, into: &effects)
        case .search(let key):
            if let answer = solver.hint(key, of: game, for: session.view, asker: CommandOrigin(connection: id, requestID: requestID),
                                        into: &effects) {
                answerHint(id, answer, requestID: requestID, now: now, into: &effects)
            }
        }
    }

    func answerHint(_ id: ConnectionID, _ answer: Hint, requestID: JSON?, now: Instant, into effects: inout Effects) {
        replies.answer(id, [ServerMessage.hint(answer).frame],
                       requestID: requestID, now: now, into: &effects)
    }

    // MARK: Chat

    /// `say`: a line in one of the game's chat rooms, stored with the game and sent, behind the
    /// game's other output, to every member who may read that room (PROTOCOL section 15).
    func say(_ id: ConnectionID, text: String, to asked: ChatRoom?, requestID: JSON?, now: Instant,
             into effects: inout Effects) {
        guard let session = sessions[id], let room = session.room, let name = session.name else {
            replies.error(id, ProtocolError(.notJoined, "say needs a game: join or watch one"), requestID: requestID,
                          now: now, into: &effects)
            return
        }
        if let refusal = signIn.refusal(session, now: now) {
            replies.error(id, refusal, requestID: requestID, now: now, into: &effects)
            return
        }
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxChatCharacters).contains(text.count) else {
            replies.error(id, .bad("chat text is 1 to \(Self.maxChatCharacters) characters after trimming"),
                          requestID: requestID, now: now, into: &effects)
            return
        }
        let own: ChatRoom = session.role?.isPlayer == true ? .players : .spectators
        let chatRoom = asked ?? own
        guard chatRoom == own else {
            let why = own == .players ? "players write to the players' room" : "spectators write to the spectators' room"
            replies.error(id, ProtocolError(.forbidden, why), requestID: requestID, now: now, into: &effects)
            return
        }
        if own == .spectators, room.members.isMuted(name, endings: room.endings) {
            replies.error(id, ProtocolError(.forbidden, "a player muted you in this game's chat until the game ends"),
                          requestID: requestID, now: now, into: &effects)
            return
        }
        if let wait = sessions.modify(id, { $0.chatTimes.take(now: now.monotonic) }) ?? nil {
            effects.append(.countRefusal(.chatRate))
            replies.error(id, ProtocolError(.limited, "chat is limited to \(RecentLimit.chat.count) lines in \(Int(RecentLimit.chat.window)) s: "
                                            + "try again in \(Int(wait.rounded(.up))) s"),
                          requestID: requestID, now: now, into: &effects)
            return
        }
        let line = room.chat.add(room: chatRoom, by: name, text: text, seq: room.seq, at: now.unixTime,
                                 name: own == .spectators ? session.signedIn(at: now)?.name : nil)
        var batch = StoreBatch()
        batch.chat = [line.stored(game: room.id)]
        durability.store(batch, for: room, into: &effects)
        room.enqueue(.chat(line, room.chatFrame(line)))
        if let requestID { room.enqueue(.ack(id, id: requestID, seq: room.seq(for: session.key), of: .command)) }
        durability.release(room, now: now, into: &effects)
    }

    static let maxChatCharacters = 280

    /// `mute`: a player stops a spectator writing in the game's chat until the game ends.
    func mute(_ id: ConnectionID, who: String, requestID: JSON?, now: Instant, into effects: inout Effects) {
        guard let session = sessions[id], let room = session.room else {
            replies.error(id, ProtocolError(.notJoined, "mute needs a game: join one as a player"), requestID: requestID,
                          now: now, into: &effects)
            return
        }
        guard session.role?.isPlayer == true else {
            replies.error(id, ProtocolError(.forbidden, "only players mute spectators"), requestID: requestID, now: now,
                          into: &effects)
            return
        }
        guard room.members.gaveOut(spectator: who) else {
            replies.error(id, .bad("no spectator \(who) in this game: spectators are s1, s2, ..."), requestID: requestID,
                          now: now, into: &effects)
            return
        }
        room.members.mute(who, endings: room.endings)
        replies.answer(id, [], requestID: requestID, now: now, into: &effects)
    }
}
