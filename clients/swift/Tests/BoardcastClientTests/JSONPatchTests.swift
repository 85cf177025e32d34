import Testing

@testable import BoardcastClient

/// RFC 6902's own examples (its appendix A) and the failures it names.
@Suite struct JSONPatchTests {
    func patch(_ doc: String, _ ops: String) throws -> JSONValue {
        try JSONPatch.apply(JSONValue(parsing: ops), to: JSONValue(parsing: doc))
    }

    func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    @Test func addObjectMember() throws {
        #expect(try patch(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/baz","value":"qux"}]"#) == json(#"{"baz":"qux","foo":"bar"}"#))
    }

    @Test func addArrayElement() throws {
        #expect(try patch(#"{"foo":["bar","baz"]}"#, #"[{"op":"add","path":"/foo/1","value":"qux"}]"#) == json(#"{"foo":["bar","qux","baz"]}"#))
    }

    @Test func addToTheEndWithDash() throws {
        #expect(try patch(#"{"foo":["bar"]}"#, #"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#) == json(#"{"foo":["bar",["abc","def"]]}"#))
    }

    @Test func addNestedMember() throws {
        #expect(try patch(#"{"foo":"bar"}"#, #"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#) == json(#"{"foo":"bar","child":{"grandchild":{}}}"#))
    }

    @Test func addReplacesTheWholeDocumentAtTheRoot() throws {
        #expect(try patch(#"{"foo":"bar"}"#, #"[{"op":"add","path":"","value":[1]}]"#) == json("[1]"))
    }

    @Test func removeObjectMemberAndArrayElement() throws {
        #expect(try patch(#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"remove","path":"/baz"}]"#) == json(#"{"foo":"bar"}"#))
        #expect(try patch(#"{"foo":["bar","qux","baz"]}"#, #"[{"op":"remove","path":"/foo/1"}]"#) == json(#"{"foo":["bar","baz"]}"#))
    }

    @Test func replaceValue() throws {
        #expect(try patch(#"{"baz":"qux","foo":"bar"}"#, #"[{"op":"replace","path":"/baz","value":"boo"}]"#) == json(#"{"baz":"boo","foo":"bar"}"#))
    }

    @Test func moveValueAndArrayElement() throws {
        #expect(
            try patch(
                #"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
                #"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#)
                == json(#"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#))
        #expect(try patch(#"{"foo":["all","grass","cows","eat"]}"#, #"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#) == json(#"{"foo":["all","cows","eat","grass"]}"#))
    }

    @Test func copyValue() throws {
        #expect(try patch(#"{"a":[1,2],"b":{}}"#, #"[{"op":"copy","from":"/a","path":"/b/c"}]"#) == json(#"{"a":[1,2],"b":{"c":[1,2]}}"#))
    }

    @Test func testSucceedsAndFails() throws {
        let doc = #"{"baz":"qux","foo":["a",2,"c"]}"#
        #expect(try patch(doc, #"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]"#) == json(doc))
        #expect(throws: PatchError.self) { try patch(#"{"baz":"qux"}"#, #"[{"op":"test","path":"/baz","value":"bar"}]"#) }
        // Numbers compare as numbers: 1 and 1.0 are the same JSON value.
        #expect(try patch(#"{"n":1}"#, #"[{"op":"test","path":"/n","value":1.0}]"#) == json(#"{"n":1}"#))
    }

    @Test func escapedPointerTokens() throws {
        #expect(try patch(#"{"/":9,"~1":10}"#, #"[{"op":"test","path":"/~01","value":10},{"op":"replace","path":"/~1","value":8}]"#) == json(#"{"/":8,"~1":10}"#))
    }

    @Test func failuresChangeNothing() throws {
        let original = try json(#"{"foo":"bar","list":[1,2]}"#)
        for ops in [
            #"[{"op":"add","path":"/baz/bat","value":"qux"}]"#,  // no parent
            #"[{"op":"remove","path":"/nope"}]"#,
            #"[{"op":"replace","path":"/list/2","value":3}]"#,  // past the end
            #"[{"op":"add","path":"/list/3","value":3}]"#,
            #"[{"op":"add","path":"/list/01","value":3}]"#,  // leading zero
            #"[{"op":"move","from":"/list","path":"/list/0"}]"#,  // into itself
            #"[{"op":"copy","from":"/nope","path":"/x"}]"#,
            #"[{"op":"replace","path":"/foo","value":1},{"op":"frobnicate","path":"/foo"}]"#,
            #"[{"op":"add","path":"foo","value":1}]"#,  // not a pointer
            #"{"op":"add"}"#,
        ] {
            var doc = original
            #expect(throws: PatchError.self, "\(ops)") { doc = try JSONPatch.apply(JSONValue(parsing: ops), to: doc) }
            #expect(doc == original)
        }
    }

    @Test func aKlondikeDiff() throws {
        // A tap on the stock with draw 1: the top stock card turns face up onto the waste.
        let state = try json(#"{"stock":["??","??"],"waste":[],"moves":0,"score":0}"#)
        let ops = try json(#"[{"op":"remove","path":"/stock/1"},{"op":"add","path":"/waste/-","value":"7H"},{"op":"replace","path":"/moves","value":1}]"#)
        #expect(try JSONPatch.apply(ops, to: state) == json(#"{"stock":["??"],"waste":["7H"],"moves":1,"score":0}"#))
    }
}

@Suite struct JSONValueTests {
    @Test func parsesAndWritesCompactJSON() throws {
        let text = #"{"a":[1,2.5,-3,true,false,null],"b":"x\"y\\z\n","c":{}}"#
        let value = try JSONValue(parsing: text)
        #expect(value.serialized() == text)
        #expect(try JSONValue(parsing: value.serialized()) == value)
        #expect(value["a"]?[0]?.intValue == 1)
        #expect(value["a"]?[1]?.intValue == nil)
        #expect(value["a"]?[3]?.boolValue == true)
        #expect(value["b"]?.stringValue == "x\"y\\z\n")
    }

    @Test func writesIntegersWithoutAFraction() {
        #expect(JSONValue.number(3).serialized() == "3")
        #expect(JSONValue.number(9_007_199_254_740_991).serialized() == "9007199254740991")
        #expect(JSONValue.number(0.1).serialized() == "0.1")
        #expect(JSONValue.string("\u{1}").serialized() == #""\u0001""#)
    }

    @Test func keepsTheOrderOfALineKeys() {
        #expect(JSONValue.serializedObject(["move": 1, "id": "x", "seq": 2, "column": 3]) == #"{"move":1,"id":"x","seq":2,"column":3}"#)
    }

    @Test func boolsAndNumbersStayApart() throws {
        #expect(try JSONValue(parsing: "[true,1,0,false]") == [true, 1, 0, false])
    }
}
