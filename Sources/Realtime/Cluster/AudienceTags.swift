import Core

/// How the cluster's messages name a game's audiences: one or two characters on the wire
/// (PROTOCOL section 11), where the hub has `AudienceKey`s.
extension AudienceKey {
    /// `+` players, `*` spectators, `~` delayed spectators, or the seat itself.
    var tag: String {
        switch self {
        case .seat(let seat): return seat
        case .players: return "+"
        case .spectators: return "*"
        case .delayed: return "~"
        }
    }

    init?(tag: String) {
        switch tag {
        case "+": self = .players
        case "*": self = .spectators
        case "~": self = .delayed
        case _ where !tag.isEmpty && tag.utf8.allSatisfy({ GameIDs.isIDCharacter($0) }): self = .seat(tag)
        default: return nil
        }
    }
}

extension Publication {
    /// What the hub owes other nodes' members of a game, as the game's channel carries it.
    init(isDiff: Bool, seq: Int, _ frames: [RemoteFrame], delayed: Bool) {
        self.init(isDiff: isDiff, seq: seq, parts: frames.map { part in
            switch part.audiences {
            case .everyLive: return Part(views: ["all"], frame: part.frame.bytes)
            case .only(let keys): return Part(views: keys.map(\.tag), frame: part.frame.bytes)
            }
        }, delayed: delayed)
    }
}
