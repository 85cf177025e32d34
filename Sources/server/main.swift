import ArgumentParser
import Foundation
import Logging
import Realtime

struct Server: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Boardcast: live Klondike and Plane games over WebSocket, for players and spectators.")

    @Option(help: "Address to listen on (127.0.0.1 for this machine only).")
    var host = "0.0.0.0"

    @Option(help: "TCP port; 0 picks a free one.")
    var port = 8080

    @Option(help: "Directory for the game database, or :memory: to keep nothing.")
    var data = "./data"

    @Option(help: "postgresql://USER[:PASSWORD]@HOST:PORT/DB (or postgres://): keep games in this PostgreSQL database instead of --data; every node started with the same --store (and --redis) shares every game, so games outlive the node that made them.")
    var store: String?

    @Option(help: "Folder of the browser client served at /.")
    var web = "./web-static"

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

    @Option(help: "Seconds a cluster node's liveness lease lasts: other nodes answer unavailable for its games once it is gone that long.")
    var lease: Double = 15

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

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
            var options = ServerOptions(host: host, port: port, data: data, web: web, pingInterval: pingInterval)
            options.idleSeconds = idle
            options.reusePort = reusePort
            options.redis = redis
            options.node = node
            options.leaseSeconds = lease
            options.store = store
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

Server.main()
