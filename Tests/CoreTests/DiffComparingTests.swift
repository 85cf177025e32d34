import Core
import JSONPatchCheck
import Testing

/// `Diff(from:to:)`: the ops an independent RFC 6902 apply turns the old state into the new with.
@Suite struct DiffComparingTests {
    private func check(_ old: JSON, _ new: JSON) throws {
        let diff = Diff(from: old, to: new)
        let patched = try applyJSONPatch(JSON.array(diff.ops.map(\.json)).encoded, to: old.encoded)
        #expect(jsonValuesEqual(patched, try parseJSONText(new.encoded)), "\(old.encoded) -> \(new.encoded): \(diff.ops)")
    }

    @Test func aMarkOnABoardIsOneReplaceAndTheTurnAnother() {
        let before: JSON = .object(["cells": [.null, .null, .null], "turn": "p1", "moves": 0])
        let after: JSON = .object(["cells": [.null, "p1", .null], "turn": "p2", "moves": 1])
        #expect(Diff(from: before, to: after).ops == [.replace(path: "/cells/1", value: "p1"),
                                                     .replace(path: "/turn", value: "p2"), .replace(path: "/moves", value: 1)])
        #expect(Diff(from: after, to: after).ops.isEmpty)
    }

    @Test func arraysGrowAndShrinkAtTheEndAndKeysComeAndGo() throws {
        #expect(Diff(from: .object(["a": [1, 2, 3]]), to: .object(["a": [1]])).ops
                == [.remove(path: "/a/2"), .remove(path: "/a/1")])
        #expect(Diff(from: .object(["a": [1]]), to: .object(["a": [1, 2, 3]])).ops
                == [.add(path: "/a/1", value: 2), .add(path: "/a/2", value: 3)])
        #expect(Diff(from: .object(["a/b": 1, "c": 2]), to: .object(["c": 2, "d~": 3])).ops
                == [.remove(path: "/a~1b"), .add(path: "/d~0", value: 3)])
        try check(.object(["x": [[1, 2], .object(["y": true])]]),
                  .object(["x": [[1], .object(["y": false, "z": .null]), 4]]))
        try check([1, 2], .object(["k": 1]))
    }

    @Test func randomDocumentsPatchExactly() throws {
        var random = SplitMix64(seed: 7)
        func value(_ depth: Int) -> JSON {
            switch random.next() % (depth > 2 ? 3 : 5) {
            case 0: return .int(Int(random.next() % 4))
            case 1: return .null
            case 2: return .string(["a", "b"][Int(random.next() % 2)])
            case 3: return .array((0..<Int(random.next() % 4)).map { _ in value(depth + 1) })
            default:
                var pairs: [(key: String, value: JSON)] = []
                for _ in 0..<Int(random.next() % 4) {
                    let key = "k\(random.next() % 4)"
                    if !pairs.contains(where: { $0.key == key }) { pairs.append((key, value(depth + 1))) }
                }
                return .object(pairs)
            }
        }
        for _ in 0..<500 { try check(value(0), value(0)) }
    }
}
