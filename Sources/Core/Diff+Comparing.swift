extension Diff {
    /// The RFC 6902 ops that turn `old` into `new`, found by comparing them: objects key by key
    /// (a key only in `old` is removed, one only in `new` added, one in both compared), arrays
    /// index by index (the common length compared, then the new tail added or the old tail
    /// removed from its end), and anything else that differs replaced whole. Equal documents
    /// give no ops.
    ///
    /// A game may build every diff this way: keep the state before a command, apply it, and
    /// compare (`Diff(from: before, to: state(for: .spectator))`). The diff is then right by
    /// construction; a game that knows which few ops a move makes writes them instead, which
    /// costs no comparison of the whole state.
    public init(from old: JSON, to new: JSON) {
        var ops: [PatchOp] = []
        Self.compare(old, new, at: "", into: &ops)
        self.init(ops)
    }

    private static func compare(_ old: JSON, _ new: JSON, at path: String, into ops: inout [PatchOp]) {
        switch (old, new) {
        case (.object(let before), .object(let after)):
            var afterByKey: [String: JSON] = [:]
            for pair in after { afterByKey[pair.key] = pair.value }
            var kept = Set<String>()
            for pair in before {
                let child = path + "/" + Pointer.escape(pair.key)
                if let value = afterByKey[pair.key] {
                    kept.insert(pair.key)
                    compare(pair.value, value, at: child, into: &ops)
                } else {
                    ops.append(.remove(path: child))
                }
            }
            for pair in after where !kept.contains(pair.key) {
                ops.append(.add(path: path + "/" + Pointer.escape(pair.key), value: pair.value))
            }
        case (.array(let before), .array(let after)):
            let common = min(before.count, after.count)
            for index in 0..<common {
                compare(before[index], after[index], at: path + "/\(index)", into: &ops)
            }
            for index in common..<after.count {
                ops.append(.add(path: path + "/\(index)", value: after[index]))
            }
            for index in (common..<before.count).reversed() {
                ops.append(.remove(path: path + "/\(index)"))
            }
        default:
            if old != new { ops.append(.replace(path: path, value: new)) }
        }
    }
}
