import Core

/// `auth` (PROTOCOL section 19): a good token signs the connection in (again), a bad one changes
/// nothing; either is counted, and each connection has its own limit of them.
struct SignIn {
    let verifier: TokenVerifier?
    let sessions: SessionTable
    let replies: Replies

    /// `remoteSeq`: the seq the connection has seen of a game another node owns, if it is in one.
    func auth(_ id: ConnectionID, jwt: String, requestID: JSON?, remoteSeq: Int?, now: Instant, into effects: inout Effects) {
        guard let verifier else {
            replies.error(id, ProtocolError(.forbidden, "this server signs no one in (it has no auth key)"), requestID: requestID,
                          now: now, into: &effects)
            return
        }
        if let wait = sessions.modify(id, { $0.authTimes.take(now: now.monotonic) }) ?? nil {
            let limit = "auth is limited to \(RecentLimit.auth.count) in \(Int(RecentLimit.auth.window)) s"
            replies.error(id, ProtocolError(.limited, limit + ": try again in \(Int(wait.rounded(.up))) s"), requestID: requestID,
                          now: now, into: &effects)
            return
        }
        switch verifier.verify(jwt, now: now.unixTime) {
        case .failure(let refusal):
            effects.append(.countSignIn(ok: false))
            replies.error(id, ProtocolError(.forbidden, refusal.description), requestID: requestID, now: now, into: &effects)
        case .success(let user):
            effects.append(.countSignIn(ok: true))
            sessions.modify(id) { $0.user = user }
            let authed = ServerMessage.authed(user: user.id, name: user.name, expires: user.expires).frame
            if sessions.room(of: id) == nil, let remoteSeq {
                // In a game another node owns: answered here, with the seq this connection has seen.
                effects.send(authed, to: id)
                if let requestID { effects.send(ServerMessage.ack(id: requestID, seq: remoteSeq).frame, to: id) }
                return
            }
            replies.answer(id, [authed], requestID: requestID, now: now, into: &effects)
        }
    }
}
