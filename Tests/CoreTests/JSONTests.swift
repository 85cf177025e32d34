import Testing
@testable import Core

@Suite struct JSONTests {
    @Test func encodesCompactlyInKeyOrder() {
        let doc: JSON = .object(["b": 1, "a": [true, nil, "x\"y"], "c": 2.5, "d": 20.0])
        #expect(doc.encoded == #"{"b":1,"a":[true,null,"x\"y"],"c":2.5,"d":20}"#)
    }

    @Test func objectEqualityIgnoresKeyOrder() {
        #expect(JSON.object(["a": 1, "b": 2]) == JSON.object(["b": 2, "a": 1]))
        #expect(JSON.object(["a": 1]) != JSON.object(["a": 2]))
    }

    @Test func pointerEscapesTildeAndSlash() {
        #expect(Pointer.join("selections", "a/b~c") == "/selections/a~1b~0c")
    }

    @Test func splitMixMatchesReferenceOutput() {
        // Reference values of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        var g = SplitMix64(seed: 0)
        #expect(g.next() == 0xE220_A839_7B1D_CDAF)
        #expect(g.next() == 0x6E78_9E6A_A1B9_65F4)
    }
}
