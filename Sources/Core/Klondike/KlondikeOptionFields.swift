/// Klondike's `draw`, `seed`, `deck` and `winnable` options, as `create` and `reset` carry them
/// (a race's too).
public struct KlondikeOptionFields: Sendable {
    public static let maxSeed = (1 << 53) - 1

    public var draw: Int?
    public var deal: KlondikeDeal?
    /// The deal must be one the solver proved winnable (PROTOCOL section 12).
    public var winnable = false
    /// Fields safe to show (`draw`, `winnable`).
    public var publicFields: [(key: String, value: JSON)] = []
    /// Every field, for storage (the deck as one string).
    public var allFields: [(key: String, value: JSON)] = []

    public init(_ options: JSON?) throws(GameError) {
        guard let options, options != .null else { return }
        guard case .object = options else { throw Self.bad("options must be an object") }
        if let raw = options["draw"], raw != .null {
            guard let draw = raw.intValue, draw == 1 || draw == 3 else { throw Self.bad("draw must be 1 or 3") }
            self.draw = draw
            publicFields.append(("draw", .int(draw)))
            allFields.append(("draw", .int(draw)))
        }
        if let raw = options["deck"], raw != .null {
            let text: String
            switch raw {
            case .string(let s): text = s
            case .array(let items):
                var joined = ""
                for item in items {
                    guard let name = item.stringValue else { throw Self.bad("deck must be 52 card names") }
                    joined += name
                }
                text = joined
            default: throw Self.bad("deck must be a string or an array of 52 card names")
            }
            let cards = try Klondike.parseDeck(text)
            deal = .deck(cards)
            allFields.append(("deck", .string(cards.map(\.name).joined())))
        } else if let raw = options["seed"], raw != .null {
            guard let seed = raw.intValue, (0...Self.maxSeed).contains(seed) else {
                throw Self.bad("seed must be an integer from 0 to 2^53-1")
            }
            deal = .seed(UInt64(seed))
            allFields.append(("seed", .int(seed)))
        }
        switch options["winnable"] {
        case nil, .null?, .bool(false)?: break
        case .bool(true)?:
            winnable = true
            publicFields.append(("winnable", true))
            allFields.append(("winnable", true))
        default: throw Self.bad("winnable must be true or false")
        }
    }

    static func bad(_ message: String) -> GameError { .badRequest("bad-option", message) }

    /// The deal a `winnable` request must prove, when the options ask for one.
    var seedRequest: SeedRequest? {
        guard winnable else { return nil }
        return KlondikeDealProver.request(draw: draw ?? 1, given: deal == nil ? nil : .object(allFields))
    }

    /// `create`'s options dealing a proven seed.
    static func seeding(_ options: JSON, seed: UInt64) -> JSON {
        .object((options.objectPairs ?? []).filter { $0.key != "seed" } + [("seed", .int(Int(seed)))])
    }

    /// Options as a create stores them: a seed drawn when none is given, the draw, the entropy.
    static func stored(creating options: JSON, leading: [(key: String, value: JSON)] = [],
                       random: inout some RandomNumberGenerator) throws(GameError) -> JSON {
        var fields = try KlondikeOptionFields(options)
        var stored = leading
        if fields.deal == nil {
            let seed = Int(random.next() >> 11)  // 53 bits, the protocol's seed range
            fields.deal = .seed(UInt64(seed))
            fields.allFields.append(("seed", .int(seed)))
        }
        stored += fields.allFields
        if fields.draw == nil { stored.insert(("draw", 1), at: leading.count) }
        stored.append(("entropy", .int(Int(bitPattern: UInt(random.next())))))
        return .object(stored)
    }

    static func entropy(_ options: JSON) -> UInt64 { UInt64(bitPattern: Int64(options["entropy"]?.intValue ?? 0)) }
}
