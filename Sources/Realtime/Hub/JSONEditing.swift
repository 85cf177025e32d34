import Core

/// JSON objects changed one key at a time: a game's options, a join re-sent on a member's behalf.
extension JSON {
    func setting(_ key: String, to value: JSON) -> JSON {
        .object((objectPairs ?? []).filter { $0.key != key } + [(key, value)])
    }

    func removing(_ key: String) -> JSON {
        .object((objectPairs ?? []).filter { $0.key != key })
    }
}
