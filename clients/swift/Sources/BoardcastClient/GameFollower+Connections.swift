// Connections: opening one, signing in and re-joining, losing one, and the backoff before the next.
extension GameFollower {
    mutating func connect(_ out: inout [Action]) {
        connection += 1
        phase = .connecting
        setStatus(.connecting, &out)
        out.append(.connect(connection: connection))
        out.append(.schedule(.connectTimeout(connection), after: settings.connectTimeout))
    }

    mutating func setStatus(_ s: SessionStatus, _ out: inout [Action]) {
        guard s != status else { return }
        status = s
        out.append(.status(s))
    }

    /// What a (re)join sends: `join` with the seat and `since`, `watch` with `since`, or `create`
    /// while no `created` has named the game yet.
    public func joinBody() -> JSONValue {
        var body: [String: JSONValue]
        if case .create(let kind, let options) = start, game == nil {
            return ["type": "create", "kind": .string(kind), "options": options]
        }
        if role == "player" {
            body = ["type": "join", "game": .string(game ?? "")]
            if let token { body["token"] = .string(token) }
            // Our seat; a creator whose `joined` was lost with the connection is p1.
            var seat = you
            if seat == nil, case .create = start { seat = "p1" }
            if let seat { body["seat"] = .string(seat) }
        } else {
            body = ["type": "watch", "game": .string(game ?? "")]
            if let key { body["key"] = .string(key) }
        }
        if !fresh {
            if let seq {
                body["since"] = .number(Double(seq))
            } else if replay {
                body["replay"] = true
            }
        }
        return .object(body)
    }

    mutating func sendJoin(_ out: inout [Action]) {
        phase = .joining
        let id = newId("join")
        exchanges[id] = .join
        out.append(.send(connection: connection, withId(joinBody(), id)))
    }

    /// Asks again on the open connection: from the held state (a gap), or for a snapshot.
    mutating func resync(_ out: inout [Action]) {
        guard !resyncing, phase == .ready else { return }
        resyncing = true
        let id = newId("resync")
        exchanges[id] = .resync
        let body = joinBody()
        out.append(.log(.info, "resync: \(body["type"]?.stringValue ?? "") since \(body["since"]?.intValue.map(String.init) ?? "(snapshot)")"))
        out.append(.send(connection: connection, withId(body, id)))
    }

    /// The connection is gone: refuse what may not be sent twice, keep the rest, try again.
    mutating func lost(_ c: Int, _ why: String, immediately: Bool, now: Double, _ out: inout [Action]) {
        guard c == connection, [.connecting, .signingIn, .joining, .ready].contains(phase) else { return }
        let wasReady = phase == .ready
        if wasReady || lostAt == nil { lostAt = now }
        dropConnectionState(&out)
        out.append(.disconnect(connection: c))
        out.append(.log(wasReady ? .info : .debug, "connection lost: \(why)"))
        if leaving {
            finish("left", nil, &out)
            return
        }
        scheduleReconnect(immediately: immediately, &out)
    }

    mutating func dropConnectionState(_ out: inout [Action]) {
        exchanges.removeAll()
        resyncing = false
        for id in order {
            guard let p = pending[id], p.once, p.sent else { continue }
            removePending(id)
            out.append(.complete(id: id, .failure(BoardcastError(code: "disconnected", message: "the connection dropped before \(p.body["type"]?.stringValue ?? "the request") was answered"))))
        }
    }

    mutating func scheduleReconnect(immediately: Bool, _ out: inout [Action]) {
        let delay = immediately ? 0 : settings.backoff.delay(attempt: attempt, random: random.unit())
        attempt += 1
        reconnectNumber += 1
        phase = .waiting
        setStatus(.reconnecting, &out)
        out.append(.log(.info, "reconnecting: try \(attempt) in \(Int((delay * 1000).rounded())) ms"))
        out.append(.schedule(.reconnect(reconnectNumber), after: delay))
    }

    /// Closed for good: every unanswered command is refused.
    mutating func finish(_ reason: String, _ error: BoardcastError?, _ out: inout [Action]) {
        guard phase != .closed else { return }
        let hadSocket = [.connecting, .signingIn, .joining, .ready].contains(phase)
        phase = .closed
        leaving = false
        exchanges.removeAll()
        let refusal = error ?? .closed("the session is closed (\(reason))")
        for id in order {
            out.append(.complete(id: id, .failure(refusal)))
        }
        pending.removeAll()
        order.removeAll()
        if hadSocket { out.append(.disconnect(connection: connection)) }
        setStatus(.closed, &out)
        out.append(.finished(reason: reason, error: error))
    }
}
