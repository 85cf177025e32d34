import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The server's listening socket, owned here rather than by lws so the server decides
/// how many connections to accept per loop iteration: a crowd arriving at once is taken
/// in bounded bites, and moves of other games are applied between them. Accepted sockets
/// are handed to lws (`lws_adopt_socket_vhost`). One of the two files that use unsafe
/// pointers outside lws's owner: `sockaddr` structures for bind and getsockname.
final class Listener {
    let descriptor: Int32
    let port: Int

    enum Failure: Error, CustomStringConvertible {
        case cannotListen(String)
        var description: String {
            switch self {
            case .cannotListen(let why): return why
            }
        }
    }

    /// Binds `host:port` (0 picks a free port). `reusePort` lets several servers share the port.
    init(host: String, port: Int, reusePort: Bool, backlog: Int32 = 4096) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var found: UnsafeMutablePointer<addrinfo>?
        let node = host.isEmpty ? nil : host
        let status = getaddrinfo(node, String(port), &hints, &found)
        guard status == 0, let first = found else {
            throw Failure.cannotListen("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(found) }
        var lastError = "no address for \(host)"
        var address: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = address {
            address = candidate.pointee.ai_next
            let fd = socket(candidate.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                            | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if reusePort { setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size)) }
            if candidate.pointee.ai_family == AF_INET6 {
                var zero: Int32 = 0  // "::" takes IPv4 too
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
            }
            guard bind(fd, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0, listen(fd, backlog) == 0 else {
                lastError = String(cString: strerror(errno))
                close(fd)
                continue
            }
            descriptor = fd
            self.port = Listener.boundPort(fd) ?? port
            return
        }
        throw Failure.cannotListen("could not listen on \(host):\(port): \(lastError)")
    }

    deinit { close(descriptor) }

    /// Accepts at most `limit` waiting connections; stops early when none is left.
    func accept(limit: Int, _ body: (Int32) -> Void) -> Int {
        var count = 0
        while count < limit {
            // lws makes an adopted socket non-blocking itself.
            let fd = Glibc.accept(descriptor, nil, nil)
            guard fd >= 0 else { break }  // EAGAIN: nothing left; EMFILE and the like: try next iteration
            // What lws's own listener would do: small frames leave at once, not when the last one is acked.
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            count += 1
            body(fd)
        }
        return count
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return nil
        }
    }
}
