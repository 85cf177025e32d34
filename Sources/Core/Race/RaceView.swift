/// What each view of a race is shown. Every table holds the same cards in the same places,
/// so a rival's table would show a seated player the cards their own table hides: a seat
/// sees each rival table with its foundations as they are and every other card (stock,
/// waste, tableau) as `??`, every pile at its true length. Spectators see everything.
///
/// Views are derived from the full state and the full diff by path alone: whether a value
/// is masked depends only on where it sits (whose table, which pile), never on the card.
/// So a masked diff patches the masked state exactly as the full diff patches the full
/// state, and a server may store only the full diffs and derive any view from them later.
public enum RaceView {
    /// The piles of a rival's table whose cards a seated player never sees.
    static let maskedPiles: Set<Substring> = ["stock", "waste", "tableau"]

    static func tablePath(_ seat: String) -> String { "/tables/" + Pointer.escape(seat) }

    /// The full race STATE as `viewer` is shown it.
    public static func state(_ full: JSON, for viewer: Viewer) -> JSON {
        guard case .seat(let own) = viewer, case .object(let pairs) = full else { return full }
        return .object(pairs.map { pair in
            pair.key == "tables" ? (key: pair.key, value: maskRivals(in: pair.value, own: own)) : pair
        })
    }

    /// A full race diff as `viewer` is shown it. A seat not in the race sees every table
    /// masked: the view that shows least.
    public static func diff(_ full: Diff, for viewer: Viewer) -> Diff {
        guard case .seat(let own) = viewer else { return full }
        let ownToken = Pointer.escape(own)
        var ops: [PatchOp] = []
        ops.reserveCapacity(full.ops.count)
        for op in full.ops {
            if let masked = mask(op, ownToken: ownToken, own: own) { ops.append(masked) }
        }
        return Diff(ops)
    }

    /// Where an op lands, as far as masking cares.
    private enum Region {
        /// Outside any rival's hidden cards: shown as it is.
        case shown
        /// The whole `tables` object.
        case tables
        /// A rival's whole table.
        case rivalTable
        /// A rival's stock, waste or tableau, or something in them; `card` when the path
        /// names one card (or anything deeper) rather than a pile or the pile list.
        case rivalCards(card: Bool)
    }

    private static func region(of path: String, ownToken: String) -> Region {
        // "", "tables", seat, rest: `/tables/p2/tableau/3/4` gives rest `tableau/3/4`.
        let tokens = path.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard tokens.count >= 2, tokens[0].isEmpty, tokens[1] == "tables" else { return .shown }
        guard tokens.count >= 3 else { return .tables }
        guard tokens[2] != ownToken else { return .shown }
        guard tokens.count == 4 else { return .rivalTable }
        let rest = tokens[3]
        let pile = rest.prefix { $0 != "/" }
        guard maskedPiles.contains(pile) else { return .shown }
        return .rivalCards(card: pile.endIndex != rest.endIndex)
    }

    /// The op as the seat `own` sees it, or nil when it changes nothing there.
    private static func mask(_ op: PatchOp, ownToken: String, own: String) -> PatchOp? {
        switch op {
        case .remove:
            return op
        case let .add(path, value):
            guard let masked = mask(value, at: path, ownToken: ownToken, own: own) else { return op }
            return .add(path: path, value: masked)
        case let .replace(path, value):
            if case .rivalCards(card: true) = region(of: path, ownToken: ownToken), case .string = value {
                // Every card there already shows `??` in this view: a card turned up stays hidden.
                return nil
            }
            guard let masked = mask(value, at: path, ownToken: ownToken, own: own) else { return op }
            return .replace(path: path, value: masked)
        }
    }

    /// The value of an add or replace at `path` as `own` sees it, or nil if it shows as it is.
    private static func mask(_ value: JSON, at path: String, ownToken: String, own: String) -> JSON? {
        switch region(of: path, ownToken: ownToken) {
        case .shown: return nil
        case .tables: return maskRivals(in: value, own: own)
        case .rivalTable: return maskTable(value)
        case .rivalCards: return hideCards(value)
        }
    }

    private static func maskRivals(in tables: JSON, own: String) -> JSON {
        guard case .object(let pairs) = tables else { return hideCards(tables) }
        return .object(pairs.map { pair in pair.key == own ? pair : (key: pair.key, value: maskTable(pair.value)) })
    }

    /// A Klondike STATE with its stock, waste and tableau cards all `??`.
    static func maskTable(_ table: JSON) -> JSON {
        guard case .object(let pairs) = table else { return hideCards(table) }
        return .object(pairs.map { pair in
            maskedPiles.contains(Substring(pair.key)) ? (key: pair.key, value: hideCards(pair.value)) : pair
        })
    }

    /// Every card name in a pile, a list of piles or a card becomes `??`; the shape stays.
    private static func hideCards(_ value: JSON) -> JSON {
        switch value {
        case .string: return "??"
        case .array(let items): return .array(items.map(hideCards))
        case .object(let pairs): return .object(pairs.map { (key: $0.key, value: hideCards($0.value)) })
        case .null, .bool, .int, .double: return value
        }
    }
}
