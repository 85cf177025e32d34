extension KlondikeHint {
    /// The gesture this hint stands for: a tap on the stock for `/stock` -> `/waste`,
    /// otherwise a drag. Nil when a pointer is not a target.
    public var command: KlondikeCommand? {
        guard let from = try? Target.parse(from), let to = try? Target.parse(to) else { return nil }
        return from == .stock && to == .waste ? .tap(.stock) : .drag(from: from, to: to)
    }
}
