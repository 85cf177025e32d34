import JSONPatchCheck
import Testing
@testable import Core

/// `Diff(from:to:)`: the ops that turn one document into another, found by comparing them.
/// Each test shows the document before and after, and the exact ops; every diff is also
/// applied by `JSONPatchCheck` (an RFC 6902 apply that shares nothing with Core) to the
/// document before, which must give the document after.
@Suite struct DiffComparingTests {
    @Test func equalDocumentsGiveNoOps() {
        expect(from: .object(["a": [1, 2], "b": .object(["c": nil])]),
               to: .object(["b": .object(["c": nil]), "a": [1, 2]]),
               ops: "[]")
        // One number, written two ways.
        expect(from: .object(["n": 2]), to: .object(["n": 2.0]), ops: "[]")
    }

    @Test func objectsAreComparedKeyByKey() {
        // before                           after
        // {"a":1,"b":"x","c":true}         {"a":2,"c":true,"d":null}
        expect(from: .object(["a": 1, "b": "x", "c": true]),
               to: .object(["a": 2, "c": true, "d": nil]),
               ops: #"[{"op":"replace","path":"/a","value":2},{"op":"remove","path":"/b"},{"op":"add","path":"/d","value":null}]"#)
    }

    @Test func nestedObjectsAreComparedAllTheWayDown() {
        // {"table":{"stock":["??","??"],"score":0}}  ->  {"table":{"stock":["??"],"score":5}}
        expect(from: .object(["table": .object(["stock": ["??", "??"], "score": 0])]),
               to: .object(["table": .object(["stock": ["??"], "score": 5])]),
               ops: #"[{"op":"remove","path":"/table/stock/1"},{"op":"replace","path":"/table/score","value":5}]"#)
    }

    @Test func arraysAreComparedByIndexThenTheTailIsAddedOrRemoved() {
        // [1,2,3]  ->  [1,9,3,4,5]: index 1 replaced, then 4 and 5 added in order.
        expect(from: [1, 2, 3], to: [1, 9, 3, 4, 5],
               ops: #"[{"op":"replace","path":"/1","value":9},{"op":"add","path":"/3","value":4},{"op":"add","path":"/4","value":5}]"#)
        // [1,2,3,4]  ->  [0,2]: index 0 replaced, then the tail removed from its end.
        expect(from: [1, 2, 3, 4], to: [0, 2],
               ops: #"[{"op":"replace","path":"/0","value":0},{"op":"remove","path":"/3"},{"op":"remove","path":"/2"}]"#)
        // Not a search for the shortest edit: a value put in front shifts everything.
        expect(from: ["b", "c"], to: ["a", "b", "c"],
               ops: #"[{"op":"replace","path":"/0","value":"a"},{"op":"replace","path":"/1","value":"b"},{"op":"add","path":"/2","value":"c"}]"#)
    }

    @Test func aValueOfAnotherKindIsReplacedWhole() {
        // {"line":null}  ->  {"line":[[0,0],[1,1]]}, and a number that becomes a string.
        expect(from: .object(["line": nil, "n": 1]), to: .object(["line": [[0, 0], [1, 1]], "n": "1"]),
               ops: #"[{"op":"replace","path":"/line","value":[[0,0],[1,1]]},{"op":"replace","path":"/n","value":"1"}]"#)
        // The whole document, when it changes kind at the top.
        expect(from: [1], to: .object(["a": 1]), ops: #"[{"op":"replace","path":"","value":{"a":1}}]"#)
        // true is not 1.
        expect(from: [true], to: [1], ops: #"[{"op":"replace","path":"/0","value":1}]"#)
    }

    @Test func keysAreEscapedInPointers() {
        expect(from: .object(["a/b": 1, "m~n": 2]), to: .object(["a/b": 3]),
               ops: #"[{"op":"replace","path":"/a~1b","value":3},{"op":"remove","path":"/m~0n"}]"#)
    }

    @Test func aBoardOfFourInARowBeforeAndAfterADrop() throws {
        // . . .        . . .
        // . . .   ->   . X .
        // O X .        O X .
        var game = try FourInARow(stored: .object([:]), time: 0)
        _ = game.apply(.start, context: MoveContext(player: "server", time: 0))
        _ = game.apply(.move(1), context: MoveContext(player: "p1", time: 0))
        _ = game.apply(.move(0), context: MoveContext(player: "p2", time: 0))
        let before = game.state(for: .spectator)
        guard case .success(let outcome) = game.apply(.move(1), context: MoveContext(player: "p1", time: 0)) else {
            Issue.record("the drop was refused")
            return
        }
        let after = game.state(for: .spectator)
        // The same ops the game writes itself, in the order of the state's keys.
        expect(from: before, to: after,
               ops: #"[{"op":"add","path":"/columns/1/1","value":"p1"},{"op":"replace","path":"/turn","value":"p2"},"#
                   + #"{"op":"replace","path":"/moves","value":3}]"#)
        #expect(Set(Diff(from: before, to: after).ops.map(\.json.encoded)) == Set(outcome.fullDiff.ops.map(\.json.encoded)))
    }

    private func expect(from old: JSON, to new: JSON, ops: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let diff = Diff(from: old, to: new)
        #expect(diff.encodedOps == ops, sourceLocation: sourceLocation)
        do {
            let patched = try applyJSONPatch(diff.encodedOps, to: old.encoded)
            #expect(jsonValuesEqual(patched, try parseJSONText(new.encoded)), "\(diff.encodedOps) on \(old.encoded)",
                    sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(diff.encodedOps) does not apply to \(old.encoded): \(error)", sourceLocation: sourceLocation)
        }
    }
}
