// BoardcastServer as the socket shell's events (LWSEvents): connections, frames, HTTP, wake-ups, limits' hooks.
import Logging

extension BoardcastServer: LWSEvents {
    func opened(_ connection: Connection, query: [String: String], user: SignedUser?) {
        let now = clock.now
        keepalive.add(connection, now: now.monotonic)
        metrics.connections.increment()
        metrics.connectionsOpened.increment()
        handle(.opened(connection.id, connection.clientAddress, query: query, user: user), at: now)
    }

    func received(_ connection: Connection, text: [UInt8]) {
        metrics.messagesIn.increment()
        handle(.frame(connection.id, text), at: clock.now)
    }

    func receivedBinary(_ connection: Connection) {
        metrics.messagesIn.increment()
        handle(.binaryFrame(connection.id), at: clock.now)
    }

    func closed(_ connection: Connection) {
        keepalive.remove(connection)
        metrics.connections.decrement()
        handle(.closed(connection.id), at: clock.now)
    }

    func httpRequest(_ id: HTTPRequestID, path: String, query: String?) -> HTTPResponse? {
        switch path {
        case "/api/auth": return signIn.response
        case "/healthz": return health.response
        case "/metrics":
            metrics.games.set(Double(hub.liveGameCount))
            for (pool, gauge) in metrics.provenPool { gauge.set(Double(hub.provenPoolCount(pool))) }
            metrics.provenPoolTarget?.set(Double(hubConfig.provenPoolTarget))
            return HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4", body: metrics.render())
        default:
            // Answered now if the hub can; later (through `respond`) if it must read storage first.
            var immediate: HTTPResponse?
            for action in hub.handle(.http(id, path: path, query: query), at: clock.now) {
                if case .respond(let request, let response) = action, request == id {
                    immediate = response
                } else {
                    perform(action)
                }
            }
            return immediate
        }
    }

    func wakeDue() { handle(.due, at: clock.now) }

    func wokenUp() {
        let items = inbox.withLock { items -> [ServiceInboxItem] in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
        // Commits reported together are one event: the highest ticket, every refusal.
        var highest: UInt64 = 0
        var refused: [String: WriteRefusal] = [:]
        var ticked = false
        let now = clock.now
        func flushCommits() {
            guard highest > 0 else { return }
            handle(.committed(upTo: highest, refused: refused), at: now)
            highest = 0
            refused = [:]
        }
        for item in items {
            switch item {
            case .committed(let ticket, let refusals):
                highest = max(highest, ticket)
                refused.merge(refusals) { $1 }
                if health.writesFailing != nil {
                    health.writesFailing = nil
                    logger.notice("storage writes succeed again")
                }
            case .event(.storageFailed(let tickets, let why)):
                flushCommits()
                health.writesFailing = why
                metrics.storageFailures.increment()
                handle(.storageFailed(tickets, reason: why), at: now)
            case .event(.tick):
                ticked = true
            case .event(let event):
                handle(event, at: now)
            case .stop:
                stop()
            case .deleted(let games):
                retention?.finished(deleted: games?.count, monotonic: now.monotonic)
                if let games, !games.isEmpty {
                    metrics.gamesDeleted.increment(by: Int64(games.count))
                    logger.info("games deleted: untouched past --retain-days", metadata: ["games": "\(games.count)"])
                } else if games == nil {
                    logger.warning("deleting untouched games failed; the next sweep tries again")
                }
            case .storeHealth(let problem):
                health.storeUnreachable = problem
                logger.log(level: problem == nil ? .notice : .error,
                           problem == nil ? "the store answers again" : "the store does not answer: moves are refused until it does",
                           metadata: problem.map { ["error": "\($0)"] })
                handle(.storeHealth(problem: problem), at: now)
            case .usage(let usage):
                readingUsage = false
                if let usage {
                    metrics.storedGames.set(Double(usage.games))
                    metrics.storedBytes.set(Double(usage.bytes))
                }
            case .integrity(let problems):
                if problems.isEmpty {
                    logger.info("background integrity check of the game database: ok")
                } else {
                    health.damage = "the game database is damaged: " + problems.prefix(4).joined(separator: "; ")
                    logger.critical("the game database is damaged; stop the server and restore a backup",
                                    metadata: ["quick_check": "\(problems.prefix(4).joined(separator: "; "))"])
                }
            }
        }
        flushCommits()
        if ticked {
            maintainStorage(now: now)
            cluster?.tick(now: now.monotonic)
            reportClusterCounters()
            handle(.tick, at: now)
            let due = keepalive.advance(to: now.monotonic)
            for connection in due.ping { lws.ping(connection) }
            for connection in due.dead { lws.kill(connection) }
        }
    }
}

// MARK: Limits an operator sets: the socket shell's hooks
extension BoardcastServer {
    func receivedControl(_ connection: Connection) -> Bool { hub.admitControlFrame(connection.id, at: clock.now) }

    func refused(_ limit: LimitKind) { metrics.countRefusal(limit) }
}
