import Core

/// The games' searches as the hub uses them: pools of proven seeds (kept topped up in the
/// background so a seed that must be proven is at hand at once), hints cached by position, and
/// the requests waiting for a search. Searches themselves run off the service thread (`solve` actions).
final class SolverDesk {
    private let config: Hub.Config
    private let sessions: SessionTable
    private let pending: PendingTable<PendingRequest>
    private var random: HubRandom
    /// Proven seeds per pool, and the pools whose refill is under way.
    private var pool: [Int: [UInt64]] = [:]
    private var refilling: Set<Int> = []
    private var hintCache: [PositionKey: Hint] = [:]
    /// Positions being searched for a hint, by the token of their pending request.
    private var hintsSolving: [PositionKey: UInt64] = [:]
    private var started: Instant?

    init(config: Hub.Config, sessions: SessionTable, pending: PendingTable<PendingRequest>, random: HubRandom,
         seeds: [ProvenSeed]) {
        self.config = config
        self.sessions = sessions
        self.pending = pending
        self.random = random
        for seed in seeds { pool[seed.pool, default: []].append(seed.seed) }
    }

    func poolCount(_ pool: Int) -> Int { self.pool[pool]?.count ?? 0 }

    // MARK: Proven seeds

    /// A proven seed from the pool at once (the caller uses it); otherwise the connection
    /// waits for the search, which answers within the protocol's two seconds.
    func provenSeed(_ proof: PendingProof, into effects: inout Effects) -> ProvenSeed? {
        let request = proof.request
        if request.given == nil, let seed = pool[request.pool]?.popLast() { return ProvenSeed(pool: request.pool, seed: seed) }
        let token = pending.issue(.proof(proof))
        sessions.setWait(proof.origin.connection, .pending(token))
        let candidates = request.given == nil ? (0..<16).map { _ in random.next() >> 11 } : []
        effects.append(.solve(.proof(token: token, request: request, candidates: candidates)))
        return nil
    }

    // MARK: Hints

    /// The cached answer for this position, or nil: the asker then waits for the one search
    /// every asker of the same position shares.
    func hint(_ key: PositionKey, of game: AnyGame, for viewer: Viewer, asker: CommandOrigin, into effects: inout Effects) -> Hint? {
        if let cached = hintCache[key] { return cached }
        let token: UInt64
        if let solving = hintsSolving[key], case .hint(let position, var askers)? = pending[solving] {
            token = solving
            askers.append(asker)
            pending[token] = .hint(position, askers: askers)
        } else {
            token = pending.issue(.hint(key, askers: [asker]))
            hintsSolving[key] = token
            effects.append(.solve(.hint(token: token, game: game, viewer: viewer)))
        }
        sessions.setWait(asker.connection, .pending(token))
        return nil
    }

    // MARK: Answers

    /// What a search came to, for the hub to carry on with.
    enum Outcome {
        /// A seed for a waiting create or command: the proven seed (nil for a given one that was
        /// proven), or refused with this error.
        case proof(PendingProof, Result<UInt64?, ProtocolError>)
        case hints([(CommandOrigin, Hint)])
        /// A bot's move, thought of (nil: it has none).
        case botMoved(GameRoom, seat: String, ParsedGesture?)
        /// New proven seeds, to store.
        case poolGrew(StoreBatch)
        case none
    }

    func solved(_ result: SolveResult) -> Outcome {
        switch result {
        case .proof(let token, let answer):
            guard case .proof(let proof)? = pending.take(token),
                  sessions.endWait(proof.origin.connection, .pending(token)) else { return .none }
            switch answer {
            case .givenProven: return .proof(proof, .success(nil))
            case .seed(let seed): return .proof(proof, .success(seed))
            case .notProven:
                return .proof(proof, .failure(proof.request.given != nil
                    ? ProtocolError(.illegalMove, proof.request.unproven)
                    : ProtocolError.unavailable(proof.request.unproven)))
            }
        case .hint(let token, let answers):
            if hintCache.count + answers.count > config.hintCacheLimit { hintCache.removeAll(keepingCapacity: true) }
            for (key, answer) in answers { hintCache[key] = answer }
            guard case .hint(let key, let askers)? = pending.take(token) else { return .none }
            hintsSolving[key] = nil
            let answer = answers.first?.1 ?? Hint(from: nil, to: nil)
            return .hints(askers.filter { sessions.endWait($0.connection, .pending(token)) }.map { ($0, answer) })
        case .bot(let token, let move):
            guard case .bot(let room, let seat)? = pending.take(token) else { return .none }
            return .botMoved(room, seat: seat, move)
        case .refill(let number, let seeds):
            refilling.remove(number)
            let fresh = Set(seeds).subtracting(pool[number] ?? [])
            guard !fresh.isEmpty else { return .none }
            pool[number, default: []].append(contentsOf: fresh)
            return .poolGrew(StoreBatch(provenSeedsAdded: fresh.sorted().map { ProvenSeed(pool: number, seed: $0) }))
        }
    }

    /// Keeps each pool of proven seeds topped up, a few candidates at a time.
    func refill(now: Instant, into effects: inout Effects) {
        guard let prover = config.games.prover else { return }
        // Not in the first seconds: start-up, and whatever measures it, comes first.
        if started == nil { started = now }
        guard let started, now.since(started) >= config.poolRefillDelay else { return }
        for number in prover.pools where (pool[number]?.count ?? 0) < config.provenPoolTarget && !refilling.contains(number) {
            refilling.insert(number)
            effects.append(.solve(.refill(pool: number, candidates: (0..<8).map { _ in random.next() >> 11 })))
        }
    }
}
