import Testing
@testable import Core

/// The byte-level encoder behind `encoded` and `encodedOps`, pinned against
/// plain expectations, at every position of its eight-byte steps.
@Suite struct JSONEncodingTests {
    /// The escaping JSON requires, written the slow obvious way, for ASCII text.
    static func reference(_ s: String) -> String {
        var out = "\""
        for u in s.utf8 {
            switch u {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case ..<0x20: out += "\\u00" + (u < 0x10 ? "0" : "") + String(u, radix: 16)
            default: out.append(Character(Unicode.Scalar(u)))
            }
        }
        return out + "\""
    }

    @Test func escapesEverySpecialByteAtEveryOffset() {
        for special in ["\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1f}"] {
            for offset in 0..<20 {
                let text = String(repeating: "a", count: offset) + special + String(repeating: "b", count: 19 - offset)
                #expect(JSON.string(text).encoded == Self.reference(text), "\(offset) \(special.debugDescription)")
            }
        }
    }

    @Test func copiesPlainAndMultiByteTextUnchanged() {
        for text in ["", "a", "abcdefg", "abcdefgh", "abcdefghi", "/rectangles/a1b-2c3-d4e/alpha", "é", "zażółć gęślą jaźń ~ / \u{7f} 🂡"] {
            #expect(JSON.string(text).encoded == "\"" + text + "\"")
        }
    }

    @Test func numbersAndContainers() {
        #expect(JSON.array([0, -7, 1234567890, .int(Int.min), .int(Int.max), 0.5, -0.0, 1e300, 9_007_199_254_740_993.0]).encoded
            == "[0,-7,1234567890,-9223372036854775808,9223372036854775807,0.5,0,1e+300,9007199254740992.0]")
        #expect(JSON.object([:]).encoded == "{}" && JSON.array([]).encoded == "[]")
        #expect(JSON.object(["k\"": [nil, true, false, .object(["x": "y"])]]).encoded == #"{"k\"":[null,true,false,{"x":"y"}]}"#)
    }

    @Test func encodedOpsMatchTheOpsAsJSON() {
        let diff = Diff([
            .add(path: "/a~1b", value: .object(["x": 1.5, "s": "q\"uote"])),
            .remove(path: "/order/0"),
            .replace(path: "/selections/p1", value: "a1b-2c3-d4e"),
        ])
        #expect(diff.encodedOps == JSON.array(diff.ops.map(\.json)).encoded)
        #expect(diff.encodedOps == #"[{"op":"add","path":"/a~1b","value":{"x":1.5,"s":"q\"uote"}},"#
            + #"{"op":"remove","path":"/order/0"},{"op":"replace","path":"/selections/p1","value":"a1b-2c3-d4e"}]"#)
        #expect(Diff().encodedOps == "[]")
    }
}
