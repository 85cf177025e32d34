import Core

// A member's catch-up past the diff window (stored diffs read page by page, then the chat it may
// read): a part of admitting a connection with a story of its own, read from storage off-thread.
extension Admission {
    /// Sends a frame of a member's reply: behind the room's outbox, or at once for a delayed spectator.
    func emit(_ catchUp: HistoryCatchUp, _ frame: OutFrame) {
        if catchUp.direct {
            directFrames.append((catchUp.connection, frame))
        } else {
            catchUp.room.enqueue(.reply(catchUp.connection, frame))
        }
    }


    func flushDirect(into effects: inout Effects) {
        for (id, frame) in directFrames where sessions.isOpen(id) { effects.send(frame, to: id) }
        directFrames = []
    }

    /// Sends the diffs after `catchUp.after` from the window if it holds them (then the
    /// member's chat, then it receives broadcasts, and its ack ends the reply), else asks
    /// storage for the next page, once everything before is durable so no page comes up short.
    /// Returns whether the catch-up is complete.
    func continueCatchUp(_ catchUp: HistoryCatchUp, token: UInt64?, storageHadMore: Bool, now: Instant,
                                 into effects: inout Effects) -> Bool {
        let id = catchUp.connection
        let room = catchUp.room
        guard let session = sessions[id] else { return false }
        var catchUp = catchUp
        let through = room.seq(for: session.key)
        if let frames = room.window.frames(after: catchUp.after, through: through) {
            for (offset, frame) in frames.enumerated() {
                emit(catchUp, room.frame(frame, for: session.view))
                emitChat(&catchUp, through: catchUp.after + offset + 1)
            }
            emitChat(&catchUp, through: .max)
            if !catchUp.replaying && !catchUp.quiet {
                for line in room.recentChat(for: session, now: now) { emit(catchUp, room.chatFrame(line)) }
            }
            if catchUp.direct {
                flushDirect(into: &effects)
                if session.recipientSlot < 0 { sessions.setSlot(id, room.members.subscribe(id, key: session.key)) }
                if id.isRemote {
                    effects.append(.remote(.subscribed(id, game: room.id, audience: session.key, seq: through)))
                }
                if let requestID = catchUp.requestID {
                    effects.send(ServerMessage.ack(id: requestID, seq: through).frame, to: id)
                }
                return true
            }
            room.enqueue(.subscribe(id, seq: through))
            // The join that takes a game's last seat starts it: the start is part of its reply,
            // before its ack (PROTOCOL sections 13 and 16).
            startIfEverySeatWasTaken(room, now: now, into: &effects)
            if let requestID = catchUp.requestID {
                room.enqueue(.ack(id, id: requestID, seq: room.seq, of: catchUp.isCreation ? .command : .other))
            }
            durability.release(room, now: now, into: &effects)
            return true
        }
        flushDirect(into: &effects)
        let next = pending.issue(.history(catchUp))
        sessions.setWait(id, .pending(next))
        if !storageHadMore { effects.log(.warning, "storage returned no diffs where the window does not reach", ["game": room.id]) }
        let page = StorageRead.history(HistoryRequest(token: next, game: room.id, after: catchUp.after,
                                                      limit: min(config.historyPageSize, max(1, through - catchUp.after))))
        if catchUp.direct {
            effects.append(.read(page))
        } else {
            room.enqueue(.afterDurable(.read(page)))
            durability.release(room, now: now, into: &effects)
        }
        return false
    }

    /// A replay's chat lines said up to seq `through`, each after the diff it followed.
    func emitChat(_ catchUp: inout HistoryCatchUp, through seq: Int) {
        while let line = catchUp.chat.first, line.seq <= seq {
            catchUp.chat.removeFirst()
            emit(catchUp, catchUp.room.chatFrame(line))
        }
    }

    /// A page of a game's stored diff frames for a catch-up; returns whether the member's
    /// wait ended (its held requests may go on).
    func historyRead(_ catchUp: HistoryCatchUp, token: UInt64, frames: [String], now: Instant,
                     into effects: inout Effects) -> Bool {
        let id = catchUp.connection
        guard sessions.room(of: id) === catchUp.room, sessions.endWait(id, .pending(token)),
              let view = sessions[id]?.view else { return false }
        let room = catchUp.room
        var next = catchUp
        for (offset, text) in frames.enumerated() {
            // Typed with its seq, as a live diff is: another node's member drops one it has.
            emit(next, room.frame(OutFrame(text, kind: .diff(seq: catchUp.after + offset + 1)), for: view))
            emitChat(&next, through: catchUp.after + offset + 1)
        }
        next.after += frames.count
        return continueCatchUp(next, token: token, storageHadMore: !frames.isEmpty, now: now, into: &effects)
    }

    /// A replay's chat, read: the replay goes on with it.
    func replayChat(_ catchUp: HistoryCatchUp, token: UInt64, lines: [StoredChat], now: Instant,
                    into effects: inout Effects) -> Bool {
        let id = catchUp.connection
        guard sessions.room(of: id) === catchUp.room, sessions.endWait(id, .pending(token)),
              let session = sessions[id] else { return false }
        var next = catchUp
        let readable = catchUp.room.readableChatRooms(for: session)
        next.chat = catchUp.room.replayable(lines.compactMap(ChatLine.init(stored:)).filter { readable.contains($0.room) },
                                            for: session, now: now)
        emitChat(&next, through: 0)
        return continueCatchUp(next, token: token, storageHadMore: true, now: now, into: &effects)
    }
}
