// Commands: refused when chosen from a stale state, queued while disconnected, re-sent with their ids.
extension GameFollower {
    mutating func command(id: String, body: JSONValue, basedOn: Int?, once: Bool, _ out: inout [Action]) {
        if phase == .closed {
            out.append(.complete(id: id, .failure(.closed())))
            return
        }
        if pending[id] != nil {
            out.append(.complete(id: id, .failure(BoardcastError(code: "bad-request", message: "a request with id \(id) is already waiting"))))
            return
        }
        if let refusal = staleness(basedOn) {
            out.append(.complete(id: id, .failure(refusal)))
            return
        }
        var p = Pending(id: id, body: withId(body, id), basedOn: basedOn, once: once, sent: false)
        if phase == .ready {
            p.sent = true
            out.append(.send(connection: connection, p.body))
        }
        pending[id] = p
        order.append(id)
    }

    /// `stale` when the server has shown a seq newer than the one the command was chosen from.
    func staleness(_ basedOn: Int?) -> BoardcastError? {
        guard let basedOn else { return nil }
        let shown = max(seq ?? -1, shownSeq ?? -1)
        guard shown > basedOn else { return nil }
        return BoardcastError(code: "stale", message: "chosen from seq \(basedOn), but the server has shown seq \(shown): choose again")
    }

    /// After a (re)join: sends the unsent commands (checked for staleness first) and the sent but
    /// unanswered ones again, with their ids, in the order they were made.
    mutating func flush(_ out: inout [Action]) {
        for id in order {
            guard var p = pending[id] else { continue }
            if !p.sent, let refusal = staleness(p.basedOn) {
                removePending(id)
                out.append(.complete(id: id, .failure(refusal)))
                continue
            }
            if p.sent { out.append(.log(.debug, "sending \(p.body["type"]?.stringValue ?? "?") \(id) again")) }
            p.sent = true
            pending[id] = p
            out.append(.send(connection: connection, p.body))
        }
    }

    mutating func removePending(_ id: String) {
        pending.removeValue(forKey: id)
        order.removeAll { $0 == id }
    }

    // MARK: Ids

    /// A random message id (16 base-36 characters), for the follower's own requests and the app's.
    public static func randomId<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        return String((0..<16).map { _ in alphabet[Int(generator.next() % 36)] })
    }

    mutating func newId(_ what: String) -> String {
        return "\(what)-\(Self.randomId(using: &random))"
    }

    func withId(_ body: JSONValue, _ id: String) -> JSONValue {
        guard case .object(var o) = body else { return body }
        o["id"] = .string(id)
        return .object(o)
    }
}
