import Core

/// One of the shipped games, behind the few operations a room needs.
enum AnyGame: Sendable {
    case klondike(Klondike)
    case plane(Plane)

    var kind: GameKind {
        switch self {
        case .klondike: return .klondike
        case .plane: return .plane
        }
    }

    var publicState: JSON {
        switch self {
        case .klondike(let game): return game.publicState
        case .plane(let game): return game.publicState
        }
    }

    /// `playing` or `won`; a plane is always playing.
    var status: String {
        switch self {
        case .klondike(let game): return game.status
        case .plane: return "playing"
        }
    }

    var textBoard: [String] {
        switch self {
        case .klondike(let game): return game.textBoard()
        case .plane(let game): return game.textBoard()
        }
    }

    mutating func apply(_ command: GameCommand, context: MoveContext) -> Result<MoveOutcome, GameError> {
        switch (self, command) {
        case (.klondike(var game), .klondike(let command)):
            let result = game.apply(command, context: context)
            self = .klondike(game)
            return result
        case (.plane(var game), .plane(let command)):
            let result = game.apply(command, context: context)
            self = .plane(game)
            return result
        default:
            return .failure(.badRequest("wrong-kind", "that command belongs to another kind of game"))
        }
    }

    /// Builds a new game from `create` options. Returns the game and its full options for
    /// storage, where the server's secret choices (seed, entropy) are filled in.
    static func create(kind: GameKind, options: JSON, time: Double,
                       random: inout some RandomNumberGenerator) throws(ProtocolError) -> (AnyGame, JSON) {
        switch kind {
        case .klondike:
            var fields = try KlondikeOptionFields(options)
            if fields.deal == nil {
                let seed = Int(random.next() >> 11)  // 53 bits, the protocol's seed range
                fields.deal = .seed(UInt64(seed))
                fields.allFields.append(("seed", .int(seed)))
            }
            let entropy = random.next()
            var stored = fields.allFields
            if fields.draw == nil { stored.insert(("draw", 1), at: 0) }
            stored.append(("entropy", .int(Int(bitPattern: UInt(entropy)))))
            return (try restore(kind: .klondike, options: .object(stored), time: time), .object(stored))
        case .plane:
            var stored: [(key: String, value: JSON)] = []
            for name in ["width", "height"] {
                guard let raw = options[name], raw != .null else { continue }
                guard let value = raw.doubleValue, value.isFinite, value > 0 else {
                    throw .bad("\(name) must be a number above 0")
                }
                stored.append((name, .double(value)))
            }
            if let raw = options["seed"], raw != .null {
                guard let seed = raw.intValue, (0...KlondikeOptionFields.maxSeed).contains(seed) else {
                    throw .bad("seed must be an integer from 0 to 2^53-1")
                }
                stored.append(("seed", .int(seed)))
            } else {
                stored.append(("seed", .int(Int(random.next() >> 11))))
            }
            return (try restore(kind: .plane, options: .object(stored), time: time), .object(stored))
        }
    }

    /// Builds a game from its stored options (the inverse of `create`'s second result).
    static func restore(kind: GameKind, options: JSON, time: Double) throws(ProtocolError) -> AnyGame {
        do {
            switch kind {
            case .klondike:
                let fields = try KlondikeOptionFields(options)
                let entropy = UInt64(bitPattern: Int64(options["entropy"]?.intValue ?? 0))
                let klondike = try Klondike(
                    options: KlondikeOptions(draw: fields.draw ?? 1, deal: fields.deal ?? .seed(0), entropy: entropy),
                    time: time)
                return .klondike(klondike)
            case .plane:
                let plane = try Plane(options: PlaneOptions(
                    width: options["width"]?.doubleValue ?? 1024,
                    height: options["height"]?.doubleValue ?? 768,
                    seed: UInt64(options["seed"]?.intValue ?? 0)))
                return .plane(plane)
            }
        } catch let error as GameError {
            throw ProtocolError(error)
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw .bad("\(error)")
        }
    }
}
