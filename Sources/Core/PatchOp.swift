/// One RFC 6902 operation against a game's public state document.
public enum PatchOp: Sendable, Equatable {
    case add(path: String, value: JSON)
    case remove(path: String)
    case replace(path: String, value: JSON)

    /// Writes `json`'s text without building it: the same bytes, fewer allocations.
    func write(into out: inout JSONTextBuffer) {
        switch self {
        case let .add(path, value):
            out.append(#"{"op":"add","path":"#)
            JSON.writeString(path, into: &out)
            out.append(#","value":"#)
            value.write(into: &out)
        case let .remove(path):
            out.append(#"{"op":"remove","path":"#)
            JSON.writeString(path, into: &out)
        case let .replace(path, value):
            out.append(#"{"op":"replace","path":"#)
            JSON.writeString(path, into: &out)
            out.append(#","value":"#)
            value.write(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// An upper bound on the length of the text `write` makes.
    var maxEncodedCount: Int {
        switch self {
        case let .add(path, value), let .replace(path, value):
            return 34 + JSON.maxEncodedCount(path) + value.maxEncodedCount
        case let .remove(path):
            return 26 + JSON.maxEncodedCount(path)
        }
    }

    public var json: JSON {
        switch self {
        case let .add(path, value): return .object(["op": "add", "path": .string(path), "value": value])
        case let .remove(path): return .object(["op": "remove", "path": .string(path)])
        case let .replace(path, value): return .object(["op": "replace", "path": .string(path), "value": value])
        }
    }
}

extension PatchOp {
    /// An op read back from its JSON form (`{"op":"add","path":...,"value":...}`), as a
    /// stored diff holds it; nil for anything that is not one of the three ops Core makes.
    public init?(json: JSON) {
        guard let op = json["op"]?.stringValue, let path = json["path"]?.stringValue else { return nil }
        switch op {
        case "add":
            guard let value = json["value"] else { return nil }
            self = .add(path: path, value: value)
        case "replace":
            guard let value = json["value"] else { return nil }
            self = .replace(path: path, value: value)
        case "remove":
            self = .remove(path: path)
        default:
            return nil
        }
    }
}
