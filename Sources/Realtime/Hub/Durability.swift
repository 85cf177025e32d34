import Core

/// Storage as the realtime layer sees it: the only issuer of commit tickets, the gate that
/// lets a room's output out once what it depends on is durable, and the rewind of a game
/// whose write failed (rebuilt from storage, the source of truth).
final class Durability {
    /// Without storage (`--data :memory:`) nothing waits for a commit.
    let durable: Bool
    let sessions: SessionTable
    let rooms: RoomTable
    let pending: PendingTable<PendingRequest>
    private(set) var lastTicket: UInt64 = 0
    private(set) var committed: UInt64 = 0
    /// Rooms whose outbox waits for a ticket: the only ones a commit looks at.
    var waitingRooms: [ObjectIdentifier: GameRoom] = [:]
    /// Games being rebuilt from storage after a failed write.
    var rewinding: [String: Rewind] = [:]

    /// In a store shared by nodes: this node's name, which fences every write with the epochs
    /// it holds (nil: the store has one writer).
    let fenceAs: String?

    init(durable: Bool, fenceAs: String?, sessions: SessionTable, rooms: RoomTable, pending: PendingTable<PendingRequest>) {
        self.durable = durable
        self.fenceAs = fenceAs
        self.sessions = sessions
        self.rooms = rooms
        self.pending = pending
    }

    /// Hands a batch to storage under the next ticket; the room's later output waits for it.
    func store(_ batch: StoreBatch, for room: GameRoom?, into effects: inout Effects) {
        guard durable else { return }
        var batch = batch
        if let fenceAs { batch.fence = StoreFence(node: fenceAs, epochs: room.map { [$0.id: $0.epoch] } ?? [:]) }
        lastTicket += 1
        room?.noteTicket(lastTicket)
        effects.append(.store(batch, ticket: lastTicket))
    }

    func isRewinding(_ game: String) -> Bool { rewinding[game] != nil }

    // MARK: Commits

    /// What a commit came to, beyond the output it released.
    struct Commit {
        /// Connections whose held requests may go on.
        var resumable: [ConnectionID] = []
        /// Games another node owns now (a store shared by nodes refused this node's write),
        /// taken back and still in memory, with their members: the hub hands them over.
        var lost: [(room: GameRoom, owner: GameOwnership, cutShort: Set<ConnectionID>)] = []
    }

    /// Every ticket up to `ticket` is durable: what waited for them goes out. Games storage
    /// refused are first taken back (nothing of theirs was written).
    func committed(upTo ticket: UInt64, refused: [String: WriteRefusal], now: Instant, into effects: inout Effects)
        -> Commit {
        guard ticket > committed else { return Commit() }
        var commit = Commit()
        for (game, refusal) in refused.sorted(by: { $0.key < $1.key }) {
            guard let room = rooms[game], room.waits(onAnyOf: (committed + 1)...ticket) else { continue }
            let why: String
            switch refusal {
            case .idTaken: why = "its id was taken by another game at the same moment; create it again"
            case .notOwner: why = "another node took this game over; send it again"
            case .noSuchGame: why = "the game is no longer stored"
            }
            effects.log(.warning, "storage refused a game's writes", ["game": game, "why": why])
            let taken = takeBack(room, from: committed + 1, reason: why)
            if case .notOwner(let current) = refusal {
                // Its members stay where they are for the hub to hand over; what they were
                // told after the refused write is void, and its commands get `unavailable`.
                let (resumable, cutShort) = settle(taken, now: now, into: &effects)
                commit.resumable += resumable
                commit.lost.append((room, current, cutShort))
            } else {
                commit.resumable += finish(taken, .notFound, now: now, into: &effects)
            }
        }
        committed = ticket
        for room in Array(waitingRooms.values) { release(room, now: now, into: &effects) }
        return commit
    }

    /// A game handed to another node: what it still owed its members waits for writes the
    /// store will refuse, so it is dropped, and the requests among it are answered `unavailable`
    /// (their clients send them again, to the new owner). Returns the connections whose join or
    /// watch was cut short (told so, they are no members to carry over), and those a rebuild of
    /// the game held, whose requests may go on now (to the new owner).
    func abandon(_ room: GameRoom, into effects: inout Effects) -> (cutShort: Set<ConnectionID>, released: [ConnectionID]) {
        var unanswered: [UnsentAck] = []
        var markers: [(ConnectionID, UInt64)] = []
        for output in room.discardOutput(fromTicket: committed + 1) {
            switch output {
            case .ack(let id, let requestID, let seq, let request): unanswered.append(UnsentAck(id, requestID, seq, of: request))
            case .marker(let id, let number): markers.append((id, number))
            default: break
            }
        }
        for (token, request) in pending.takeAll(where: { $0.room === room }) {
            switch request {
            case .history(let catchUp):
                _ = sessions.endWait(catchUp.connection, .pending(token))
                if let requestID = catchUp.requestID { unanswered.append(UnsentAck(catchUp.connection, requestID, nil, of: .other)) }
            case .commandLookup(let lookup):
                _ = sessions.endWait(lookup.connection, .pending(token))
                unanswered.append(UnsentAck(lookup.connection, lookup.requestID, nil, of: .command))
            default: break
            }
        }
        waitingRooms[ObjectIdentifier(room)] = nil
        // A rebuild in progress is moot: the game is another node's. Its members and waiters are
        // held no longer (as `settle` lets them go), or their later requests would wait for good.
        var released: [ConnectionID] = []
        if let rewind = rewinding.removeValue(forKey: room.id) {
            released = (rewind.members + rewind.waiters).filter { sessions.endWait($0, .rewind(room.id)) }
        }
        let cutShort = refuseHandedOver(unanswered, stored: room.releasedSeq, into: &effects)
        sendMarkers(markers, into: &effects)
        return (cutShort, released)
    }

    /// Other nodes' forwarded requests are answered in full (what was owed was sent or refused).
    func sendMarkers(_ markers: [(ConnectionID, UInt64)], into effects: inout Effects) {
        for (id, number) in markers where sessions.isOpen(id) { effects.append(.remote(.marker(id, number))) }
    }

    /// Answers `unavailable` to requests of a game another node took over (a command was not
    /// applied; a join, watch or anything else was not answered in full); a command id sent
    /// again is acked if this node stored it (`stored`: the last seq it stored). Returns the
    /// connections whose join or watch it cut short: not yet receiving the game's broadcasts.
    private func refuseHandedOver(_ unanswered: [UnsentAck], stored: Int, into effects: inout Effects) -> Set<ConnectionID> {
        let notApplied = ProtocolError.unavailable("this command was not applied: another node took this game over; send it again")
        let notAnswered = ProtocolError.unavailable("another node took this game over while this was answered; send it again")
        var cutShort: Set<ConnectionID> = []
        for ack in unanswered {
            guard let session = sessions[ack.connection] else { continue }
            switch ack.request {
            case .resent where (ack.seq ?? .max) <= stored:
                effects.send(ServerMessage.ack(id: ack.requestID, seq: ack.seq).frame, to: ack.connection)
                continue
            case .command, .resent:
                effects.send(ServerMessage.error(notApplied, id: ack.requestID).frame, to: ack.connection)
            case .other:
                effects.send(ServerMessage.error(notAnswered, id: ack.requestID).frame, to: ack.connection)
            }
            effects.append(.countError(.unavailable))
            if session.recipientSlot < 0 { cutShort.insert(ack.connection) }
        }
        return cutShort
    }

    /// A game taken back that stays in memory for now, for the hub to hand over: its refused
    /// requests answered `unavailable`, its members no longer held. Returns those that may go
    /// on, and those whose join or watch was cut short.
    private func settle(_ rewind: Rewind, now: Instant, into effects: inout Effects)
        -> (resumable: [ConnectionID], cutShort: Set<ConnectionID>) {
        let unanswered = rewind.failedAcks.map { UnsentAck($0.0, $0.1, nil, of: .command) }
            + rewind.acks.map { UnsentAck($0.0, $0.1, nil, of: .other) } + rewind.resentAcks
        let cutShort = refuseHandedOver(unanswered, stored: rewind.releasedSeq, into: &effects)
        sendMarkers(rewind.markers, into: &effects)
        waitingRooms[ObjectIdentifier(rewind.room)] = nil
        return (rewind.members.filter { sessions.endWait($0, .rewind(rewind.room.id)) }, cutShort)
    }

    /// The writes of these tickets failed (and every later one, until `resumeStorage`):
    /// nothing they carried was stored. Each game they touched is rebuilt from storage;
    /// senders of the lost commands get `unavailable`.
    func storageFailed(_ tickets: ClosedRange<UInt64>, reason: String, now: Instant, into effects: inout Effects) {
        effects.log(.error, "storage write failed; the commands it carried are refused",
                    ["tickets": "\(tickets)", "error": reason])
        for room in Array(waitingRooms.values) where room.waits(onAnyOf: tickets.lowerBound...UInt64.max) {
            release(room, now: now, into: &effects)
            let rewind = takeBack(room, from: tickets.lowerBound, reason: reason)
            rewinding[room.id] = rewind
            effects.append(.read(.load(game: room.id)))
        }
        effects.append(.resumeStorage(after: lastTicket))
    }

    // MARK: Release

    /// Sends every output of the room whose ticket is durable, in order. `now`: when they go
    /// out, which is when a delayed spectators' copy starts to count down.
    func release(_ room: GameRoom, now: Instant, into effects: inout Effects) {
        room.release(committed: durable ? committed : .max) { output, arrival in
            deliver(output, of: room, arrival: arrival, now: now, into: &effects)
        }
        // Only rooms with output waiting for storage are looked at when a commit comes in.
        if room.hasWaitingOutput { waitingRooms[ObjectIdentifier(room)] = room } else { waitingRooms[ObjectIdentifier(room)] = nil }
        if room.hasDelayedOutput { rooms.noteDelayed(room) }
    }

    private func deliver(_ output: GameRoom.Output, of room: GameRoom, arrival: Instant?, now: Instant,
                         into effects: inout Effects) {
        switch output {
        case .broadcast(let frame):
            broadcast(frame, to: room.members.audiences.keys.filter { $0 != .delayed }, of: room, arrival: arrival,
                      into: &effects)
            publish(room, frame, to: .everyLive, into: &effects)
            room.delay(.frame(frame), now: now)
        case .viewBroadcast(let frames, let seq, let command):
            var first = true
            for part in frames {
                for viewer in part.viewers {
                    for key in AudienceKey.live(for: viewer) {
                        guard let audience = room.members.audiences[key] else { continue }
                        effects.append(.broadcast(part.frame, to: audience, arrival: first ? arrival : nil))
                        first = false
                    }
                }
            }
            if room.members.hasRemote {
                effects.append(.remote(.diff(game: room.id, seq: seq, frames.map {
                    RemoteFrame(audiences: .only($0.viewers.flatMap(AudienceKey.live(for:))), frame: $0.frame)
                }, delayed: false)))
            }
            if let spectators = frames.first { room.delay(.diff(seq: seq, frame: spectators.frame, command: command), now: now) }
        case .chat(let line, let frame):
            // Players read their own room; spectators read both, the players' one as late as the game.
            var keys: [AudienceKey] = room.members.audiences.keys.filter { key in
                switch (line.room, key) {
                case (.players, .delayed): return false
                case (.players, _): return true
                case (.spectators, .seat), (.spectators, .players): return room.isOver
                case (.spectators, _): return true
                }
            }
            keys.sort()
            broadcast(frame, to: keys, of: room, arrival: nil, into: &effects)
            var readers: [AudienceKey] = [.players, .spectators] + room.seats.map(AudienceKey.seat)
            if line.room == .spectators { readers = room.isOver ? readers + [.delayed] : [.spectators, .delayed] }
            publish(room, frame, to: .only(readers), into: &effects)
            if line.room == .players { room.delay(.frame(frame), now: now) }
        case .reply(let id, let frame):
            if sessions.isOpen(id) { effects.send(frame, to: id) }
        case .ack(let id, let requestID, let seq, _):
            if sessions.isOpen(id) { effects.send(ServerMessage.ack(id: requestID, seq: seq).frame, to: id) }
        case .subscribe(let id, let seq):
            guard let session = sessions[id], session.room === room, session.recipientSlot < 0 else { return }
            sessions.setSlot(id, room.members.subscribe(id, key: session.key))
            // Another node's connection: its node passes it the game's broadcasts from here on.
            if id.isRemote { effects.append(.remote(.subscribed(id, game: room.id, audience: session.key, seq: seq))) }
        case .marker(let id, let number):
            if sessions.isOpen(id) { effects.append(.remote(.marker(id, number))) }
        case .afterDurable(let action):
            effects.append(action)
        }
    }

    private func broadcast(_ frame: OutFrame, to keys: some Sequence<AudienceKey>, of room: GameRoom, arrival: Instant?,
                           into effects: inout Effects) {
        for key in keys {
            guard let audience = room.members.audiences[key] else { continue }
            effects.append(.broadcast(frame, to: audience, arrival: arrival))
        }
    }

    /// One broadcast for every other node's members, when there are any.
    private func publish(_ room: GameRoom, _ frame: OutFrame, to audiences: RemoteFrame.Audiences,
                         delayed: Bool = false, into effects: inout Effects) {
        guard room.members.hasRemote else { return }
        effects.append(.remote(.frame(game: room.id, seq: room.seq, RemoteFrame(audiences: audiences, frame: frame),
                                      delayed: delayed)))
    }

    /// What has come due to a room's delayed spectators: one broadcast of each frame.
    func releaseDelayed(_ room: GameRoom, now: Instant, into effects: inout Effects) {
        for output in room.releaseDelayed(now: now) {
            switch output {
            case .diff(let seq, let frame, _):
                if let audience = room.members.audiences[.delayed] {
                    effects.append(.broadcast(frame, to: audience, arrival: nil))
                }
                if room.members.hasRemote {
                    effects.append(.remote(.diff(game: room.id, seq: seq, [RemoteFrame(audiences: .only([.delayed]), frame: frame)],
                                                 delayed: true)))
                }
            case .frame(let frame):
                if let audience = room.members.audiences[.delayed] {
                    effects.append(.broadcast(frame, to: audience, arrival: nil))
                }
                publish(room, frame, to: .only([.delayed]), delayed: true, into: &effects)
            }
        }
        rooms.noteDelayed(room)
    }
}
