import Foundation
import PostgresNIO
@testable import Realtime

/// A private PostgreSQL server for tests, on a free loopback port, in a temporary directory:
/// `initdb`, then `pg_ctl start`, run as the `postgres` user when the tests run as root
/// (PostgreSQL refuses root). A watcher stops it and removes its directory when the test
/// process ends, however it ends; `stop()` and `start()` stop and restart it mid-test.
final class PostgresTestServer: Sendable {
    let port: Int
    let directory: String
    private let binaries: String

    /// One server for the whole test process, started on first use, or the one that
    /// `BOARDCAST_TEST_POSTGRES` names. Tests take a fresh database each from it.
    static let shared: Result<PostgresStoreConfiguration, any Error> = Result {
        if let url = ProcessInfo.processInfo.environment["BOARDCAST_TEST_POSTGRES"], !url.isEmpty {
            return try PostgresStoreConfiguration(url: url)
        }
        return try PostgresTestServer.launch().configuration(database: "postgres")
    }

    /// A server of its own, for a test that stops and starts it.
    static func launch() throws -> PostgresTestServer {
        let binaries = try findBinaries()
        var lastError: (any Error)?
        for _ in 0..<3 {  // a free port may be taken by someone else before the server binds it
            let server = try PostgresTestServer(binaries: binaries, port: try freeLoopbackPort())
            do {
                try server.start()
                return server
            } catch {
                lastError = error
                server.removeDirectory()
            }
        }
        throw lastError!
    }

    private init(binaries: String, port: Int) throws {
        self.binaries = binaries
        self.port = port
        var template = Array((NSTemporaryDirectory() + "boardcast-pg-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw TestServerError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        directory = String(cString: made)
        // The postgres user must reach the directory, and mkdtemp makes it 0700.
        chmod(directory, 0o755)
        if Self.runsAsRoot {
            guard let user = getpwnam("postgres") else {
                throw TestServerError("running as root, and there is no postgres user to run PostgreSQL as (apt-get install postgresql)")
            }
            chown(directory, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        try run("initdb", ["-D", dataDirectory, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
        try watchForExit()
    }

    private var dataDirectory: String { directory + "/data" }

    func configuration(database: String) -> PostgresStoreConfiguration {
        PostgresStoreConfiguration(host: "127.0.0.1", port: port, user: "postgres", database: database)
    }

    /// Starts the server (again, keeping its data) and returns once it accepts connections.
    func start() throws {
        try run("pg_ctl", [
            "-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60",
            "-o", "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1", "start",
        ])
    }

    /// A fast shutdown (sessions ended, in-flight transactions rolled back), or an immediate one
    /// (every process ends where it is; the next start recovers from the WAL); returns once it is down.
    func stop(immediately: Bool = false) throws {
        try run("pg_ctl", ["-D", dataDirectory, "-m", immediately ? "immediate" : "fast", "-w", "-t", "60", "stop"])
    }

    /// Stops the server if it runs and removes its directory.
    func discard() {
        _ = try? run("pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        removeDirectory()
    }

    private func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A detached shell that waits for this process to end (`tail --pid`), then stops the server
    /// and removes its directory: no test run leaves a server behind, even one that crashed.
    private func watchForExit() throws {
        let stop = [binaries + "/pg_ctl", "-D", dataDirectory, "-m", "immediate", "stop"]
        let script = "tail --pid=\(getpid()) -f /dev/null; \(asServerUser(stop).map(quoted).joined(separator: " ")); rm -rf \(quoted(directory))"
        // setsid: a Ctrl-C to the test run must not reach the watcher before the server is stopped.
        _ = try ChildProcess.spawn(["/usr/bin/setsid", "/bin/sh", "-c", script], output: "/dev/null")
    }

    private static var runsAsRoot: Bool { getuid() == 0 }

    private func asServerUser(_ command: [String]) -> [String] {
        Self.runsAsRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command
    }

    /// Runs one of the server's programs to its end; its output is in the error when it fails.
    private func run(_ program: String, _ arguments: [String]) throws {
        let outputPath = directory + "/\(program).out"
        let child = try ChildProcess.spawn(asServerUser([binaries + "/" + program] + arguments), output: outputPath)
        let status = child.waitForExit()
        guard status == 0 else {
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw TestServerError("\(program) \(arguments.joined(separator: " ")) failed (\(status)): \(output)\n\(log.suffix(2000))")
        }
    }

    /// Debian's PostgreSQL server programs are not on PATH: /usr/lib/postgresql/VERSION/bin.
    private static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        throw TestServerError("""
            PostgreSQL's server programs (initdb, pg_ctl) are not in \(root)/VERSION/bin: \
            run `scripts/setup-deps test` (it installs Debian's postgresql), or set \
            BOARDCAST_TEST_POSTGRES=postgresql://USER@HOST:PORT/DB to use a running server
            """)
    }

    private static func freeLoopbackPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestServerError("socket: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw TestServerError("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A program run with posix_spawn and reaped with waitpid. (Foundation's Process here missed
/// the exit of `runuser` children, and `waitUntilExit` never returned.)
struct ChildProcess {
    let pid: pid_t

    /// Starts `command` (an absolute path and its arguments) with stdin from /dev/null and
    /// stdout and stderr into the file `output`.
    static func spawn(_ command: [String], output: String) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var arguments = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, command[0], &actions, nil, &arguments, environ)
        guard code == 0 else { throw TestServerError("cannot run \(command[0]): \(String(cString: strerror(code)))") }
        return ChildProcess(pid: pid)
    }

    /// Blocks until the program ends; its exit status, or 128 + the signal that ended it.
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

private func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

struct TestServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A fresh database on the shared server for `body`, dropped afterwards.
func withFreshPostgresDatabase<T>(_ body: (PostgresStoreConfiguration) throws -> T) throws -> T {
    let server = try PostgresTestServer.shared.get()
    let name = "boardcast_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    try PostgresAdmin.run(on: server, "CREATE DATABASE \(name)")
    defer { try? PostgresAdmin.run(on: server, "DROP DATABASE \(name) WITH (FORCE)") }
    var configuration = server
    configuration.database = name
    return try body(configuration)
}

/// Statements outside any store, for a test's own set-up and checks, on connections of their own.
enum PostgresAdmin {
    static func run(on configuration: PostgresStoreConfiguration, _ sql: String) throws {
        _ = try withSession(configuration) { try $0.query(PostgresQuery(unsafeSQL: sql)) }
    }

    /// `body` with a session of its own on the database, closed afterwards.
    static func withSession<T>(_ configuration: PostgresStoreConfiguration, _ body: (PostgresSession) throws -> T) throws -> T {
        let link = PostgresLink(configuration: configuration, eventLoop: MultiThreadedEventLoopGroup.singleton.next(), name: "test")
        defer { link.close() }
        return try link.withSession(body)
    }
}
