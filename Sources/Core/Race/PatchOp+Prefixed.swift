extension PatchOp {
    /// The same op one level down, at `prefix` + its path.
    func prefixed(_ prefix: String) -> PatchOp {
        switch self {
        case let .add(path, value): return .add(path: prefix + path, value: value)
        case let .remove(path): return .remove(path: prefix + path)
        case let .replace(path, value): return .replace(path: prefix + path, value: value)
        }
    }

    var path: String {
        switch self {
        case let .add(path, _), let .remove(path), let .replace(path, _): return path
        }
    }
}
