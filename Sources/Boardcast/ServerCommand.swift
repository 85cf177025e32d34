import ArgumentParser
import Foundation
import Logging
import Core
import Realtime

/// The server's flags and its run: what `server`, and a game developer's own server built with
/// `Boardcast.main(games:pages:)`, do with their command line.
struct ServerCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        let served = ServedGames.current
        return CommandConfiguration(
            commandName: served.commandName,
            abstract: "Boardcast: live games over WebSocket, for players and spectators.",
            discussion: "Games served (the kind of `create`): \(served.catalog.kinds.joined(separator: ", ")).")
    }

    @Option(help: "Address to listen on (127.0.0.1 for this machine only).")
    var host = "0.0.0.0"

    @Option(help: "TCP port; 0 picks a free one.")
    var port = 8080

    @Option(help: "Directory for the game database, or :memory: to keep nothing.")
    var data = "./data"

    @Option(help: "postgresql://USER[:PASSWORD]@HOST:PORT/DB (or postgres://): keep games in this PostgreSQL database instead of --data; every node started with the same --store (and --redis) shares every game, so games outlive the node that made them.")
    var store: String?

    @Option(help: "Delete games nobody touched (no command, join or watch) for this many days, in small batches off the serving thread (fractions allowed; default: keep every game).")
    var retainDays: Double?

    @Option(help: "Folder of the browser client served at / (default: ./web-static, or the one beside Boardcast's sources).")
    var web = ServedGames.defaultWeb

    @Option(help: "Seconds between WebSocket pings; a peer silent until the next one is dropped.")
    var pingInterval = 30

    @Option(help: "Seconds without a member or a command after which a game rests in storage only (it comes back on first use).")
    var idle: Double = 600

    @Flag(help: "Share the port with other servers on this machine (SO_REUSEPORT): one process per core.")
    var reusePort = false

    @Option(help: "redis://HOST:PORT[/DB]: run as one node of a cluster on this Redis (no Redis is needed without it).")
    var redis: String?

    @Option(help: "This node's name in the cluster (default: host name and process id).")
    var node: String?

    @Option(help: "Seconds a cluster node's liveness lease lasts: once it is gone that long, other nodes answer unavailable for its games, or, with --store, take them over.")
    var lease: Double = 15

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(help: ArgumentHelp("Open WebSocket connections allowed per client address (an IPv6 client counts by its /64); one more is refused with HTTP 429.",
                               valueName: "n"))
    var maxConnectionsPerAddress = 200

    @Option(help: ArgumentHelp("New games a minute per client address, over all its connections; one more create is answered limited.",
                               valueName: "n"))
    var createRate = 30

    @Option(help: ArgumentHelp("A proxy (ADDR or ADDR/BITS) whose X-Forwarded-For names the client; repeatable. Connections from other peers count as themselves.",
                               valueName: "addr"))
    var trustedProxy: [String] = []

    @Option(help: ArgumentHelp("A page origin (SCHEME://HOST[:PORT]) allowed to open a WebSocket; repeatable. With any given, an upgrade with another Origin is refused with HTTP 403 (one with no Origin, as from websocat, is allowed). Without, every origin is.",
                               valueName: "url"))
    var allowedOrigin: [String] = []

    @Option(name: .customLong("auth-hs256"), help: ArgumentHelp("A file holding the HS256 secret (32 bytes or more) the operator's site signs users' tokens with (PROTOCOL section 19); the file's name without extension is its key id.", valueName: "file"))
    var authHS256: String?

    @Option(name: .customLong("auth-public-key"), help: ArgumentHelp("A PEM public key (RSA of 2048 bits or more: RS256; P-256: ES256) that signs users' tokens; repeatable, for rotation; a token's kid names a key by its file's name without extension.", valueName: "file"))
    var authPublicKey: [String] = []

    @Option(name: .customLong("auth-issuer"), help: ArgumentHelp("Every token must carry this iss.", valueName: "iss"))
    var authIssuer: String?

    @Option(name: .customLong("auth-audience"), help: ArgumentHelp("Every token must carry this aud.", valueName: "aud"))
    var authAudience: String?

    @Option(name: .customLong("auth-site"), help: ArgumentHelp("The operator's site (SCHEME://HOST[:PORT]); repeatable. The page takes a token by postMessage only from a window of these origins; without, from the window that opened it, whatever its origin.", valueName: "url"))
    var authSite: [String] = []

    @Flag(name: .customLong("require-auth"), help: "create, join and say need a signed-in connection (an auth key is needed).")
    var requireAuth = false

    /// The token verifier the auth flags describe; nil with no key.
    func tokenVerifier() throws -> TokenVerifier? {
        var keys: [AuthKey] = []
        do {
            if let authHS256 { keys.append(try AuthKey.load(file: authHS256, secret: true)) }
            for file in authPublicKey { keys.append(try AuthKey.load(file: file, secret: false)) }
        } catch {
            throw ValidationError("\(error)")
        }
        guard !keys.isEmpty else {
            if requireAuth || authIssuer != nil || authAudience != nil || !authSite.isEmpty {
                throw ValidationError("--require-auth, --auth-issuer, --auth-audience and --auth-site need a key: --auth-hs256 or --auth-public-key")
            }
            return nil
        }
        let ids = keys.map(\.id)
        guard Set(ids).count == ids.count else { throw ValidationError("two auth keys have the same id (file name): \(ids)") }
        return TokenVerifier(keys: keys, issuer: authIssuer, audience: authAudience)
    }

    /// `--auth-site` as browsers write origins.
    func authSites() throws -> [String] {
        do {
            return try OriginPolicy(allowing: authSite).allowed.sorted()
        } catch let invalid as OriginPolicy.Invalid {
            throw ValidationError("--auth-site: \(invalid.description)")
        }
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard pingInterval >= 1 else { throw ValidationError("--ping-interval must be at least 1 second") }
        guard idle > 0, idle.isFinite else { throw ValidationError("--idle must be a positive number of seconds") }
        guard lease >= 1, lease <= 3600 else { throw ValidationError("--lease must be 1 to 3600 seconds") }
        if let node, node.isEmpty || node.contains("|") || node.contains(" ") {
            throw ValidationError("--node must be a name without spaces or |")
        }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        if let store {
            guard case .postgres = try? StoreLocation.parse(store) else {
                throw ValidationError("--store takes postgresql://USER[:PASSWORD]@HOST:PORT/DB (or postgres://)")
            }
        }
        _ = try clientLimits()
        _ = try tokenVerifier()
        _ = try authSites()
        if let retainDays { guard retainDays > 0, retainDays.isFinite else { throw ValidationError("--retain-days must be a positive number of days") } }
    }

    /// The limits of PROTOCOL section 14 as the flags give them.
    func clientLimits() throws -> ClientLimits {
        guard maxConnectionsPerAddress >= 1 else { throw ValidationError("--max-connections-per-address must be at least 1") }
        guard createRate >= 1 else { throw ValidationError("--create-rate must be at least 1 game a minute") }
        var limits = ClientLimits()
        limits.maxConnectionsPerAddress = maxConnectionsPerAddress
        limits.createsPerMinute = createRate
        limits.trustedProxies = TrustedProxies(try trustedProxy.map { value in
            guard let range = AddressRange(value) else {
                throw ValidationError("--trusted-proxy takes an IPv4 or IPv6 address, or ADDR/BITS, not \(value)")
            }
            return range
        })
        do {
            limits.origins = try OriginPolicy(allowing: allowedOrigin)
        } catch let invalid as OriginPolicy.Invalid {
            throw ValidationError(invalid.description)
        }
        return limits
    }

    func run() throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "boardcast")
        let server: BoardcastServer
        do {
            let served = ServedGames.current
            var options = ServerOptions(host: host, port: port, data: data, web: web, pingInterval: pingInterval,
                                        games: served.catalog)
            options.pages = served.pages
            options.idleSeconds = idle
            options.reusePort = reusePort
            options.redis = redis
            options.node = node
            options.leaseSeconds = lease
            options.store = store
            options.retainDays = retainDays
            options.limits = try clientLimits()
            options.auth = try tokenVerifier()
            options.requireAuth = requireAuth
            options.authSites = try authSites()
            server = try BoardcastServer(options: options, logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(2)
        }
        let stopper = server.stopper
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: DispatchQueue.global())
            source.setEventHandler { @Sendable in stopper.stop() }
            source.resume()
            sources.append(source)
        }
        do {
            try server.run()
        } catch {
            logger.critical("cannot serve: \(error)")
            throw ExitCode(2)
        }
        sources.forEach { $0.cancel() }
    }
}
