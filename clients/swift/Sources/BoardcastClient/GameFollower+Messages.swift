// The server's messages: snapshots and diffs in seq order, gaps asked again, replies matched to requests.
extension GameFollower {
    mutating func received(_ m: JSONValue, now: Double, _ out: inout [Action]) {
        let type = m["type"]?.stringValue
        if type == "ack" || type == "error", let rawId = m["id"], rawId != .null {
            let id = rawId.stringValue ?? rawId.intValue.map(String.init) ?? rawId.serialized()
            if let exchange = exchanges.removeValue(forKey: id) {
                reply(to: exchange, m, now: now, &out)
                return
            }
            if let p = pending[id], p.sent {
                removePending(id)
                if type == "ack" {
                    out.append(.complete(id: id, .success(m["seq"]?.intValue)))
                } else {
                    out.append(.complete(id: id, .failure(BoardcastError(reply: m))))
                }
                return
            }
        }
        switch type {
        case "ack":
            break
        case "error":
            out.append(.error(BoardcastError(reply: m)))
        case "created":
            game = m["game"]?.stringValue ?? game
            token = m["token"]?.stringValue ?? token
            if let k = m["key"]?.stringValue { key = k }
            out.append(.created(m))
        case "joined":
            if let g = m["game"]?.stringValue, game == nil || g == game { game = g }
            kind = m["kind"]?.stringValue ?? kind
            role = m["role"]?.stringValue ?? role
            if let y = m["you"]?.stringValue { you = y }
            if let k = m["key"]?.stringValue, !k.isEmpty { key = k }
            out.append(.joined(m))
        case "snapshot":
            guard let s = m["seq"]?.intValue, let newState = m["state"] else {
                out.append(.log(.warn, "a snapshot without seq or state"))
                break
            }
            let previous = state
            kind = m["kind"]?.stringValue ?? kind
            state = newState
            seq = s
            shownSeq = max(shownSeq ?? s, s)
            out.append(.state(StateChange(seq: s, state: newState, previous: previous, via: .snapshot, cause: nil, ops: nil)))
        case "diff":
            applyDiff(m, &out)
        case "event":
            out.append(.event(m))
        case "presence":
            out.append(.presence(m))
        case "chat":
            // A re-join's reply carries the last lines again: drop those already had (`n`).
            if let n = m["n"]?.intValue {
                if n <= chatN { break }
                chatN = n
            }
            out.append(.chat(m))
        case "left":
            if !leaving {
                finish("replaced", BoardcastError(code: "left", message: "another connection took this place in the game", reply: m), &out)
            }
        default:
            out.append(.message(m))
        }
    }

    mutating func applyDiff(_ m: JSONValue, _ out: inout [Action]) {
        guard let held = seq, let current = state else { return }  // the snapshot on its way covers it
        guard let s = m["seq"]?.intValue else { return }
        if s <= held { return }  // had already (a re-join's overlap)
        shownSeq = max(shownSeq ?? s, s)
        if s != held + 1 {
            out.append(.log(.info, "gap: diff \(s) after \(held)"))
            resync(&out)
            return
        }
        let ops = m["ops"] ?? .array([])
        do {
            let next = try JSONPatch.apply(ops, to: current)
            state = next
            seq = s
            out.append(.state(StateChange(seq: s, state: next, previous: current, via: .diff, cause: m["cause"], ops: ops)))
        } catch {
            out.append(.log(.warn, "diff \(s) did not apply (\(error)); asking for a snapshot"))
            fresh = true
            resync(&out)
        }
    }

    mutating func reply(to exchange: Exchange, _ m: JSONValue, now: Double, _ out: inout [Action]) {
        let ok = m["type"]?.stringValue == "ack"
        switch exchange {
        case .auth:
            if !ok { out.append(.error(BoardcastError(reply: m))) }
            if phase == .signingIn { sendJoin(&out) }
        case .join:
            if ok {
                phase = .ready
                attempt = 0
                lostAt = nil
                fresh = false
                setStatus(.ready, &out)
                if !joinedOnce {
                    joinedOnce = true
                    out.append(.ready)
                }
                flush(&out)
            } else {
                joinFailed(BoardcastError(reply: m), now: now, &out)
            }
        case .resync:
            resyncing = false
            if ok { fresh = false } else { joinFailed(BoardcastError(reply: m), now: now, &out) }
        case .leave:
            finish("left", nil, &out)
        }
    }

    /// A refused join: tried again later (`unavailable`, `rate-limited`, or our own seat not yet
    /// freed), or the end of the session.
    mutating func joinFailed(_ error: BoardcastError, now: Double, _ out: inout [Action]) {
        var retry = error.code == "unavailable" || error.code == "rate-limited"
        let isJoin = role == "player" && game != nil
        var isCreate = false
        if case .create = start { isCreate = true }
        if !retry, isJoin, joinedOnce || isCreate, error.code == "forbidden" {
            // Most likely our own dropped connection still holds the seat: the server frees it
            // when it sees the drop (at once for a closed socket, within two ping intervals else).
            retry = now - (lostAt ?? now) < settings.rejoinTimeout
        }
        if retry {
            out.append(.log(.info, "join refused \(error.code) (\(error.message)); trying again"))
            lost(connection, "join refused", immediately: false, now: now, &out)
        } else {
            out.append(.log(.warn, "join refused: \(error)"))
            finish("error", error, &out)
        }
    }
}
