import Core

/// How an answer reaches one connection: behind everything its game already owes it (the
/// room's outbox), or at once when it is in no game.
struct Replies {
    let sessions: SessionTable
    let durability: Durability

    /// An error, counted and logged, in order with the connection's other replies.
    func error(_ id: ConnectionID, _ error: ProtocolError, requestID: JSON?, now: Instant, into effects: inout Effects) {
        effects.append(.countError(error.code))
        // A bad request's message may quote what the client sent (a pasted token, a watch key):
        // only the code is logged for it.
        let quotesClient = error.code == .badRequest || error.code == .unknownType
        effects.log(.info, "refused", quotesClient ? ["conn": "\(id)", "code": error.code.rawValue]
                                                   : ["conn": "\(id)", "code": error.code.rawValue, "why": error.message])
        send(ServerMessage.error(error, id: requestID).frame, to: id, now: now, into: &effects)
    }

    /// A frame in order with the connection's other replies.
    func send(_ frame: OutFrame, to id: ConnectionID, now: Instant, into effects: inout Effects) {
        guard let session = sessions[id] else { return }
        if let room = session.room {
            room.enqueue(.reply(id, frame))
            durability.release(room, now: now, into: &effects)
        } else {
            effects.send(frame, to: id)
        }
    }

    /// Frames then the ack of `requestID` (with the game's seq when in one), in order.
    func answer(_ id: ConnectionID, _ frames: [OutFrame], requestID: JSON?, now: Instant, into effects: inout Effects) {
        guard let session = sessions[id] else { return }
        if let room = session.room {
            for frame in frames { room.enqueue(.reply(id, frame)) }
            if let requestID { room.enqueue(.ack(id, id: requestID, seq: room.seq(for: session.key), of: .other)) }
            durability.release(room, now: now, into: &effects)
        } else {
            for frame in frames { effects.send(frame, to: id) }
            if let requestID { effects.send(ServerMessage.ack(id: requestID, seq: nil).frame, to: id) }
        }
    }

    /// A cluster node's marker, after everything the connection is owed.
    func marker(_ id: ConnectionID, _ number: UInt64, now: Instant, into effects: inout Effects) {
        guard let session = sessions[id] else { return }
        if let room = session.room {
            room.enqueue(.marker(id, number))
            durability.release(room, now: now, into: &effects)
        } else {
            effects.append(.remote(.marker(id, number)))
        }
    }
}
