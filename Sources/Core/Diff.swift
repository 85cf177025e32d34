/// One RFC 6902 operation against a game's public state document.
public enum PatchOp: Sendable, Equatable {
    case add(path: String, value: JSON)
    case remove(path: String)
    case replace(path: String, value: JSON)

    public var json: JSON {
        switch self {
        case let .add(path, value): return .object(["op": "add", "path": .string(path), "value": value])
        case let .remove(path): return .object(["op": "remove", "path": .string(path)])
        case let .replace(path, value): return .object(["op": "replace", "path": .string(path), "value": value])
        }
    }
}

/// What one accepted gesture changed: an RFC 6902 patch that turns the public
/// document before the gesture into the public document after it.
public struct Diff: Sendable, Equatable {
    public var ops: [PatchOp]

    public init(_ ops: [PatchOp] = []) { self.ops = ops }

    public var isEmpty: Bool { ops.isEmpty }

    /// The `ops` array as JSON text, encoded once so the same bytes can go to every receiver.
    public var encodedOps: String {
        var out = "["
        for (i, op) in ops.enumerated() {
            if i > 0 { out += "," }
            op.json.write(into: &out)
        }
        out += "]"
        return out
    }

    public mutating func append(_ op: PatchOp) { ops.append(op) }
    public mutating func append(contentsOf other: Diff) { ops.append(contentsOf: other.ops) }
}

/// JSON Pointer (RFC 6901) helpers.
public enum Pointer {
    /// Escapes one reference token: `~` as `~0`, `/` as `~1`.
    public static func escape(_ token: String) -> String {
        guard token.contains("~") || token.contains("/") else { return token }
        return token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    public static func join(_ tokens: String...) -> String {
        tokens.map { "/" + escape($0) }.joined()
    }
}

