import Core
import Realtime
import Testing

/// `JSON ==` treats 2 and 2.0 alike; these tests also pin which case a number became.
enum NumberShape: Equatable, Sendable {
    case int(Int), double(Double), other
    init(_ json: JSON) {
        switch json {
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        default: self = .other
        }
    }
}

private func reason(_ text: String) -> JSONTextError.Reason? {
    do {
        _ = try JSONText.parse(text)
        return nil
    } catch {
        return error.reason
    }
}

private func reason(bytes: [UInt8]) -> JSONTextError.Reason? {
    do {
        _ = try JSONText.parse(bytes)
        return nil
    } catch {
        return error.reason
    }
}

@Suite struct JSONTextTests {
    @Test func objectsKeepKeyOrderAndValues() throws {
        let parsed = try JSONText.parse(#" { "type" : "drag", "from":"/waste" ,"to":"/tableau/3","n":[1, true,false, null ,{}] } "#)
        #expect(parsed.objectPairs?.map(\.key) == ["type", "from", "to", "n"])
        #expect(parsed.encoded == #"{"type":"drag","from":"/waste","to":"/tableau/3","n":[1,true,false,null,{}]}"#)
    }

    @Test func repeatedKeysKeepFirstPositionAndLastValue() throws {
        let small = try JSONText.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(small.encoded == #"{"a":3,"b":2}"#)
        // Past 16 keys the parser switches to a dictionary index; the rule must not change.
        let keys = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let large = try JSONText.parse("{\(keys),\"k3\":\"x\",\"k19\":\"y\",\"new\":0}")
        let pairs = try #require(large.objectPairs)
        #expect(pairs.count == 21)
        #expect(pairs[3].key == "k3" && pairs[3].value == "x")
        #expect(pairs[19].key == "k19" && pairs[19].value == "y")
        #expect(pairs[20].key == "new")
    }

    @Test(arguments: [
        ("0", NumberShape.int(0)), ("-0", .int(0)), ("42", .int(42)), ("-42", .int(-42)),
        ("9223372036854775807", .int(Int.max)), ("-9223372036854775808", .int(Int.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("1.5", .double(1.5)), ("2.0", .double(2)), ("-0.25", .double(-0.25)),
        ("1e2", .double(100)), ("1E+2", .double(100)), ("25e-2", .double(0.25)),
        ("0.1", .double(0.1)), ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ("5e-324", .double(.leastNonzeroMagnitude)), ("1e-400", .double(0)),
    ])
    func numbersDistinguishIntegersFromDoubles(text: String, expected: NumberShape) throws {
        #expect(NumberShape(try JSONText.parse(text)) == expected)
    }

    @Test func stringsDecodeEscapesAndSurrogatePairs() throws {
        #expect(try JSONText.parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try JSONText.parse(#""caf\u00e9 \u00E9""#) == .string("café é"))
        #expect(try JSONText.parse(#""\ud83d\ude00!""#) == .string("😀!"))
        #expect(try JSONText.parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try JSONText.parse("\"héllo 😀 \u{7F}\"") == .string("héllo 😀 \u{7F}"))
        #expect(try JSONText.parse(#""before\nafter 😀""#) == .string("before\nafter 😀"))
    }

    @Test func nestingUpToTheLimitIsAcceptedAndOneMoreIsNot() throws {
        let limit = JSONText.maxDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try JSONText.parse(deepest).arrayValue != nil)
        let objects = String(repeating: #"{"a":"#, count: limit) + "1" + String(repeating: "}", count: limit)
        #expect(try JSONText.parse(objects)["a"] != nil)
        #expect(reason("[" + deepest + "]") == .tooDeep)
        #expect(reason(String(repeating: "[", count: 100_000)) == .tooDeep)
    }

    @Test(arguments: [
        ("", JSONTextError.Reason.empty), ("  \n\t", .empty),
        (#"{"a":1} x"#, .trailingCharacters), ("1 2", .trailingCharacters), ("{}{}", .trailingCharacters),
        ("[1,]", .unexpectedByte(UInt8(ascii: "]"), expected: "a JSON value")),
        ("[1 2]", .unexpectedByte(UInt8(ascii: "2"), expected: "',' or ']'")),
        (#"{"a" 1}"#, .unexpectedByte(UInt8(ascii: "1"), expected: "':'")),
        ("{a:1}", .unexpectedByte(UInt8(ascii: "a"), expected: "a string key")),
        (#"{"a":1,}"#, .unexpectedByte(UInt8(ascii: "}"), expected: "a string key")),
        (#"{"a":1"#, .unexpectedEnd), ("[", .unexpectedEnd), (#""abc"#, .unexpectedEnd),
        ("tru", .unexpectedEnd), ("trux", .unexpectedByte(UInt8(ascii: "x"), expected: "'true'")),
        ("01", .invalidNumber), ("-01", .invalidNumber), ("1.e3", .invalidNumber), ("1.", .unexpectedEnd),
        ("1e", .unexpectedEnd), ("1e+", .unexpectedEnd), ("-", .unexpectedEnd), ("-a", .invalidNumber),
        (".5", .unexpectedByte(UInt8(ascii: "."), expected: "a JSON value")),
        ("+1", .unexpectedByte(UInt8(ascii: "+"), expected: "a JSON value")),
        ("NaN", .unexpectedByte(UInt8(ascii: "N"), expected: "a JSON value")),
        ("-Infinity", .invalidNumber), ("0x10", .trailingCharacters),
        ("1e400", .numberOutOfRange), ("-1e400", .numberOutOfRange),
        (#""\x""#, .invalidEscape), (#""\u12""#, .invalidEscape), (#""\u12"#, .unexpectedEnd),
        (#""\ud83d""#, .loneSurrogate), (#""\ude00""#, .loneSurrogate), (#""\ud83d\u0041""#, .loneSurrogate),
        (#""\ud83dx""#, .loneSurrogate),
        ("\"a\tb\"", .controlCharacterInString), ("\"a\nb\"", .controlCharacterInString),
        ("'a'", .unexpectedByte(UInt8(ascii: "'"), expected: "a JSON value")),
        ("\u{FEFF}{}", .unexpectedByte(0xEF, expected: "a JSON value")),
    ])
    func invalidTextsAreRefusedWithTheirReason(text: String, expected: JSONTextError.Reason) {
        #expect(reason(text) == expected)
    }

    @Test func invalidUTF8InStringsIsRefused() {
        let quote = UInt8(ascii: "\"")
        #expect(reason(bytes: [quote, 0xFF, quote]) == .invalidUTF8)
        #expect(reason(bytes: [quote, 0xC0, 0xAF, quote]) == .invalidUTF8)  // overlong '/'
        #expect(reason(bytes: [quote, 0xE0, 0x80, 0xAF, quote]) == .invalidUTF8)  // overlong
        #expect(reason(bytes: [quote, 0xED, 0xA0, 0x80, quote]) == .invalidUTF8)  // encoded surrogate
        #expect(reason(bytes: [quote, 0xF4, 0x90, 0x80, 0x80, quote]) == .invalidUTF8)  // above U+10FFFF
        #expect(reason(bytes: [quote, 0xE2, 0x82, quote]) == .invalidUTF8)  // cut short
        #expect(reason(bytes: [quote, 0xE2, 0x82]) == .invalidUTF8)
        #expect(reason(bytes: [quote, 0x5C, 0x6E, 0x80, quote]) == .invalidUTF8)  // after an escape
        #expect(reason(bytes: [quote, 0xE2, 0x82, 0xAC, quote]) == nil)  // '€'
    }

    @Test func errorsSayWhereAndWhat() {
        #expect(throws: JSONTextError(.unexpectedByte(UInt8(ascii: "1"), expected: "':'"), at: 5)) {
            try JSONText.parse(#"{"a" 1}"#)
        }
        #expect(throws: JSONTextError(.loneSurrogate, at: 2)) { try JSONText.parse(#"["\ud800"]"#) }
        #expect(throws: JSONTextError(.trailingCharacters, at: 3)) { try JSONText.parse("[] ]") }
        let error = JSONTextError(.unexpectedByte(UInt8(ascii: "1"), expected: "':'"), at: 5)
        #expect(error.description == "invalid JSON at byte 5: '1' where ':' was expected")
        #expect(JSONTextError(.controlCharacterInString, at: 2).description
            == "invalid JSON at byte 2: unescaped control character in string")
    }

    @Test func bytesAndRawBuffersParseLikeStrings() throws {
        let text = #"{"type":"tap","target":"/stock","id":"é1"}"#
        let bytes = Array(text.utf8)
        #expect(try JSONText.parse(bytes) == JSONText.parse(text))
        let raw = try bytes.withUnsafeBytes { try JSONText.parse($0) }
        #expect(raw.encoded == text)
        #expect(try JSONText.parse(bytes[...]).encoded == text)
    }

    @Test func encodedDocumentsParseBackToThemselves() throws {
        let document: JSON = .object([
            "draw": 3, "seed": 9_007_199_254_740_991, "ratio": 0.1, "tiny": 1e-7, "big": 1.5e300,
            "neg": -7, "text": "tab\t quote\" backslash\\ ctrl\u{1} é 😀", "list": [nil, false, [], .object([:])],
        ])
        let parsed = try JSONText.parse(document.encoded)
        #expect(parsed == document)
        #expect(parsed.encoded == document.encoded)
    }

    /// Mutated and random inputs must be answered with a value or an error, never a crash,
    /// and whatever parses must print and parse back to the same value.
    @Test func mutatedInputsNeverCrash() throws {
        var random = SplitMix64(seed: 2024)
        let seeds = [
            #"{"type":"drag","from":{"x":1.5,"y":-2e3},"to":{"x":10,"y":20},"id":"a\u00e9\ud83d\ude00"}"#,
            #"[true,false,null,0,-0.5e-3,"\\\"",[[[{}]]]]"#,
        ]
        let alphabet = Array(#"{}[]":,.-+eE0123456789\u"tfnrl "#.utf8) + [0x00, 0x80, 0xC3, 0xA9, 0xED, 0xFF]
        var parsedCount = 0
        for round in 0..<4000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let position = Int(random.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: bytes.insert(byte, at: position)
                case 1: if position < bytes.count { bytes.remove(at: position) }
                default: if position < bytes.count { bytes[position] = byte }
                }
            }
            if let value = try? JSONText.parse(bytes) {
                parsedCount += 1
                #expect(try JSONText.parse(value.encoded) == value)
            }
        }
        #expect(parsedCount > 100)  // the mutations must not all be trivially invalid
    }
}
