import Core

// Taking back what storage refused or failed to write: a game rebuilt as storage has it, and
// the answers its waiting connections get.
extension Durability {
    // MARK: Rewind

    /// Takes back everything the room decided from `ticket` on, and holds its members.
    func takeBack(_ room: GameRoom, from ticket: UInt64, reason: String) -> Rewind {
        var rewind = Rewind(room: room, reason: reason)
        rewind.releasedSeq = room.releasedSeq
        for output in room.discardOutput(fromTicket: ticket) {
            switch output {
            case .ack(let id, let requestID, let seq, let request):
                if request == .command {
                    rewind.failedAcks.append((id, requestID))
                } else if request == .resent {
                    rewind.resentAcks.append(UnsentAck(id, requestID, seq, of: .resent))
                } else {
                    rewind.acks.append((id, requestID))
                    rewind.interrupted.insert(id)
                }
                rewind.note(id)
            case .marker(let id, let number):
                rewind.markers.append((id, number))
                rewind.note(id)
            case .reply(let id, _), .subscribe(let id, _):
                rewind.interrupted.insert(id)
                rewind.note(id)
            case .broadcast, .viewBroadcast, .chat, .afterDurable:
                break
            }
        }
        for id in room.members.allRecipients { rewind.note(id) }
        for (_, request) in pending.takeAll(where: { $0.room === room }) {
            switch request {
            case .history(let catchUp):
                // Its join is answered again from the rebuilt game (or refused, if it moved).
                if let requestID = catchUp.requestID { rewind.acks.append((catchUp.connection, requestID)) }
                rewind.interrupted.insert(catchUp.connection)
                rewind.note(catchUp.connection)
            case .commandLookup(let lookup):
                rewind.failedAcks.append((lookup.connection, lookup.requestID))
                rewind.note(lookup.connection)
            default: break
            }
        }
        // Every member is held until the game is back as storage has it, then told where it stands.
        for id in rewind.members where sessions.room(of: id) === room {
            sessions.setWait(id, .rewind(room.id))
        }
        return rewind
    }

    /// A join or watch of a game being rebuilt: answered once it is back.
    func holdForRewind(_ id: ConnectionID, game: String) {
        rewinding[game]?.waiters.append(id)
        sessions.setWait(id, .rewind(game))
    }

    /// The rebuilt game (or its absence) for a rewind; nil when `game` was not rewinding.
    /// Returns the connections whose held requests may go on.
    func rebuilt(_ game: String, _ result: LoadResult, now: Instant, into effects: inout Effects) -> [ConnectionID]? {
        guard var rewind = rewinding[game] else { return nil }
        if case .failed(let why) = result {
            // Storage cannot be read either (it is down): the game stays, its members held, the
            // lost commands answered now, and the rebuild tried again each second, so play
            // resumes by itself once storage is back.
            if rewind.retryAt == nil {
                effects.log(.warning, "storage cannot be read: the game waits for it", ["game": game, "error": why])
                answerFailed(rewind, into: &effects)
                rewind.failedAcks = []
            }
            rewind.retryAt = now + Self.rebuildRetry
            rewind.retrying = false
            rewinding[game] = rewind
            return []
        }
        rewinding[game] = nil
        return finish(rewind, result, now: now, into: &effects)
    }

    /// Seconds between tries to rebuild a game while storage cannot be read.
    static let rebuildRetry = 1.0

    /// Rebuilds that wait for storage and are due again.
    func retryRebuilds(now: Instant, into effects: inout Effects) {
        for (game, rewind) in rewinding.sorted(by: { $0.key < $1.key }) {
            guard let due = rewind.retryAt, due <= now, !rewind.retrying else { continue }
            rewinding[game]?.retrying = true
            effects.append(.read(.load(game: game)))
        }
    }

    /// Command ids sent again while a write failed: acked with their seq if the rebuilt game
    /// holds them (they were stored before), else refused as the lost commands are.
    func settleResent(_ rewind: Rewind, in room: GameRoom?, into effects: inout Effects) {
        let lost = ProtocolError.unavailable("storage failed, so this command was not applied: \(rewind.reason)")
        for ack in rewind.resentAcks where sessions.isOpen(ack.connection) {
            var seq: Int?
            switch room?.appliedIDs.lookup(ack.requestID.encoded) {
            case .applied(let applied)?: seq = applied
            case .maybe?: seq = (ack.seq ?? .max) <= room!.seq ? ack.seq : nil
            case .new?, nil: seq = nil
            }
            if let seq {
                effects.send(ServerMessage.ack(id: ack.requestID, seq: seq).frame, to: ack.connection)
            } else {
                effects.append(.countError(.unavailable))
                effects.send(ServerMessage.error(lost, id: ack.requestID).frame, to: ack.connection)
            }
        }
    }

    func answerFailed(_ rewind: Rewind, into effects: inout Effects) {
        let lost = ProtocolError.unavailable("storage failed, so this command was not applied: \(rewind.reason)")
        for (id, requestID) in rewind.failedAcks where sessions.isOpen(id) {
            effects.append(.countError(.unavailable))
            effects.send(ServerMessage.error(lost, id: requestID).frame, to: id)
        }
    }

    func finish(_ rewind: Rewind, _ result: LoadResult, now: Instant, into effects: inout Effects) -> [ConnectionID] {
        let room = rewind.room
        answerFailed(rewind, into: &effects)
        var resumable: [ConnectionID] = []
        switch result {
        case .loaded(let loadedGame):
            room.rewind(to: loadedGame, now: now)
            for id in rewind.members {
                guard let session = sessions[id], session.room === room else { continue }
                _ = sessions.endWait(id, .rewind(room.id))
                resumable.append(id)
                if rewind.sawEverythingStored(id, session: session, storedSeq: room.seq(for: session.key)) {
                    // Nothing it was shown is void (output waits for the store): its stream goes on
                    // untouched, with no second `joined` or snapshot (section 11 allows one only
                    // where a node's Redis link dropped).
                    continue
                }
                // It was shown less than the store holds (a join cut short, or a write whose answer
                // was lost although it committed): it gets the stored state again.
                if let role = session.role {
                    effects.send(room.joinedFrame(role: role, seq: room.seq(for: session.key), now: now), to: id)
                }
                effects.send(room.snapshotFrame(for: session.key), to: id)
                for (acked, requestID) in rewind.acks where acked == id {
                    effects.send(ServerMessage.ack(id: requestID, seq: room.seq(for: session.key)).frame, to: id)
                }
                if session.recipientSlot < 0 {
                    sessions.setSlot(id, room.members.subscribe(id, key: session.key))
                    // Another node's connection: its node must hear it too, or its member never
                    // receives the game and is caught up again from nothing.
                    if id.isRemote {
                        effects.append(.remote(.subscribed(id, game: room.id, audience: session.key, seq: room.seq(for: session.key))))
                    }
                }
            }
            settleResent(rewind, in: room, into: &effects)
        case .notFound, .failed:
            settleResent(rewind, in: nil, into: &effects)
            // Its creation was never stored (or storage cannot be read): the game is gone from memory too.
            for id in rewind.members where sessions.room(of: id) === room {
                sessions.leaveRoom(id)
                _ = sessions.endWait(id, .rewind(room.id))
                resumable.append(id)
            }
            rooms.forget(room)
            waitingRooms[ObjectIdentifier(room)] = nil
        }
        sendMarkers(rewind.markers, into: &effects)
        for id in rewind.waiters where sessions.endWait(id, .rewind(room.id)) { resumable.append(id) }
        return resumable
    }
}
