import Core

/// Strict JSON text (RFC 8259) to `Core.JSON`, working on UTF-8 bytes.
///
/// Used for stored JSON columns and for client frames, so it must never crash
/// or recurse without bound on hostile input:
/// - nesting deeper than `maxDepth` arrays/objects is refused;
/// - invalid UTF-8, lone surrogates, control characters in strings, leading
///   zeros, `NaN`/`Infinity`, numbers too large for a finite `Double` and
///   anything after the value are refused;
/// - integers that fit in `Int` become `.int`, every other number `.double`;
/// - objects keep their keys in document order; a repeated key keeps its first
///   position and its last value (as JavaScript's `JSON.parse` does).
public enum JSONText {
    public static let maxDepth = 64

    public static func parse(_ text: String) throws(JSONTextError) -> JSON {
        var text = text
        return try text.withUTF8 { JSONTextParser.parse($0) }.get()
    }

    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONTextError) -> JSON {
        let result = bytes.withContiguousStorageIfAvailable { JSONTextParser.parse($0) }
            ?? Array(bytes).withUnsafeBufferPointer { JSONTextParser.parse($0) }
        return try result.get()
    }

    /// Like `parse`, but a number too large for a finite `Double` (`1e400`) reads as
    /// infinity instead of failing: for client frames, which are well-formed JSON then
    /// and get a `bad-request` that names their `id` from the field checks, which refuse
    /// non-finite numbers. Such a value must never be encoded again.
    public static func parseAllowingHugeNumbers(_ bytes: some Collection<UInt8>) throws(JSONTextError) -> JSON {
        let parse = { (buffer: UnsafeBufferPointer<UInt8>) -> Result<JSON, JSONTextError> in
            var parser = JSONTextParser(bytes: buffer)
            parser.hugeNumbersAreInfinite = true
            return parser.parseDocument()
        }
        let result = bytes.withContiguousStorageIfAvailable(parse) ?? Array(bytes).withUnsafeBufferPointer(parse)
        return try result.get()
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONTextError) -> JSON {
        try JSONTextParser.parse(bytes.bindMemory(to: UInt8.self)).get()
    }
}

/// Why a text is not JSON, and the byte offset where that became clear.
public struct JSONTextError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        case empty
        case unexpectedEnd
        /// A byte that cannot start or continue what was being read (`expected` says what could).
        case unexpectedByte(UInt8, expected: String)
        case invalidNumber
        /// A number whose magnitude a `Double` cannot hold (`1e400`).
        case numberOutOfRange
        case invalidEscape
        case loneSurrogate
        case controlCharacterInString
        case invalidUTF8
        case tooDeep
        case trailingCharacters
    }

    public var reason: Reason
    public var offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch reason {
        case .empty: what = "no JSON value (empty text)"
        case .unexpectedEnd: what = "the text ends in the middle of a value"
        case .unexpectedByte(let byte, let expected):
            let shown = (0x20..<0x7F).contains(byte)
                ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
            what = "\(shown) where \(expected) was expected"
        case .invalidNumber: what = "malformed number"
        case .numberOutOfRange: what = "number too large"
        case .invalidEscape: what = "invalid escape sequence in string"
        case .loneSurrogate: what = "\\u escape is half of a surrogate pair"
        case .controlCharacterInString: what = "unescaped control character in string"
        case .invalidUTF8: what = "invalid UTF-8"
        case .tooDeep: what = "nested deeper than \(JSONText.maxDepth) levels"
        case .trailingCharacters: what = "characters after the JSON value"
        }
        return "invalid JSON at byte \(offset): \(what)"
    }
}

/// One pass over the bytes; recursion depth is bounded by `JSONText.maxDepth`.
private struct JSONTextParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Reused for strings with escapes, so each such string costs one String allocation.
    var scratch: [UInt8] = []
    var hugeNumbersAreInfinite = false

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JSON, JSONTextError> {
        var parser = JSONTextParser(bytes: bytes)
        return parser.parseDocument()
    }

    mutating func parseDocument() -> Result<JSON, JSONTextError> {
        do throws(JSONTextError) {
            skipWhitespace()
            guard index < bytes.count else { throw JSONTextError(.empty, at: index) }
            let value = try parseValue(depth: 0)
            skipWhitespace()
            guard index == bytes.count else { throw JSONTextError(.trailingCharacters, at: index) }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() throws(JSONTextError) -> UInt8 {
        guard index < bytes.count else { throw JSONTextError(.unexpectedEnd, at: index) }
        return bytes[index]
    }

    private mutating func parseValue(depth: Int) throws(JSONTextError) -> JSON {
        switch try peek() {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte: throw JSONTextError(.unexpectedByte(byte, expected: "a JSON value"), at: index)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONTextError) {
        for expected in UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount) {
            let byte = try peek()
            guard byte == expected else {
                throw JSONTextError(.unexpectedByte(byte, expected: "'\(literal)'"), at: index)
            }
            index += 1
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONTextError) -> JSON {
        guard depth <= JSONText.maxDepth else { throw JSONTextError(.tooDeep, at: index) }
        index += 1  // {
        var pairs: [(key: String, value: JSON)] = []
        // Built only for larger objects, where a linear scan for repeated keys would cost too much.
        var positions: [String: Int]? = nil
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return .object(pairs)
        }
        while true {
            skipWhitespace()
            let byte = try peek()
            guard byte == UInt8(ascii: "\"") else {
                throw JSONTextError(.unexpectedByte(byte, expected: "a string key"), at: index)
            }
            let key = try parseString()
            skipWhitespace()
            let colon = try peek()
            guard colon == UInt8(ascii: ":") else {
                throw JSONTextError(.unexpectedByte(colon, expected: "':'"), at: index)
            }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            if pairs.count == 16 && positions == nil {
                var built: [String: Int] = [:]
                for (i, pair) in pairs.enumerated() { built[pair.key] = i }
                positions = built
            }
            let existing = positions == nil ? pairs.firstIndex(where: { $0.key == key }) : positions?[key]
            if let existing {
                pairs[existing].value = value
            } else {
                positions?[key] = pairs.count
                pairs.append((key: key, value: value))
            }
            skipWhitespace()
            let separator = try peek()
            index += 1
            switch separator {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return .object(pairs)
            default:
                throw JSONTextError(.unexpectedByte(separator, expected: "',' or '}'"), at: index - 1)
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONTextError) -> JSON {
        guard depth <= JSONText.maxDepth else { throw JSONTextError(.tooDeep, at: index) }
        index += 1  // [
        var items: [JSON] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            let separator = try peek()
            index += 1
            switch separator {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return .array(items)
            default:
                throw JSONTextError(.unexpectedByte(separator, expected: "',' or ']'"), at: index - 1)
            }
        }
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONTextError) -> JSON {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        // Integer part: `0` alone, or a non-zero digit then digits.
        let integerStart = index
        guard index < bytes.count, isDigit(bytes[index]) else { throw numberError(start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw JSONTextError(.invalidNumber, at: start) }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let integerEnd = index
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw numberError(start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw numberError(start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger, let value = exactInteger(bytes[integerStart..<integerEnd], negative: negative) {
            return .int(value)
        }
        // The grammar is checked above, so the standard library's correctly rounded parser sees only JSON numbers.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw JSONTextError(.invalidNumber, at: start) }
        guard value.isFinite || hugeNumbersAreInfinite else { throw JSONTextError(.numberOutOfRange, at: start) }
        return .double(value)
    }

    private func numberError(_ start: Int) -> JSONTextError {
        index < bytes.count ? JSONTextError(.invalidNumber, at: start) : JSONTextError(.unexpectedEnd, at: index)
    }

    /// The digits as an `Int`, or nil when they overflow (then the number is read as a double).
    private func exactInteger(_ digits: Slice<UnsafeBufferPointer<UInt8>>, negative: Bool) -> Int? {
        var value = 0
        for digit in digits {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            // Accumulating negatively reaches Int.min, which has no positive counterpart.
            let (next, overflow2) = negative
                ? times10.subtractingReportingOverflow(Int(digit &- 0x30))
                : times10.addingReportingOverflow(Int(digit &- 0x30))
            if overflow1 || overflow2 { return nil }
            value = next
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    // MARK: Strings

    private mutating func parseString() throws(JSONTextError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, so the string is the bytes themselves once checked to be UTF-8.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            try stepOverCharacter()
        }
        guard index < bytes.count else { throw JSONTextError(.unexpectedEnd, at: index) }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try appendEscape()
            } else {
                let characterStart = index
                try stepOverCharacter()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[characterStart..<index]))
            }
        }
        throw JSONTextError(.unexpectedEnd, at: index)
    }

    /// Moves past one unescaped character, checking it is allowed in a string and valid UTF-8.
    private mutating func stepOverCharacter() throws(JSONTextError) {
        let byte = bytes[index]
        if byte < 0x20 { throw JSONTextError(.controlCharacterInString, at: index) }
        if byte < 0x80 {
            index += 1
            return
        }
        // RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch byte {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: throw JSONTextError(.invalidUTF8, at: index)
        }
        guard index + length <= bytes.count else {
            // A cut-off sequence at the very end is a truncated text, but still not UTF-8.
            throw JSONTextError(.invalidUTF8, at: index)
        }
        let second = bytes[index + 1]
        guard second >= lower && second <= upper else { throw JSONTextError(.invalidUTF8, at: index) }
        for i in 2..<length where bytes[index + i] & 0xC0 != 0x80 {
            throw JSONTextError(.invalidUTF8, at: index)
        }
        index += length
    }

    private mutating func appendEscape() throws(JSONTextError) {
        let start = index
        index += 1  // backslash
        guard index < bytes.count else { throw JSONTextError(.unexpectedEnd, at: index) }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(code)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONTextError(.loneSurrogate, at: start) }
                index += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw JSONTextError(.loneSurrogate, at: start) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw JSONTextError(.loneSurrogate, at: start)
            }
            appendUTF8(scalar)
        default:
            throw JSONTextError(.invalidEscape, at: start)
        }
    }

    private mutating func readHex4() throws(JSONTextError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try peek()
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 0x41 + 10
            default: throw JSONTextError(.invalidEscape, at: index)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
