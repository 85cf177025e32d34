// A diff made by comparing two states, for a game that would rather say what its state is than
// which ops change it: objects compared key by key, arrays index by index.

extension Diff {
    /// The RFC 6902 ops that turn `old` into `new`: a key or an index that only one side has is
    /// added or removed (an array's extra elements removed from the end, so each path holds as it
    /// is applied), and any other value that differs is replaced, or compared inside when both
    /// sides are objects or arrays.
    public init(from old: JSON, to new: JSON) {
        var ops: [PatchOp] = []
        Self.compare(old, new, at: "", into: &ops)
        self.init(ops)
    }

    private static func compare(_ old: JSON, _ new: JSON, at path: String, into ops: inout [PatchOp]) {
        switch (old, new) {
        case (.object(let was), .object(let now)):
            var kept: [String: JSON] = [:]
            for (key, value) in now { kept[key] = value }
            for (key, value) in was {
                let at = path + "/" + Pointer.escape(key)
                if let value2 = kept[key] { compare(value, value2, at: at, into: &ops) } else { ops.append(.remove(path: at)) }
            }
            let before = Set(was.map(\.key))
            for (key, value) in now where !before.contains(key) {
                ops.append(.add(path: path + "/" + Pointer.escape(key), value: value))
            }
        case (.array(let was), .array(let now)):
            for index in 0..<min(was.count, now.count) {
                compare(was[index], now[index], at: "\(path)/\(index)", into: &ops)
            }
            for index in (now.count..<max(was.count, now.count)).reversed() { ops.append(.remove(path: "\(path)/\(index)")) }
            for index in was.count..<max(was.count, now.count) { ops.append(.add(path: "\(path)/\(index)", value: now[index])) }
        default:
            if old != new { ops.append(.replace(path: path, value: new)) }
        }
    }
}
