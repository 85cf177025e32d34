import Core

extension Hub {
    /// What the server's flags tell the hub: sizes, intervals, the games offered, storage, sign-in.
    public struct Config: Sendable {
        /// Seconds without a member or a command after which a game rests (leaves memory).
        public var idleSeconds: Double = 600
        /// Diff frames kept in memory per game for `since`; older ones are read from storage.
        public var windowSize = 128
        /// Stored diff frames read per page when a `since` reaches past the window.
        public var historyPageSize = 256
        /// Presence is merged: at most one update per this many seconds per game,
        /// and at most one a second for a game with more than `crowdSize` members.
        public var presenceInterval = 0.1
        public var crowdSize = 100
        /// The games this server offers (`GameCatalog.standard` in the server; a test may add its own).
        public var games: GameCatalog
        /// The page's modules for games the standard page does not know, listed at `/api/pages`.
        public var pages: [PageModule] = []
        /// Positions a game's search may expand (about a second of one core; see the solver benchmark).
        public var solverBudget: Int
        /// Proven seeds kept ready per pool, so a seed that must be proven is at hand at once.
        public var provenPoolTarget = 16
        /// Positions whose hint is remembered.
        public var hintCacheLimit = 20_000
        /// Seconds after start before the pool of proven seeds is topped up.
        public var poolRefillDelay = 10.0
        /// Games are stored (`--data DIR`). Without storage (`--data :memory:`) nothing waits
        /// for a commit, and games keep their whole history in memory and never rest.
        public var durable = true
        /// With a store shared by several nodes (`--store postgresql://...`): this node's name,
        /// which the store records as the owner of the games it serves and which fences its writes.
        public var sharedStoreNode: String?
        /// New games a minute per client address (`--create-rate`); nil: no limit.
        public var createsPerMinute: Int?
        /// Seconds an untouched game is kept (`--retain-days`); nil: every game is kept, and
        /// nothing needs to note joins and watches.
        public var retainSeconds: Double?
        /// The keys that sign users in (PROTOCOL section 19); nil: nobody signs in, no `names` are shown.
        public var auth: TokenVerifier?
        /// `--require-auth`: `create`, `join` and `say` need a signed-in connection.
        public var requireAuth = false

        /// How often a game's joins, watches and members are noted as touches: often enough
        /// that a game in use is never taken for untouched, seldom enough to cost nothing.
        var touchInterval: Double? { retainSeconds.map { min(3600, $0 / 10) } }

        public init(games: GameCatalog) {
            self.games = games
            solverBudget = games.searchBudget
        }
    }
}
