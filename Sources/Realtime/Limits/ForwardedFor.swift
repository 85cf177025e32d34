/// Who the client of a WebSocket upgrade is: the peer of the TCP connection, unless that
/// peer is a proxy the operator trusts (`--trusted-proxy`), in which case the client is
/// read from the `X-Forwarded-For` header the proxy added.
public struct TrustedProxies: Sendable, Equatable {
    public var ranges: [AddressRange]

    public init(_ ranges: [AddressRange] = []) {
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func trusts(_ address: ClientAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// Entries of a header looked at, from its right end: a chain of proxies longer than this
    /// is not believed (and the work per upgrade stays bounded).
    static let maxEntries = 32

    /// The client behind `peer`. Each proxy appends the address it got the request from, so
    /// the header is read from the right: the right-most entry that is not itself a trusted
    /// proxy is the client (what nginx's `real_ip_recursive on` does). Entries to the left of
    /// it were written by the client or by proxies nobody vouches for, and are ignored.
    ///
    /// - A peer that is not trusted: its own address, whatever the header says (anyone can send one).
    /// - No header, an empty one, or one that does not parse (an entry that is not an address,
    ///   such as `unknown`, or a chain over `maxEntries`): the peer. A proxy that garbles the
    ///   header is counted as one client rather than trusting a guess.
    /// - Every entry a trusted proxy: the left-most entry.
    public func client(peer: ClientAddress, forwardedFor header: String?) -> ClientAddress {
        guard trusts(peer), let header else { return peer }
        var entries = 0
        var leftMost: ClientAddress?
        for piece in header.split(separator: ",", omittingEmptySubsequences: false).reversed() {
            entries += 1
            guard entries <= TrustedProxies.maxEntries,
                  let address = TrustedProxies.address(piece.trimmingSpaces()) else { return peer }
            if !trusts(address) { return address }
            leftMost = address
        }
        return leftMost ?? peer
    }

    /// One entry: an address, optionally with a port (`1.2.3.4:5678`, `[2001:db8::1]:443`), as
    /// some proxies write it.
    static func address(_ entry: Substring) -> ClientAddress? {
        if let address = ClientAddress(entry) { return address }
        if entry.first == "[", let close = entry.firstIndex(of: "]") {
            let rest = entry[entry.index(after: close)...]
            guard rest.first == ":", isPort(rest.dropFirst()) else { return nil }
            return ClientAddress(entry[...close])
        }
        // An IPv4 address with a port: one colon only (more would be IPv6, already tried).
        let colons = entry.filter { $0 == ":" }.count
        guard colons == 1, let colon = entry.firstIndex(of: ":"), isPort(entry[entry.index(after: colon)...]) else {
            return nil
        }
        guard let address = ClientAddress(entry[..<colon]), address.isIPv4 else { return nil }
        return address
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            && Int(text).map { $0 <= 65535 } == true
    }
}

extension Substring {
    /// Without the spaces and tabs HTTP allows around list elements.
    func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
