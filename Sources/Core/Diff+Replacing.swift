extension Diff {
    /// Replaces each of `keys` at the top of the state with its value in `state` (a whole new deal).
    public static func replacing(_ keys: [String], from state: JSON) -> Diff {
        Diff(keys.map { PatchOp.replace(path: "/" + Pointer.escape($0), value: state[$0] ?? .null) })
    }
}
