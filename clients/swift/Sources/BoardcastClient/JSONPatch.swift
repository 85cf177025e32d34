/// RFC 6902 JSON Patch and RFC 6901 JSON Pointer on `JSONValue`.
///
/// Every diff the server sends is such a patch against the state at the seq before it
/// (PROTOCOL section 4). `JSONValue` is a value type, so applying a patch works on a copy: a
/// patch that fails half-way leaves the caller's state as it was (the follower then asks for a
/// snapshot instead of showing a state the server never had).
public enum JSONPatch {
    /// Applies `ops` (the `ops` array of a diff) to `document` and returns the result.
    /// - Throws: `PatchError` if an operation is malformed or does not apply.
    public static func apply(_ ops: JSONValue, to document: JSONValue) throws -> JSONValue {
        guard case .array(let list) = ops else { throw PatchError("a patch is an array of operations") }
        var doc = document
        for op in list { try applyOne(op, to: &doc) }
        return doc
    }

    /// The tokens of a JSON Pointer (`/tableau/2` → `["tableau", "2"]`), `~1` and `~0` decoded.
    public static func tokens(of pointer: String) throws -> [String] {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { throw PatchError("bad pointer \(pointer)") }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    /// The value a pointer names, or nil if there is none.
    public static func value(at pointer: String, in document: JSONValue) -> JSONValue? {
        guard let tokens = try? tokens(of: pointer) else { return nil }
        var node = document
        for token in tokens {
            switch node {
            case .array(let a):
                guard let i = index(token), i < a.count else { return nil }
                node = a[i]
            case .object(let o):
                guard let v = o[token] else { return nil }
                node = v
            default:
                return nil
            }
        }
        return node
    }

    // MARK: - Operations

    static func applyOne(_ op: JSONValue, to doc: inout JSONValue) throws {
        guard case .object(let o) = op, let name = o["op"]?.stringValue, let path = o["path"]?.stringValue else {
            throw PatchError("bad operation \(op)")
        }
        switch name {
        case "add":
            guard let value = o["value"] else { throw PatchError("add needs a value") }
            try add(value, at: path, in: &doc)
        case "remove":
            _ = try remove(at: path, in: &doc)
        case "replace":
            guard let value = o["value"] else { throw PatchError("replace needs a value") }
            try replace(value, at: path, in: &doc)
        case "move":
            guard let from = o["from"]?.stringValue else { throw PatchError("move needs from") }
            if from == path { return }
            if path.hasPrefix(from + "/") { throw PatchError("cannot move \(from) into itself") }
            let value = try remove(at: from, in: &doc)
            try add(value, at: path, in: &doc)
        case "copy":
            guard let from = o["from"]?.stringValue else { throw PatchError("copy needs from") }
            guard let value = value(at: from, in: doc) else { throw PatchError("path \(from) does not exist") }
            try add(value, at: path, in: &doc)
        case "test":
            guard let expected = o["value"] else { throw PatchError("test needs a value") }
            guard let actual = value(at: path, in: doc), actual == expected else {
                throw PatchError("test failed at \(path)")
            }
        default:
            throw PatchError("unknown op \(name)")
        }
    }

    static func add(_ value: JSONValue, at path: String, in doc: inout JSONValue) throws {
        let tokens = try tokens(of: path)
        guard let last = tokens.last else {
            doc = value
            return
        }
        try modifyParent(tokens.dropLast(), in: &doc, path: path) { parent in
            switch parent {
            case .array(var a):
                let i: Int
                if last == "-" {
                    i = a.count
                } else {
                    guard let n = index(last), n <= a.count else { throw PatchError("array index \(last) out of range in \(path)") }
                    i = n
                }
                a.insert(value, at: i)
                parent = .array(a)
            case .object(var o):
                o[last] = value
                parent = .object(o)
            default:
                throw PatchError("path \(path) does not exist")
            }
        }
    }

    static func remove(at path: String, in doc: inout JSONValue) throws -> JSONValue {
        let tokens = try tokens(of: path)
        guard let last = tokens.last else { throw PatchError("cannot remove the whole document") }
        var removed = JSONValue.null
        try modifyParent(tokens.dropLast(), in: &doc, path: path) { parent in
            switch parent {
            case .array(var a):
                guard let i = index(last), i < a.count else { throw PatchError("array index \(last) out of range in \(path)") }
                removed = a.remove(at: i)
                parent = .array(a)
            case .object(var o):
                guard let v = o.removeValue(forKey: last) else { throw PatchError("path \(path) does not exist") }
                removed = v
                parent = .object(o)
            default:
                throw PatchError("path \(path) does not exist")
            }
        }
        return removed
    }

    static func replace(_ value: JSONValue, at path: String, in doc: inout JSONValue) throws {
        let tokens = try tokens(of: path)
        guard let last = tokens.last else {
            doc = value
            return
        }
        try modifyParent(tokens.dropLast(), in: &doc, path: path) { parent in
            switch parent {
            case .array(var a):
                guard let i = index(last), i < a.count else { throw PatchError("array index \(last) out of range in \(path)") }
                a[i] = value
                parent = .array(a)
            case .object(var o):
                guard o[last] != nil else { throw PatchError("path \(path) does not exist") }
                o[last] = value
                parent = .object(o)
            default:
                throw PatchError("path \(path) does not exist")
            }
        }
    }

    /// Walks to the container that `tokens` name and lets `body` change it in place.
    static func modifyParent(
        _ tokens: ArraySlice<String>, in node: inout JSONValue, path: String,
        _ body: (inout JSONValue) throws -> Void
    ) throws {
        guard let first = tokens.first else {
            try body(&node)
            return
        }
        let rest = tokens.dropFirst()
        switch node {
        case .array(var a):
            guard let i = index(first), i < a.count else { throw PatchError("path \(path) does not exist") }
            node = .null  // let go of the array's storage, so that the change below does not copy it
            try modifyParent(rest, in: &a[i], path: path, body)
            node = .array(a)
        case .object(var o):
            guard o[first] != nil else { throw PatchError("path \(path) does not exist") }
            node = .null
            try modifyParent(rest, in: &o[first]!, path: path, body)
            node = .object(o)
        default:
            throw PatchError("path \(path) does not exist")
        }
    }

    /// An array index token: `0`, or digits without a leading zero.
    static func index(_ token: String) -> Int? {
        guard !token.isEmpty, token.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        if token.count > 1 && token.hasPrefix("0") { return nil }
        return Int(token)
    }
}

/// A patch that is malformed or does not apply to the document.
public struct PatchError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
