/// Which web pages may open a WebSocket to the server (`--allowed-origin`). A browser sends
/// the page's origin in `Origin` on every upgrade; a program (websocat, a bot) usually sends
/// none. With no flag every origin is allowed, as before.
public struct OriginPolicy: Sendable, Equatable {
    /// The allowed origins in the form browsers send them (`https://example.com`,
    /// `http://localhost:8080`); empty means every origin is allowed.
    public private(set) var allowed: Set<String> = []

    public init() {}

    /// - Throws: `OriginPolicy.Invalid` for a value that is not `SCHEME://HOST[:PORT]` (or `null`).
    public init(allowing origins: [String]) throws {
        for origin in origins { allowed.insert(try OriginPolicy.normalise(origin)) }
    }

    public var allowsEveryOrigin: Bool { allowed.isEmpty }

    /// An upgrade with no `Origin` is allowed (not a browser, so not a page acting for its
    /// visitor); one with an `Origin` must match a listed one exactly, as the browser sent it.
    public func allows(origin: String?) -> Bool {
        guard let origin, !allowed.isEmpty else { return true }
        return allowed.contains(origin)
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let value: String
        public var description: String {
            "--allowed-origin takes SCHEME://HOST[:PORT] (as a browser sends it in Origin, e.g. https://example.com), not \(value)"
        }
    }

    /// The form a browser sends (RFC 6454 serialisation): scheme and host in lower case, no
    /// path, and no port when it is the scheme's default (80 for http, 443 for https). A
    /// trailing `/` is forgiven; `null` (what sandboxed pages send) is kept as it is.
    static func normalise(_ value: String) throws -> String {
        if value == "null" { return value }
        guard let separator = value.range(of: "://") else { throw Invalid(value: value) }
        let scheme = value[..<separator.lowerBound].lowercased()
        var rest = value[separator.upperBound...]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }),
              !rest.isEmpty, !rest.contains(where: { "/?#@ \t".contains($0) }) else { throw Invalid(value: value) }
        var host = String(rest).lowercased()
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw Invalid(value: value) }
            let after = host[host.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw Invalid(value: value) }
                port = after.dropFirst()
            }
            host = String(host[...close])
        } else if let colon = host.lastIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { throw Invalid(value: value) }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(port), number <= 65535 else { throw Invalid(value: value) }
            let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
            if !isDefault { return "\(scheme)://\(host):\(number)" }
        }
        return "\(scheme)://\(host)"
    }
}
