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

// Encoding every diff is on the server's hot path (see core-bench), so text is
// written once, straight into the String's own storage: a first pass bounds the
// length (`maxEncodedCount`), a second writes the bytes. Appending to a String
// piece by piece costs several times more.
extension JSON {
    /// Compact JSON text, no spaces, keys in insertion order.
    public var encoded: String {
        JSONTextBuffer.makeString(capacity: maxEncodedCount) { write(into: &$0) }
    }

    public func write(into out: inout String) {
        out += encoded
    }

    /// An upper bound on the UTF-8 length of `encoded`.
    var maxEncodedCount: Int {
        switch self {
        case .null: return 4
        case .bool: return 5
        case .int: return 20
        case .double: return JSON.maxNumberCount
        case .string(let s): return JSON.maxEncodedCount(s)
        case .array(let items):
            var n = 2 + items.count
            for item in items { n += item.maxEncodedCount }
            return n
        case .object(let pairs):
            var n = 2 + 2 * pairs.count
            for pair in pairs { n += JSON.maxEncodedCount(pair.key) + pair.value.maxEncodedCount }
            return n
        }
    }

    /// Quotes, and at most six bytes (`\u001f`) for every byte of the string.
    static func maxEncodedCount(_ s: String) -> Int { 2 + 6 * s.utf8.count }

    /// The longest text `writeNumber` makes: 17 for integers below 2^53, 24 for
    /// the longest shortest-round-trip double (`-2.2250738585072014e-308`).
    static let maxNumberCount = 32

    func write(into out: inout JSONTextBuffer) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .int(let i): out.appendInteger(i)
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
        out += JSONTextBuffer.makeString(capacity: maxNumberCount) { writeNumber(d, into: &$0) }
    }

    static func writeNumber(_ d: Double, into out: inout JSONTextBuffer) {
        precondition(d.isFinite, "JSON has no NaN or infinity")
        if abs(d) < 9.007_199_254_740_992e15, let i = Int(exactly: d) {
            out.appendInteger(i)
        } else {
            out.append(d.description)
        }
    }

    public static func writeString(_ s: String, into out: inout String) {
        out += JSONTextBuffer.makeString(capacity: maxEncodedCount(s)) { writeString(s, into: &$0) }
    }

    /// Escapes `"`, `\\` and control characters; everything else, multi-byte UTF-8 included, is copied as is.
    static func writeString(_ s: String, into out: inout JSONTextBuffer) {
        out.append(UInt8(ascii: "\""))
        // Contiguous UTF-8 (every native or small string) is scanned and copied in one go.
        let copied: Bool? = s.utf8.withContiguousStorageIfAvailable { out.appendIfNoEscapes($0) }
        if copied != true {
            for u in s.utf8 {
                switch u {
                case 0x22: out.append(#"\""#)
                case 0x5C: out.append(#"\\"#)
                case 0x0A: out.append(#"\n"#)
                case 0x0D: out.append(#"\r"#)
                case 0x09: out.append(#"\t"#)
                case ..<0x20:
                    let hex: StaticString = "0123456789abcdef"
                    out.append(#"\u00"#)
                    out.append(hex.utf8Start[Int(u >> 4)])
                    out.append(hex.utf8Start[Int(u & 0xF)])
                default: out.append(u)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
