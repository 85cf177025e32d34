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

    // MARK: A new connection's first request head

    /// What a new connection sent so far, looked at without taking it from the socket (lws reads it after).
    enum Peeked {
        /// This many bytes from the first, in the buffer (at most `peekCapacity`).
        case bytes(Int)
        case nothingYet
        /// Closed, or failed, before sending a whole head.
        case gone
    }

    /// Bytes looked at: enough for the longest head (`RequestHead.maxBytes`) and request line
    /// (one over `RequestLine.maxLineBytes` and its CR LF).
    static let peekCapacity = max(RequestHead.maxBytes, RequestLine.maxLineBytes + 3)

    /// Looks at what `fd` holds; `buffer` holds `peekCapacity` bytes.
    static func peek(_ fd: Int32, buffer: UnsafeMutableRawPointer) -> Peeked {
        let count = recv(fd, buffer, peekCapacity, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? .nothingYet : .gone }
        if count == 0 { return .gone }
        return .bytes(count)
    }

    /// Makes the socket readable (to epoll) only once it holds at least `bytes` bytes: a request
    /// head that came in part waits for more without waking the loop again for what is there.
    static func setReadLowWater(_ fd: Int32, _ bytes: Int) {
        var value = Int32(clamping: bytes)
        setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Answers a refused request and closes. What the client sent is read first (up to 64 KiB):
    /// closing with unread input makes the kernel reset the connection, and the client could
    /// lose the answer. Then the answer, then the end of the connection.
    static func refuse(_ fd: Int32, answer: [UInt8], buffer: UnsafeMutableRawPointer) {
        var drained = 0
        while drained < 65536 {
            let count = recv(fd, buffer, peekCapacity, Int32(MSG_DONTWAIT))
            if count <= 0 { break }
            drained += count
        }
        _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    static func closeSocket(_ fd: Int32) { close(fd) }

    /// A second descriptor of the same socket (close-on-exec), or nil.
    static func duplicate(_ fd: Int32) -> Int32? {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    /// The address of a connected socket's peer, IPv4 as IPv4-mapped (so an IPv4 client of a
    /// dual-stack socket is the same address as over IPv4).
    static func peerAddress(_ fd: Int32) -> ClientAddress? {
        guard var storage = socketAddress(fd, getpeername) else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    ClientAddress(ipv4: UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin6_addr) { bytes in
                        let high = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                        let low = bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                        return ClientAddress(high: high, low: low)
                    }
                }
            }
        default:
            return nil
        }
    }

    /// The socket's own or its peer's address (`getsockname` or `getpeername`).
    private static func socketAddress(
        _ fd: Int32, _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> sockaddr_storage? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &length) == 0 }
        }
        return ok ? storage : nil
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        guard var storage = socketAddress(fd, getsockname) else { return nil }
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
