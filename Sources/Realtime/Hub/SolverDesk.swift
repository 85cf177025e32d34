import Core

/// The games' searches as the hub uses them: pools of proven seeds (kept topped up in the
/// background so a deal that must be proven is dealt at once), hints cached by position, and
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

    func poolCount(draw: Int) -> Int { pool[draw]?.count ?? 0 }

    // MARK: Proven deals

    /// A proven seed from the pool at once (the caller deals it); otherwise the connection
    /// waits for the search, which answers within the protocol's two seconds.
    func dealProven(_ deal: PendingDeal, _ request: DealRequest, into effects: inout Effects) -> ProvenSeed? {
        if request.given == nil, let seed = pool[request.pool]?.popLast() { return ProvenSeed(pool: request.pool, seed: seed) }
        let token = pending.issue(.deal(deal))
        sessions.setWait(deal.connection, .pending(token))
        let candidates = request.given == nil ? (0..<16).map { _ in random.next() >> 11 } : []
        effects.append(.solve(.deal(token: token, request: request, candidates: candidates)))
        return nil
    }

    // MARK: Hints

    /// The cached answer for this position, or nil: the asker then waits for the one search
    /// every asker of the same position shares.
    func hint(_ key: PositionKey, of game: AnyGame, for viewer: Viewer, asker: HintWaiter, into effects: inout Effects) -> Hint? {
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
        /// A deal for a waiting create or reset: the proven seed (nil for a given deal that was
        /// proven), or refused with this error.
        case deal(PendingDeal, Result<UInt64?, ProtocolError>)
        case hints([(HintWaiter, Hint)])
        /// A bot's move, thought of (nil: it has none).
        case botMoved(GameRoom, seat: String, ParsedGesture?)
        /// New proven seeds, to store.
        case poolGrew(StoreBatch)
        case none
    }

    func solved(_ result: SolveResult) -> Outcome {
        switch result {
        case .deal(let token, let proof):
            guard case .deal(let deal)? = pending.take(token),
                  sessions.endWait(deal.connection, .pending(token)) else { return .none }
            switch proof {
            case .givenDealProven: return .deal(deal, .success(nil))
            case .seed(let seed): return .deal(deal, .success(seed))
            case .notProven:
                return .deal(deal, .failure(deal.namesDeal
                    ? ProtocolError(.illegalMove, "the solver could not prove this deal winnable")
                    : ProtocolError.unavailable("no winnable deal was found in time; try again")))
            }
        case .hint(let token, let answers):
            if hintCache.count + answers.count > config.hintCacheLimit { hintCache.removeAll(keepingCapacity: true) }
            for (key, answer) in answers { hintCache[key] = answer }
            guard case .hint(let key, let askers)? = pending.take(token) else { return .none }
            hintsSolving[key] = nil
            let answer = answers.first?.1 ?? Hint(from: nil, to: nil, winnable: .null)
            return .hints(askers.filter { sessions.endWait($0.connection, .pending(token)) }.map { ($0, answer) })
        case .bot(let token, let move):
            guard case .bot(let room, let seat)? = pending.take(token) else { return .none }
            return .botMoved(room, seat: seat, move)
        case .refill(let draw, let seeds):
            refilling.remove(draw)
            let fresh = Set(seeds).subtracting(pool[draw] ?? [])
            guard !fresh.isEmpty else { return .none }
            pool[draw, default: []].append(contentsOf: fresh)
            return .poolGrew(StoreBatch(provenSeedsAdded: fresh.sorted().map { ProvenSeed(pool: draw, seed: $0) }))
        }
    }

    /// Keeps each pool of proven seeds topped up, a few candidates at a time.
    func refill(now: Instant, into effects: inout Effects) {
        guard let prover = config.games.prover else { return }
        // Not in the first seconds: start-up, and whatever measures it, comes first.
        if started == nil { started = now }
        guard let started, now.since(started) >= config.poolRefillDelay else { return }
        for draw in prover.pools where (pool[draw]?.count ?? 0) < config.provenPoolTarget && !refilling.contains(draw) {
            refilling.insert(draw)
            effects.append(.solve(.refill(pool: draw, candidates: (0..<8).map { _ in random.next() >> 11 })))
        }
    }
}
