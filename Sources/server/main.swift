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

    @Option(help: "Folder of the browser client served at /.")
    var web = "./web-static"

    @Option(help: "Seconds between WebSocket pings; a peer silent until the next one is dropped.")
    var pingInterval = 30

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard pingInterval >= 1 else { throw ValidationError("--ping-interval must be at least 1 second") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
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
            server = try BoardcastServer(
                options: ServerOptions(host: host, port: port, data: data, web: web, pingInterval: pingInterval),
                logger: logger)
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
        if let failure = server.failure {
            logger.critical("stopped after a storage failure: \(failure)")
            throw ExitCode(1)
        }
    }
}

Server.main()
