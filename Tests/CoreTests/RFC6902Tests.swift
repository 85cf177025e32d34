import Testing
import JSONPatchCheck

/// The independent patch apply is only a judge if it is right: RFC 6902's
/// appendix A examples, plus the error cases the diffs rely on.
@Suite struct RFC6902Tests {
    private func expectPatch(_ patch: String, on document: String, gives expected: String,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try applyJSONPatch(patch, to: document)
        #expect(jsonValuesEqual(result, try parseJSONText(expected)), "got \(result)", sourceLocation: sourceLocation)
    }

    private func expectFailure(_ patch: String, on document: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: JSONPatchError.self, sourceLocation: sourceLocation) { try applyJSONPatch(patch, to: document) }
    }

    @Test func a1AddsAnObjectMember() throws {
        try expectPatch(#"[{"op":"add","path":"/baz","value":"qux"}]"#, on: #"{"foo":"bar"}"#,
                        gives: #"{"baz":"qux","foo":"bar"}"#)
    }

    @Test func a2AddsAnArrayElement() throws {
        try expectPatch(#"[{"op":"add","path":"/foo/1","value":"qux"}]"#, on: #"{"foo":["bar","baz"]}"#,
                        gives: #"{"foo":["bar","qux","baz"]}"#)
    }

    @Test func a3RemovesAnObjectMember() throws {
        try expectPatch(#"[{"op":"remove","path":"/baz"}]"#, on: #"{"baz":"qux","foo":"bar"}"#, gives: #"{"foo":"bar"}"#)
    }

    @Test func a4RemovesAnArrayElement() throws {
        try expectPatch(#"[{"op":"remove","path":"/foo/1"}]"#, on: #"{"foo":["bar","qux","baz"]}"#,
                        gives: #"{"foo":["bar","baz"]}"#)
    }

    @Test func a5ReplacesAValue() throws {
        try expectPatch(#"[{"op":"replace","path":"/baz","value":"boo"}]"#, on: #"{"baz":"qux","foo":"bar"}"#,
                        gives: #"{"baz":"boo","foo":"bar"}"#)
    }

    @Test func a6MovesAValue() throws {
        try expectPatch(#"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#,
                        on: #"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
                        gives: #"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#)
    }

    @Test func a7MovesAnArrayElement() throws {
        try expectPatch(#"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#, on: #"{"foo":["all","grass","cows","eat"]}"#,
                        gives: #"{"foo":["all","cows","eat","grass"]}"#)
    }

    @Test func a8TestsValues() throws {
        try expectPatch(#"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#,
                        on: #"{"baz":"qux","foo":["a",2,"c"]}"#, gives: #"{"baz":"qux","foo":["a",2,"c"]}"#)
    }

    @Test func a9FailsAWrongTest() {
        expectFailure(#"[{"op":"test","path":"/baz","value":"bar"}]"#, on: #"{"baz":"qux"}"#)
    }

    @Test func a10AddsANestedObject() throws {
        try expectPatch(#"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#, on: #"{"foo":"bar"}"#,
                        gives: #"{"foo":"bar","child":{"grandchild":{}}}"#)
    }

    @Test func a11IgnoresUnknownMembers() throws {
        try expectPatch(#"[{"op":"add","path":"/baz","value":"qux","xyz":123}]"#, on: #"{"foo":"bar"}"#,
                        gives: #"{"foo":"bar","baz":"qux"}"#)
    }

    @Test func a12RefusesToAddUnderAMissingParent() {
        expectFailure(#"[{"op":"add","path":"/baz/bat","value":"qux"}]"#, on: #"{"foo":"bar"}"#)
    }

    @Test func a14UnescapesTildeOneBeforeTildeZero() throws {
        try expectPatch(#"[{"op":"test","path":"/~01","value":10}]"#, on: #"{"/":9,"~1":10}"#, gives: #"{"/":9,"~1":10}"#)
        try expectPatch(#"[{"op":"replace","path":"/~1","value":8}]"#, on: #"{"/":9,"~1":10}"#, gives: #"{"/":8,"~1":10}"#)
    }

    @Test func a15KeepsStringsAndNumbersApart() {
        expectFailure(#"[{"op":"test","path":"/~01","value":"10"}]"#, on: #"{"/":9,"~1":10}"#)
    }

    @Test func a16AddsAnArrayValueAtTheEnd() throws {
        try expectPatch(#"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#, on: #"{"foo":["bar"]}"#,
                        gives: #"{"foo":["bar",["abc","def"]]}"#)
    }

    @Test func copiesAndReplacesTheWholeDocument() throws {
        try expectPatch(#"[{"op":"copy","from":"/a","path":"/b"}]"#, on: #"{"a":[1]}"#, gives: #"{"a":[1],"b":[1]}"#)
        try expectPatch(#"[{"op":"replace","path":"","value":[1,2]}]"#, on: #"{"a":1}"#, gives: "[1,2]")
    }

    @Test func refusesMissingTargetsAndBadIndices() {
        expectFailure(#"[{"op":"remove","path":"/nope"}]"#, on: #"{"a":1}"#)
        expectFailure(#"[{"op":"replace","path":"/nope","value":1}]"#, on: #"{"a":1}"#)
        expectFailure(#"[{"op":"remove","path":"/a/-"}]"#, on: #"{"a":[1]}"#)
        expectFailure(#"[{"op":"remove","path":"/a/01"}]"#, on: #"{"a":[1,2]}"#)
        expectFailure(#"[{"op":"add","path":"/a/3","value":0}]"#, on: #"{"a":[1,2]}"#)
        expectFailure(#"[{"op":"remove","path":"/a/2"}]"#, on: #"{"a":[1,2]}"#)
        expectFailure(#"[{"op":"move","from":"/a","path":"/a/b"}]"#, on: #"{"a":{}}"#)
        expectFailure(#"[{"op":"add","path":"a","value":0}]"#, on: #"{}"#)
        expectFailure(#"[{"op":"add","path":"/~2","value":0}]"#, on: #"{}"#)
        expectFailure(#"[{"op":"add","path":"/x"}]"#, on: #"{}"#)
        expectFailure(#"[{"op":"frobnicate","path":"/x"}]"#, on: #"{}"#)
    }

    @Test func comparesNumbersByValueAndObjectsByContent() throws {
        #expect(jsonValuesEqual(try parseJSONText("[1, 2.5, true]"), try parseJSONText("[1.0, 2.5, true]")))
        #expect(jsonValuesEqual(try parseJSONText(#"{"a":1,"b":2}"#), try parseJSONText(#"{"b":2,"a":1}"#)))
        #expect(!jsonValuesEqual(try parseJSONText("true"), try parseJSONText("1")))
        #expect(!jsonValuesEqual(try parseJSONText("[1,2]"), try parseJSONText("[2,1]")))
        #expect(!jsonValuesEqual(try parseJSONText(#"{"a":1}"#), try parseJSONText(#"{"a":1,"b":null}"#)))
        #expect(!jsonValuesEqual(try parseJSONText("9007199254740993"), try parseJSONText("9007199254740992")))
    }
}
