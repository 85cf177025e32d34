/// A JSON value as the games publish it.
///
/// Objects keep their keys in insertion order so that documents print the way
/// the protocol shows them; equality ignores key order, as JSON does.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(key: String, value: JSON)])

    public static func object(_ pairs: KeyValuePairs<String, JSON>) -> JSON {
        .object(pairs.map { (key: $0.key, value: $0.value) })
    }

    public subscript(key: String) -> JSON? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first(where: { $0.key == key })?.value
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// An integer, also from a double with no fractional part (JSON has one number type).
    public var intValue: Int? {
        switch self {
        case .int(let i): return i
        case .double(let d) where abs(d) < 9.007_199_254_740_992e15: return Int(exactly: d)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectPairs: [(key: String, value: JSON)]? {
        if case .object(let o) = self { return o }
        return nil
    }
}

extension JSON: Equatable {
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            var byKey: [String: JSON] = [:]
            for pair in b { byKey[pair.key] = pair.value }
            return a.allSatisfy { byKey[$0.key] == $0.value }
        default:
            if let x = lhs.doubleValue, let y = rhs.doubleValue { return x == y }
            return false
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Encoding

// Text is built as UTF-8 bytes and turned into a String once: appending to a
// byte array is several times cheaper than appending to a String piece by
// piece, and encoding every diff is on the server's hot path (see core-bench).
extension JSON {
    /// Compact JSON text, no spaces, keys in insertion order.
    public var encoded: String {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public func write(into out: inout String) {
        var bytes: [UInt8] = []
        write(into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the compact JSON text as UTF-8.
    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .int(let i): JSON.writeInteger(i, into: &out)
        case .double(let d): JSON.writeNumber(d, into: &out)
        case .string(let s): JSON.writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            var first = true
            for item in items {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            var first = true
            for pair in pairs {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSON.writeString(pair.key, into: &out)
                out.append(UInt8(ascii: ":"))
                pair.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Integral doubles print without a fraction so `20.0` and `20` read alike.
    public static func writeNumber(_ d: Double, into out: inout String) {
        var bytes: [UInt8] = []
        writeNumber(d, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    public static func writeNumber(_ d: Double, into out: inout [UInt8]) {
        precondition(d.isFinite, "JSON has no NaN or infinity")
        if abs(d) < 9.007_199_254_740_992e15, let i = Int(exactly: d) {
            writeInteger(i, into: &out)
        } else {
            out.append(contentsOf: d.description.utf8)
        }
    }

    /// Decimal digits straight into the buffer, most significant first, with no intermediate String.
    public static func writeInteger(_ i: Int, into out: inout [UInt8]) {
        if i < 0 { out.append(UInt8(ascii: "-")) }
        let n = i.magnitude
        var power: UInt = 1
        while n / power >= 10 { power &*= 10 }
        while power > 0 {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: (n / power) % 10))
            power /= 10
        }
    }

    public static func writeString(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        writeString(s, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Escapes `"`, `\\` and control characters; everything else, multi-byte UTF-8 included, is copied as is.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Contiguous UTF-8 (every native or small string) is scanned and copied in one go.
        let copied: Bool? = s.utf8.withContiguousStorageIfAvailable { bytes in
            for u in bytes where u < 0x20 || u == 0x22 || u == 0x5C { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied != true {
            for u in s.utf8 {
                switch u {
                case 0x22: out.append(contentsOf: #"\""#.utf8)
                case 0x5C: out.append(contentsOf: #"\\"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                case ..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(hex[Int(u >> 4)])
                    out.append(hex[Int(u & 0xF)])
                default: out.append(u)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
