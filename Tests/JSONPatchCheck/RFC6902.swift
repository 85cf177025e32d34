// An RFC 6902 JSON Patch apply written from the RFC alone, on Foundation's
// JSONSerialization values, sharing nothing with Core: it is the independent
// judge of the games' diffs. It favours plainness over speed. A target of its
// own so the tests and the fuzz targets (Fuzz/) judge with the same code.
import Foundation

public enum JSONPatchError: Error, Equatable, CustomStringConvertible {
    case malformedPatch(String)
    case badPointer(String)
    case pathNotFound(String)
    case testFailed(String)

    public var description: String {
        switch self {
        case .malformedPatch(let m): return "malformed patch: \(m)"
        case .badPointer(let p): return "bad JSON pointer: \(p)"
        case .pathNotFound(let p): return "no value at \(p)"
        case .testFailed(let p): return "test failed at \(p)"
        }
    }
}

/// Parses both texts and applies every operation of the patch in order; the
/// first failing operation throws (RFC 6902 section 5: the whole patch fails).
public func applyJSONPatch(_ patchText: String, to documentText: String) throws -> Any {
    guard let operations = try parseJSONText(patchText) as? [Any] else {
        throw JSONPatchError.malformedPatch("a patch is an array of operations")
    }
    var document = try parseJSONText(documentText)
    for operation in operations {
        document = try applyPatchOperation(operation, to: document)
    }
    return document
}

/// Applies a patch to a document already parsed (as `parseJSONText` gives it): a client
/// that keeps its copy of a state and applies every diff it is sent.
public func applyJSONPatch(_ patchText: String, toDocument document: Any) throws -> Any {
    guard let operations = try parseJSONText(patchText) as? [Any] else {
        throw JSONPatchError.malformedPatch("a patch is an array of operations")
    }
    var document = document
    for operation in operations {
        document = try applyPatchOperation(operation, to: document)
    }
    return document
}

public func parseJSONText(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

/// JSON equality: numbers by value, objects whatever their key order, and
/// booleans never equal to numbers (JSONSerialization gives both as NSNumber).
public func jsonValuesEqual(_ a: Any, _ b: Any) -> Bool {
    // Dispatch on the exact dynamic type: an `as?` cast of a Swift dictionary to
    // NSNumber would bridge the whole dictionary first, which is slow.
    let type = Swift.type(of: a)
    if type == [String: Any].self {
        guard Swift.type(of: b) == [String: Any].self else { return false }
        let x = a as! [String: Any], y = b as! [String: Any]
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { jsonValuesEqual(value, $0) } ?? false }
    }
    if type == [Any].self {
        guard Swift.type(of: b) == [Any].self else { return false }
        let x = a as! [Any], y = b as! [Any]
        return x.count == y.count && zip(x, y).allSatisfy { jsonValuesEqual($0, $1) }
    }
    if type == String.self {
        return Swift.type(of: b) == String.self && (a as! String) == (b as! String)
    }
    if a is NSNull { return b is NSNull }
    guard let x = a as? NSNumber, Swift.type(of: b) is NSNumber.Type, let y = b as? NSNumber else { return false }
    let xIsBool = isJSONBool(x), yIsBool = isJSONBool(y)
    guard xIsBool == yIsBool else { return false }
    if xIsBool { return x.boolValue == y.boolValue }
    if isJSONInteger(x) && isJSONInteger(y) {
        // Exact for integers beyond 2^53, where doubles would blur them.
        return x.int64Value == y.int64Value && x.uint64Value == y.uint64Value
    }
    return x.doubleValue == y.doubleValue
}

private let booleanNumberType = type(of: NSNumber(value: true))

private func isJSONBool(_ n: NSNumber) -> Bool {
    type(of: n) == booleanNumberType
}

private func isJSONInteger(_ n: NSNumber) -> Bool {
    let kind = String(cString: n.objCType)
    return kind != "d" && kind != "f"
}

// MARK: - Pointers (RFC 6901)

/// The reference tokens of a pointer, unescaped: `~1` to `/` first, then `~0` to `~`.
public func jsonPointerTokens(_ pointer: String) throws -> [String] {
    if pointer.isEmpty { return [] }
    guard pointer.hasPrefix("/") else { throw JSONPatchError.badPointer(pointer) }
    return try pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { raw in
        var token = ""
        var chars = raw.makeIterator()
        while let c = chars.next() {
            guard c == "~" else { token.append(c); continue }
            switch chars.next() {
            case "0": token.append("~")
            case "1": token.append("/")
            default: throw JSONPatchError.badPointer(pointer)
            }
        }
        return token
    }
}

/// An array index token: digits without a leading zero (section 4 of RFC 6901).
private func arrayIndex(_ token: String, pointer: String) throws -> Int {
    guard !token.isEmpty, token.allSatisfy({ $0.isASCII && $0.isNumber }), token == "0" || !token.hasPrefix("0"),
          let index = Int(token)
    else { throw JSONPatchError.pathNotFound(pointer) }
    return index
}

private func value(at tokens: ArraySlice<String>, in document: Any, pointer: String) throws -> Any {
    guard let token = tokens.first else { return document }
    if let object = document as? [String: Any] {
        guard let child = object[token] else { throw JSONPatchError.pathNotFound(pointer) }
        return try value(at: tokens.dropFirst(), in: child, pointer: pointer)
    }
    if let array = document as? [Any] {
        let index = try arrayIndex(token, pointer: pointer)
        guard index < array.count else { throw JSONPatchError.pathNotFound(pointer) }
        return try value(at: tokens.dropFirst(), in: array[index], pointer: pointer)
    }
    throw JSONPatchError.pathNotFound(pointer)
}

/// Rebuilds `document` with `change` applied to the container holding the last token.
private func changingParent(
    of tokens: ArraySlice<String>, in document: Any, pointer: String,
    _ change: (Any, String) throws -> Any
) throws -> Any {
    precondition(!tokens.isEmpty)
    if tokens.count == 1 { return try change(document, tokens.first!) }
    let token = tokens.first!
    let rest = tokens.dropFirst()
    if var object = document as? [String: Any] {
        guard let child = object[token] else { throw JSONPatchError.pathNotFound(pointer) }
        object[token] = try changingParent(of: rest, in: child, pointer: pointer, change)
        return object
    }
    if var array = document as? [Any] {
        let index = try arrayIndex(token, pointer: pointer)
        guard index < array.count else { throw JSONPatchError.pathNotFound(pointer) }
        array[index] = try changingParent(of: rest, in: array[index], pointer: pointer, change)
        return array
    }
    throw JSONPatchError.pathNotFound(pointer)
}

private func adding(_ newValue: Any, at pointer: String, to document: Any) throws -> Any {
    let tokens = try jsonPointerTokens(pointer)
    if tokens.isEmpty { return newValue }
    return try changingParent(of: tokens[...], in: document, pointer: pointer) { parent, token in
        if var object = parent as? [String: Any] {
            object[token] = newValue
            return object
        }
        if var array = parent as? [Any] {
            let index = token == "-" ? array.count : try arrayIndex(token, pointer: pointer)
            guard index <= array.count else { throw JSONPatchError.pathNotFound(pointer) }
            array.insert(newValue, at: index)
            return array
        }
        throw JSONPatchError.pathNotFound(pointer)
    }
}

private func removing(at pointer: String, from document: Any) throws -> Any {
    let tokens = try jsonPointerTokens(pointer)
    guard !tokens.isEmpty else { throw JSONPatchError.malformedPatch("cannot remove the whole document") }
    return try changingParent(of: tokens[...], in: document, pointer: pointer) { parent, token in
        if var object = parent as? [String: Any] {
            guard object.removeValue(forKey: token) != nil else { throw JSONPatchError.pathNotFound(pointer) }
            return object
        }
        if var array = parent as? [Any] {
            let index = try arrayIndex(token, pointer: pointer)
            guard index < array.count else { throw JSONPatchError.pathNotFound(pointer) }
            array.remove(at: index)
            return array
        }
        throw JSONPatchError.pathNotFound(pointer)
    }
}

private func replacing(at pointer: String, with newValue: Any, in document: Any) throws -> Any {
    let tokens = try jsonPointerTokens(pointer)
    if tokens.isEmpty { return newValue }
    return try changingParent(of: tokens[...], in: document, pointer: pointer) { parent, token in
        if var object = parent as? [String: Any] {
            guard object[token] != nil else { throw JSONPatchError.pathNotFound(pointer) }
            object[token] = newValue
            return object
        }
        if var array = parent as? [Any] {
            let index = try arrayIndex(token, pointer: pointer)
            guard index < array.count else { throw JSONPatchError.pathNotFound(pointer) }
            array[index] = newValue
            return array
        }
        throw JSONPatchError.pathNotFound(pointer)
    }
}

private func applyPatchOperation(_ operation: Any, to document: Any) throws -> Any {
    guard let fields = operation as? [String: Any], let op = fields["op"] as? String,
          let path = fields["path"] as? String
    else { throw JSONPatchError.malformedPatch("an operation needs string members op and path") }

    func member(_ name: String) throws -> Any {
        guard let v = fields[name] else { throw JSONPatchError.malformedPatch("\(op) needs \(name)") }
        return v
    }
    func fromPointer() throws -> String {
        guard let from = fields["from"] as? String else { throw JSONPatchError.malformedPatch("\(op) needs from") }
        return from
    }

    switch op {
    case "add":
        return try adding(member("value"), at: path, to: document)
    case "remove":
        return try removing(at: path, from: document)
    case "replace":
        return try replacing(at: path, with: member("value"), in: document)
    case "move":
        let from = try fromPointer()
        let fromTokens = try jsonPointerTokens(from), pathTokens = try jsonPointerTokens(path)
        if from == path { _ = try value(at: fromTokens[...], in: document, pointer: from); return document }
        guard !(pathTokens.count > fromTokens.count && Array(pathTokens.prefix(fromTokens.count)) == fromTokens) else {
            throw JSONPatchError.malformedPatch("cannot move \(from) into its own child \(path)")
        }
        let moved = try value(at: fromTokens[...], in: document, pointer: from)
        return try adding(moved, at: path, to: removing(at: from, from: document))
    case "copy":
        let from = try fromPointer()
        let copied = try value(at: jsonPointerTokens(from)[...], in: document, pointer: from)
        return try adding(copied, at: path, to: document)
    case "test":
        let actual = try value(at: jsonPointerTokens(path)[...], in: document, pointer: path)
        guard jsonValuesEqual(actual, try member("value")) else { throw JSONPatchError.testFailed(path) }
        return document
    default:
        throw JSONPatchError.malformedPatch("unknown op \(op)")
    }
}
