/// A game of Klondike: rules as values in, values out. Every accepted command returns the
/// RFC 6902 diff between the public states before and after it; a refused one changes nothing.
public struct Klondike: Sendable, Equatable {
    public private(set) var draw: Int
    /// The current deal (the seed stays secret: only the server may decide to show it).
    public private(set) var deal: KlondikeDeal
    public private(set) var moves = 0
    public private(set) var score = 0
    public private(set) var isWon = false
    /// When the current deal was dealt: the won event's seconds run from here.
    public private(set) var dealTime: Double
    /// Times the waste was turned over into the stock in this deal (draw-3 scoring counts them).
    private(set) var recycles = 0
    var table: KlondikeTable
    /// One entry per accepted move since the deal, newest last: enough to step back exactly.
    private var history: [UndoStep] = []
    private var seedStream: SplitMix64

    public init(options: KlondikeOptions, time: Double) throws(GameError) {
        try Self.checkDraw(options.draw)
        draw = options.draw
        deal = options.deal
        table = KlondikeTable(dealing: try Self.deck(of: options.deal))
        dealTime = time
        seedStream = SplitMix64(seed: options.entropy)
    }

    /// A game from any position, for tests written as pictures of the table. The position
    /// must be one play could reach in shape: every non-empty tableau pile has its top face up.
    init(testTable: KlondikeTable, draw: Int = 1, moves: Int = 0, score: Int = 0, time: Double = 0) throws(GameError) {
        try Self.checkDraw(draw)
        var seen = Set<Card>()
        for pile in testTable.piles {
            for card in pile where !seen.insert(card).inserted {
                throw .badRequest("test-table", "\(card) is on the table twice")
            }
        }
        for slot in 0..<KlondikeTable.pileCount {
            let count = testTable.piles[slot].count
            let hidden = testTable.faceDown[slot]
            let allowed = KlondikeTable.tableau.contains(slot) ? max(0, count - 1) : 0
            guard hidden >= 0, hidden <= allowed else {
                throw .badRequest("test-table", "pile \(PileID(slot: slot).pointer) cannot have \(hidden) face-down cards")
            }
        }
        self.draw = draw
        self.deal = .deck([])
        self.table = testTable
        self.moves = moves
        self.score = score
        self.dealTime = time
        self.seedStream = SplitMix64(seed: 0)
        self.isWon = testTable.isCleared
    }

    public var status: GameStatus { isWon ? .won : .playing }

    /// The protocol's STATE: these eight keys in this order, face-down cards as `??`.
    public var publicState: JSON {
        .object([
            "draw": .int(draw),
            "stock": table.publicPile(KlondikeTable.stock),
            "waste": table.publicPile(KlondikeTable.waste),
            "foundations": .array(KlondikeTable.foundations.map { table.publicPile($0) }),
            "tableau": .array(KlondikeTable.tableau.map { table.publicPile($0) }),
            "moves": .int(moves),
            "score": .int(score),
            "status": .string(status.word),
        ])
    }

    /// The cards of a pile, bottom first, with how many of them lie face down.
    public func pile(_ id: PileID) -> (cards: [Card], faceDown: Int)? {
        guard let slot = id.slot else { return nil }
        return (table.piles[slot], table.hidden(slot))
    }

    public mutating func apply(_ command: KlondikeCommand, context: MoveContext) -> Result<MoveOutcome, GameError> {
        do {
            return .success(try perform(command, time: context.time))
        } catch {
            return .failure(error)
        }
    }

    private mutating func perform(_ command: KlondikeCommand, time: Double) throws(GameError) -> MoveOutcome {
        switch command {
        case .tap(let target):
            try Self.check(target)
            try requirePlaying()
            guard target == .stock else {
                throw .illegal("tap-stock-only", "only the stock can be tapped; \(target) cannot")
            }
            return try tapStock(time: time)
        case .doubleTap(let target):
            try Self.check(target)
            try requirePlaying()
            let move = try planSendHome(target)
            return carryOut(move, time: time)
        case .drag(let from, let to):
            try Self.check(from)
            try Self.check(to)
            try requirePlaying()
            let move = try planDrag(from: from, to: to)
            return carryOut(move, time: time)
        case .reset(let options):
            return try reset(options, time: time)
        case .undo:
            return try undo()
        }
    }

    // MARK: - Checks

    private static func checkDraw(_ draw: Int) throws(GameError) {
        guard draw == 1 || draw == 3 else {
            throw .badRequest("bad-draw", "draw is 1 or 3, not \(draw)")
        }
    }

    private static func deck(of deal: KlondikeDeal) throws(GameError) -> [Card] {
        switch deal {
        case .seed(let seed): return shuffledDeck(seed: seed)
        case .deck(let deck):
            try validateDeck(deck)
            return deck
        }
    }

    /// A target built in code can name what no pointer can (`.tableau(9)`, `/waste/0`):
    /// refused as the parser would refuse its pointer.
    private static func check(_ target: Target) throws(GameError) {
        let pileOK = target.pile.slot != nil
        let cardOK: Bool
        if let card = target.cardIndex {
            if case .tableau = target.pile { cardOK = card >= 0 } else { cardOK = false }
        } else {
            cardOK = true
        }
        guard pileOK && cardOK else {
            throw .badRequest(
                "bad-target",
                "\"\(target)\" is not a target: use /stock, /waste, /foundations/0..3, /tableau/0..6 or /tableau/I/J")
        }
    }

    private func requirePlaying() throws(GameError) {
        guard !isWon else { throw .illegal("game-won", "the game is won: only reset deals a new one") }
    }

    // MARK: - Moves

    /// Cards leaving the top of one pile for another, as the rules accepted them.
    struct PlannedMove: Equatable {
        var from: Int
        var to: Int
        var count: Int
    }

    /// A double-tap: the top card of the waste or a tableau pile goes home if it can, else to
    /// the first tableau pile, left to right, that takes it.
    private func planSendHome(_ target: Target) throws(GameError) -> PlannedMove {
        let slot = target.pile.slot!  // `check(_:)` passed it
        guard slot == KlondikeTable.waste || KlondikeTable.tableau.contains(slot) else {
            throw .illegal("double-tap-source", "only the waste and tableau piles send their top card on; \(target) does not")
        }
        let count = table.piles[slot].count
        guard count > 0 else { throw .illegal("empty-pile", "\(target.pile.pointer) has no card") }
        if let index = target.cardIndex {
            guard index < count else { throw .illegal("no-such-card", "\(target) is past the top of its pile") }
            guard index == count - 1 else { throw .illegal("not-top-card", "only the top card moves on a double-tap") }
        }
        let card = table.piles[slot][count - 1]
        if let home = table.foundation(for: card) {
            return PlannedMove(from: slot, to: home, count: 1)
        }
        if let pile = KlondikeTable.tableau.first(where: { $0 != slot && table.fits(card, onTableau: $0) }) {
            return PlannedMove(from: slot, to: pile, count: 1)
        }
        throw .illegal("no-place", "\(card) fits on no foundation and no tableau pile")
    }

    /// A drag: `from` names the bottom card of the cards that move; `to` names a pile.
    private func planDrag(from: Target, to: Target) throws(GameError) -> PlannedMove {
        let source = from.pile.slot!  // `check(_:)` passed both
        let destination = to.pile.slot!
        let pile = table.piles[source]
        switch from.pile {
        case .stock: throw .illegal("drag-from-stock", "cards leave the stock only by tapping it")
        case .waste, .foundation, .tableau: break
        }
        guard !pile.isEmpty else { throw .illegal("empty-pile", "\(from.pile.pointer) has no card") }
        let first = from.cardIndex ?? pile.count - 1
        guard first < pile.count else { throw .illegal("no-such-card", "\(from) is past the top of its pile") }
        guard first >= table.hidden(source) else { throw .illegal("face-down", "\(from) is face down") }
        for i in (first + 1)..<max(first + 1, pile.count) where !(pile[i].isRed != pile[i - 1].isRed
            && pile[i].rank.rawValue + 1 == pile[i - 1].rank.rawValue)
        {
            throw .illegal("not-a-run", "the cards on \(from) are not a run down in alternating colours")
        }
        if let card = to.cardIndex, card >= table.piles[destination].count {
            throw .illegal("no-such-card", "\(to) is past the top of its pile")
        }
        let count = pile.count - first
        let card = pile[first]
        switch to.pile {
        case .stock, .waste:
            throw .illegal("drop-on-\(to.pile == .stock ? "stock" : "waste")", "cards cannot be put on \(to.pile.pointer)")
        case _ where destination == source:
            throw .illegal("same-pile", "the cards are already on \(to.pile.pointer)")
        case .foundation:
            guard count == 1 else { throw .illegal("foundation-one-card", "a foundation takes one card at a time") }
            guard table.fits(card, onFoundation: destination) else {
                if table.piles[destination].isEmpty {
                    throw .illegal("foundation-needs-ace", "an empty foundation takes only an Ace, not \(card)")
                }
                throw .illegal("foundation-order", "\(card) does not follow \(table.piles[destination].last!) on its foundation")
            }
        case .tableau:
            guard table.fits(card, onTableau: destination) else {
                if table.piles[destination].isEmpty {
                    throw .illegal("tableau-needs-king", "an empty tableau pile takes only a King, not \(card)")
                }
                throw .illegal("tableau-order", "\(card) does not go on \(table.piles[destination].last!)")
            }
        }
        return PlannedMove(from: source, to: destination, count: count)
    }

    /// Points of the standard (Windows) scheme for cards moving between two piles.
    private static func points(from: Int, to: Int) -> Int {
        let toFoundation = KlondikeTable.foundations.contains(to)
        let toTableau = KlondikeTable.tableau.contains(to)
        switch from {
        case KlondikeTable.waste: return toFoundation ? 10 : 5
        case KlondikeTable.tableau: return toFoundation ? 10 : 0
        default: return toTableau ? -15 : 0
        }
    }

    /// Points for turning up a tableau card.
    private static let turnOverPoints = 5

    /// Applies a move the rules accepted: the cards go over, the card they uncover turns up,
    /// the score moves, and the game may be won, all in one diff.
    private mutating func carryOut(_ move: PlannedMove, time: Double) -> MoveOutcome {
        let fromCount = table.piles[move.from].count
        let toCount = table.piles[move.to].count
        let first = fromCount - move.count
        for i in first..<fromCount { table.piles[move.to].append(table.piles[move.from][i]) }
        table.piles[move.from].removeLast(move.count)
        var points = Self.points(from: move.from, to: move.to)
        var flipped = false
        if first > 0 && table.faceDown[move.from] == first {
            table.faceDown[move.from] = first - 1
            flipped = true
            points += Self.turnOverPoints
        }
        let step = UndoStep.move(move, flipped: flipped, score: score)
        var diff = KlondikeDiffBuilder()
        diff.pile(move.from, oldCount: fromCount, keep: flipped ? first - 1 : first, in: table)
        diff.pile(move.to, oldCount: toCount, keep: toCount, in: table)
        return finish(step, points: points, diff: &diff, time: time)
    }

    private mutating func tapStock(time: Double) throws(GameError) -> MoveOutcome {
        let stock = KlondikeTable.stock
        let waste = KlondikeTable.waste
        let stockCount = table.piles[stock].count
        let wasteCount = table.piles[waste].count
        var diff = KlondikeDiffBuilder()
        if stockCount > 0 {
            let drawn = min(draw, stockCount)
            for _ in 0..<drawn { table.piles[waste].append(table.piles[stock].removeLast()) }
            diff.pile(stock, oldCount: stockCount, keep: stockCount - drawn, in: table)
            diff.pile(waste, oldCount: wasteCount, keep: wasteCount, in: table)
            return finish(UndoStep(kind: .draw(count: UInt8(drawn)), score: score), points: 0, diff: &diff, time: time)
        }
        guard wasteCount > 0 else { throw .illegal("nothing-to-draw", "the stock and the waste are both empty") }
        turnWasteOver()
        recycles += 1
        diff.pile(stock, oldCount: 0, keep: 0, in: table)
        diff.pile(waste, oldCount: wasteCount, keep: 0, in: table)
        return finish(UndoStep(kind: .recycle, score: score), points: -recyclePenalty, diff: &diff, time: time)
    }

    /// The waste, turned over as one packet, becomes the stock: the card first drawn is drawn
    /// first again, and the waste is empty.
    private mutating func turnWasteOver() {
        table.piles.swapAt(KlondikeTable.stock, KlondikeTable.waste)
        table.piles[KlondikeTable.stock].reverse()
    }

    /// The undo of `turnWasteOver`.
    private mutating func turnStockBack() {
        table.piles[KlondikeTable.stock].reverse()
        table.piles.swapAt(KlondikeTable.stock, KlondikeTable.waste)
    }

    /// Windows scoring: in draw 1 every turn of the waste costs 100; in draw 3 the first three
    /// are free (passes 1 to 4 through the stock) and each later one costs 20. `recycles`
    /// already counts the turn being scored.
    private var recyclePenalty: Int {
        draw == 1 ? 100 : (recycles >= 4 ? 20 : 0)
    }

    /// Books an accepted move: history, move count, score (never below 0), the win.
    private mutating func finish(_ step: UndoStep, points: Int, diff: inout KlondikeDiffBuilder, time: Double) -> MoveOutcome {
        history.append(step)
        moves += 1
        let oldScore = score
        score = max(0, score + points)
        diff.replace("/moves", .int(moves))
        if score != oldScore { diff.replace("/score", .int(score)) }
        guard case .move(_, let to, _, _) = step.kind, KlondikeTable.foundations.contains(Int(to)), table.isCleared else {
            return MoveOutcome(diff: diff.diff)
        }
        isWon = true
        diff.replace("/status", .string(status.word))
        // Whole seconds, rounded down; a clock that went backwards counts as 0.
        let elapsed = time - dealTime
        let seconds = elapsed.isFinite && elapsed > 0 ? Int(min(elapsed, 9e15).rounded(.down)) : 0
        let won = GameEvent(
            name: "won",
            fields: [
                (key: "moves", value: .int(moves)),
                (key: "score", value: .int(score)),
                (key: "seconds", value: .int(seconds)),
            ])
        return MoveOutcome(diff: diff.diff, events: [won])
    }

    // MARK: - Undo and reset

    /// 16 bytes a move, so even a game of millions of moves keeps its whole history.
    struct UndoStep: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            case draw(count: UInt8)
            case recycle
            case move(from: UInt8, to: UInt8, count: UInt8, flipped: Bool)
        }

        var kind: Kind
        /// The score before the move: the floor at 0 makes scores impossible to subtract back.
        var score: Int

        static func move(_ move: PlannedMove, flipped: Bool, score: Int) -> UndoStep {
            UndoStep(
                kind: .move(from: UInt8(move.from), to: UInt8(move.to), count: UInt8(move.count), flipped: flipped),
                score: score)
        }
    }

    private mutating func undo() throws(GameError) -> MoveOutcome {
        try requirePlaying()
        guard let step = history.popLast() else {
            throw .illegal("nothing-to-undo", "no move since the deal to undo")
        }
        var diff = KlondikeDiffBuilder()
        let stock = KlondikeTable.stock
        let waste = KlondikeTable.waste
        switch step.kind {
        case .draw(let drawn):
            let count = Int(drawn)
            let stockCount = table.piles[stock].count
            let wasteCount = table.piles[waste].count
            for _ in 0..<count { table.piles[stock].append(table.piles[waste].removeLast()) }
            diff.pile(waste, oldCount: wasteCount, keep: wasteCount - count, in: table)
            diff.pile(stock, oldCount: stockCount, keep: stockCount, in: table)
        case .recycle:
            let stockCount = table.piles[stock].count
            turnStockBack()
            recycles -= 1
            diff.pile(stock, oldCount: stockCount, keep: 0, in: table)
            diff.pile(waste, oldCount: 0, keep: 0, in: table)
        case .move(let fromSlot, let toSlot, let moved, let flipped):
            let from = Int(fromSlot)
            let to = Int(toSlot)
            let count = Int(moved)
            let fromCount = table.piles[from].count
            let toCount = table.piles[to].count
            if flipped { table.faceDown[from] += 1 }
            for i in (toCount - count)..<toCount { table.piles[from].append(table.piles[to][i]) }
            table.piles[to].removeLast(count)
            diff.pile(to, oldCount: toCount, keep: toCount - count, in: table)
            diff.pile(from, oldCount: fromCount, keep: flipped ? fromCount - 1 : fromCount, in: table)
        }
        moves -= 1
        diff.replace("/moves", .int(moves))
        if score != step.score {
            score = step.score
            diff.replace("/score", .int(score))
        }
        return MoveOutcome(diff: diff.diff)
    }

    private mutating func reset(_ options: KlondikeResetOptions, time: Double) throws(GameError) -> MoveOutcome {
        let newDraw = options.draw ?? draw
        try Self.checkDraw(newDraw)
        // Seeds from the stream are cut to 53 bits so any deal could also be named by a
        // protocol seed (0..2^53-1).
        let newDeal = options.deal ?? .seed(seedStream.next() >> 11)
        let deck = try Self.deck(of: newDeal)
        var diff = KlondikeDiffBuilder()
        if newDraw != draw { diff.replace("/draw", .int(newDraw)) }
        draw = newDraw
        deal = newDeal
        table = KlondikeTable(dealing: deck)
        diff.replace("/stock", table.publicPile(KlondikeTable.stock))
        diff.replace("/waste", table.publicPile(KlondikeTable.waste))
        diff.replace("/foundations", .array(KlondikeTable.foundations.map { table.publicPile($0) }))
        diff.replace("/tableau", .array(KlondikeTable.tableau.map { table.publicPile($0) }))
        if moves != 0 { diff.replace("/moves", 0) }
        if score != 0 { diff.replace("/score", 0) }
        if isWon { diff.replace("/status", "playing") }
        moves = 0
        score = 0
        isWon = false
        recycles = 0
        history.removeAll()
        dealTime = time
        return MoveOutcome(diff: diff.diff, events: [GameEvent(name: "reset")])
    }
}
