/// A client's IP address as one 16-byte value: an IPv6 address as it is, an IPv4 address
/// as its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`). So an IPv4 peer seen through a dual-stack
/// socket and the same peer seen through an IPv4 socket are one address, and one table keyed
/// by this type serves both families.
public struct ClientAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address's first and last eight bytes, big-endian (network order).
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// An IPv4 address, its first octet in the top byte.
    public init(ipv4: UInt32) {
        self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(ipv4))
    }

    /// Not known (`::`): what a connection carries before the shell decided its address.
    public static let unknown = ClientAddress(high: 0, low: 0)

    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// What the per-address limits count by: an IPv4 address itself, an IPv6 address's /64
    /// network. One host or home gets a whole /64, so counting each IPv6 address apart would
    /// give one client 2^64 separate allowances.
    public var limitKey: ClientAddress { isIPv4 ? self : ClientAddress(high: high, low: 0) }

    /// Dotted quad for IPv4; RFC 5952 text (lower case, longest run of zero groups as `::`) for IPv6.
    public var description: String {
        if isIPv4 {
            let v4 = UInt32(truncatingIfNeeded: low)
            return "\(v4 >> 24).\((v4 >> 16) & 0xFF).\((v4 >> 8) & 0xFF).\(v4 & 0xFF)"
        }
        let groups = (0..<8).map { index -> UInt16 in
            let word = index < 4 ? high : low
            return UInt16(truncatingIfNeeded: word >> (UInt64(3 - index % 4) * 16))
        }
        // The longest run of two or more zero groups becomes "::" (the first such run on a tie).
        var best = (start: -1, length: 0)
        var run = (start: -1, length: 0)
        for (index, group) in groups.enumerated() {
            if group == 0 {
                run = run.start < 0 ? (index, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        if best.length < 2 { return groups.map { String($0, radix: 16) }.joined(separator: ":") }
        let head = groups[..<best.start].map { String($0, radix: 16) }.joined(separator: ":")
        let tail = groups[(best.start + best.length)...].map { String($0, radix: 16) }.joined(separator: ":")
        return head + "::" + tail
    }

    /// Reads `1.2.3.4`, `2001:db8::1`, `::ffff:1.2.3.4` (and `[2001:db8::1]`); nil for anything
    /// else, zone ids (`fe80::1%eth0`) and ports included.
    public init?<S: StringProtocol>(_ text: S) {
        var bytes = Array(text.utf8)
        if bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") {
            bytes = Array(bytes.dropFirst().dropLast())
            guard bytes.contains(UInt8(ascii: ":")) else { return nil }
        }
        if !bytes.contains(UInt8(ascii: ":")) {
            guard let v4 = ClientAddress.parseIPv4(bytes[...]) else { return nil }
            self.init(ipv4: v4)
            return
        }
        guard let (high, low) = ClientAddress.parseIPv6(bytes) else { return nil }
        self.init(high: high, low: low)
    }

    /// Four decimal octets 0...255, no leading zeros (`010` is refused: some readers take it as octal).
    static func parseIPv4(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        var value: UInt32 = 0
        var octets = 0
        var current: UInt32 = 0
        var digits = 0
        var leadingZero = false
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, octets < 3 else { return nil }
                value = value << 8 | current
                octets += 1
                current = 0
                digits = 0
                leadingZero = false
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), !leadingZero else { return nil }
            if digits == 0 && byte == UInt8(ascii: "0") { leadingZero = true }
            current = current * 10 + UInt32(byte - UInt8(ascii: "0"))
            digits += 1
            guard current <= 255 else { return nil }
        }
        guard digits > 0, octets == 3 else { return nil }
        return value << 8 | current
    }

    /// Eight groups of one to four hex digits, at most one `::`, and an IPv4 tail in place of the last two.
    private static func parseIPv6(_ bytes: [UInt8]) -> (UInt64, UInt64)? {
        guard bytes.count >= 2, bytes.count <= 45 else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawGap = false
        var index = 0
        if bytes.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
            sawGap = true
            index = 2
        } else if bytes[0] == UInt8(ascii: ":") {
            return nil
        }
        while index < bytes.count {
            // An IPv4 tail: the last group, holding a dot.
            if !bytes[index...].contains(UInt8(ascii: ":")), bytes[index...].contains(UInt8(ascii: ".")) {
                guard let v4 = parseIPv4(bytes[index...]) else { return nil }
                let groups = [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                if sawGap { tail += groups } else { head += groups }
                index = bytes.count
                break
            }
            var group: UInt32 = 0
            var digits = 0
            while index < bytes.count, let digit = hexDigitValue(bytes[index]) {
                group = group << 4 | UInt32(digit)
                digits += 1
                index += 1
                guard digits <= 4 else { return nil }
            }
            guard digits > 0 else { return nil }
            if sawGap { tail.append(UInt16(group)) } else { head.append(UInt16(group)) }
            guard index < bytes.count else { break }
            guard bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                guard !sawGap else { return nil }
                sawGap = true
                index += 1
                if index == bytes.count { break }
            } else if index == bytes.count {
                return nil  // a trailing single ':'
            }
        }
        let count = head.count + tail.count
        if sawGap { guard count <= 7 else { return nil } } else { guard count == 8 else { return nil } }
        let groups = head + Array(repeating: 0, count: 8 - count) + tail
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<4 { high = high << 16 | UInt64(groups[index]) }
        for index in 4..<8 { low = low << 16 | UInt64(groups[index]) }
        return (high, low)
    }
}

/// The value of an ASCII hex digit, either case.
func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}

/// An address or a network (`10.0.0.1`, `10.0.0.0/8`, `2001:db8::/32`): what `--trusted-proxy` takes.
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    public let base: ClientAddress
    /// Leading bits that must match, out of 128 (an IPv4 prefix /n is stored as 96 + n).
    public let prefixBits: Int

    /// Reads `ADDR` or `ADDR/BITS`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = ClientAddress(parts[0]) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var bits = width
        if parts.count == 2 {
            guard parts[1].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let given = Int(parts[1]), given <= width else { return nil }
            bits = given
        }
        prefixBits = bits + (address.isIPv4 ? 96 : 0)
        base = AddressRange.masked(address, prefixBits)
    }

    public func contains(_ address: ClientAddress) -> Bool {
        AddressRange.masked(address, prefixBits) == base
    }

    public var description: String {
        let width = base.isIPv4 ? 32 : 128
        let bits = prefixBits - (base.isIPv4 ? 96 : 0)
        return bits == width ? "\(base)" : "\(base)/\(bits)"
    }

    private static func masked(_ address: ClientAddress, _ bits: Int) -> ClientAddress {
        func mask(_ bitsInWord: Int) -> UInt64 {
            bitsInWord <= 0 ? 0 : bitsInWord >= 64 ? .max : ~(UInt64.max >> UInt64(bitsInWord))
        }
        return ClientAddress(high: address.high & mask(bits), low: address.low & mask(bits - 64))
    }
}
