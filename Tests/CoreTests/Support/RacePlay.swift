import Testing
@testable import Core
import JSONPatchCheck

extension Race {
    /// Every view of the race: the spectators', then one per seat.
    var viewers: [Viewer] { [.spectator] + seats.map { .seat($0) } }

    /// A race of `seats` tables dealt from `deal`, already started at `time`.
    static func started(seats: Int = 2, draw: Int = 1, deal: KlondikeDeal = .seed(7), entropy: UInt64 = 1, time: Double = 0) throws -> Race {
        var race = try Race(options: RaceOptions(seats: seats, draw: draw, deal: deal, entropy: entropy), time: time)
        race.expectAccepted(.start, time: time)
        return race
    }

    /// Applies a command that must be accepted, and checks every view's diff with the
    /// independent RFC 6902 apply (the view's ops on its state before give exactly its state
    /// after) and the views' masking (`RacePlayChecks.checkMasked`).
    @discardableResult
    mutating func expectAccepted(
        _ command: RaceCommand, by seat: String = "p1", time: Double = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) -> RaceOutcome? {
        let before = viewers.map { publicState(for: $0).encoded }
        switch apply(command, context: MoveContext(player: seat, time: time)) {
        case .success(let outcome):
            RacePlayChecks.checkViews(of: outcome, before: before, after: self, gesture: "\(seat) \(command)",
                                          sourceLocation: sourceLocation)
            return outcome
        case .failure(let error):
            Issue.record("expected \(seat) \(command) to be accepted, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Applies a command that must be refused with this code and rule, and checks nothing changed.
    mutating func expectRefused(
        _ command: RaceCommand, by seat: String = "p1", _ code: GameError.Code = .illegalMove, rule: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let before = self
        switch apply(command, context: MoveContext(player: seat, time: 0)) {
        case .success(let outcome):
            Issue.record("expected \(seat) \(command) to be refused, got \(outcome.fullDiff.encodedOps)",
                         sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == code && error.rule == rule, "got \(error)", sourceLocation: sourceLocation)
        }
        #expect(self == before, "a refused command changed the race", sourceLocation: sourceLocation)
    }

    /// Plays a seat's table by its hints until it is won; returns the won event.
    @discardableResult
    mutating func playToWin(_ seat: String, time: Double = 0, sourceLocation: SourceLocation = #_sourceLocation) -> GameEvent? {
        var steps = 0
        while let hint = table(of: seat)?.hint(), steps < 500 {
            steps += 1
            let gesture: KlondikeCommand
            if hint.from == "/stock" {
                gesture = .tap(.stock)
            } else {
                guard let from = try? Target.parse(hint.from), let to = try? Target.parse(hint.to) else { break }
                gesture = .drag(from: from, to: to)
            }
            guard let outcome = expectAccepted(.table(gesture), by: seat, time: time, sourceLocation: sourceLocation) else { break }
            if let won = outcome.events.first(where: { $0.name == "won" }) { return won }
        }
        Issue.record("\(seat) did not win by following hints", sourceLocation: sourceLocation)
        return nil
    }
}

enum RacePlayChecks {
    /// Every view of the race is in exactly one group of the outcome; each view's diff, as
    /// `RaceView` derives it from the full diff, patches that view's state before into its
    /// state after; and every view after is masked as it must be. Returns the views' states
    /// after, encoded, or records the first breach and returns nil.
    @discardableResult
    static func checkViews(
        of outcome: RaceOutcome, before: [String], after race: Race, gesture: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String]? {
        func breach(_ message: String) -> [String]? {
            Issue.record("\(gesture()): \(message)", sourceLocation: sourceLocation)
            return nil
        }
        let grouped = outcome.views.flatMap(\.viewers)
        guard grouped.count == race.viewers.count, Set(grouped) == Set(race.viewers) else {
            return breach("views grouped as \(outcome.views.map(\.viewers)), not each of \(race.viewers) once")
        }
        guard outcome.views.first?.viewers.first == .spectator else { return breach("the spectators' group is not first") }
        let full = race.publicState
        var after: [String] = []
        for (viewer, beforeText) in zip(race.viewers, before) {
            guard let diff = outcome.diff(for: viewer) else { return breach("no diff for \(viewer)") }
            guard !diff.isEmpty else { return breach("accepted with no ops for \(viewer)") }
            guard diff == RaceView.diff(outcome.fullDiff, for: viewer) else {
                return breach("\(viewer)'s diff is not the one RaceView derives from the full diff")
            }
            let afterText = race.publicState(for: viewer).encoded
            after.append(afterText)
            do {
                let patched = try applyJSONPatch(diff.encodedOps, to: beforeText)
                guard jsonValuesEqual(patched, try parseJSONText(afterText)) else {
                    return breach("\(viewer): ops \(diff.encodedOps) on \(beforeText) do not give \(afterText)")
                }
            } catch {
                return breach("\(viewer): ops \(diff.encodedOps) do not apply to \(beforeText): \(error)")
            }
            guard checkMasked(race, full: full, for: viewer, diff: diff, sourceLocation: sourceLocation) else { return nil }
        }
        return after
    }

    /// The piles of a rival's table that a seated player sees only as `??`.
    static let maskedPiles = ["stock", "waste", "tableau"]

    /// A view shows what it must: the spectators exactly the full state; a seat its own table
    /// as it is and each rival table with the same shape, numbers and foundations as the full
    /// state but no card name at all in its stock, waste or tableau; and no op of the seat's
    /// diff carries a card name into a rival's stock, waste or tableau. So a seated player
    /// never reads off a rival's table a card their own table hides.
    static func checkMasked(_ race: Race, full: JSON? = nil, for viewer: Viewer, diff: Diff,
                            sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        func breach(_ message: String) -> Bool {
            Issue.record("\(viewer): \(message)", sourceLocation: sourceLocation)
            return false
        }
        let full = full ?? race.publicState
        let view = race.publicState(for: viewer)
        guard case .seat(let own) = viewer else {
            return view == full || breach("a spectator's state is not the full state")
        }
        guard view["seats"] == full["seats"], view["status"] == full["status"], view["finished"] == full["finished"],
              view.objectPairs?.map(\.key) == ["seats", "status", "tables", "finished"]
        else { return breach("the race's own fields differ from the full state") }
        for seat in race.seats {
            guard let shown = view["tables"]?[seat], let real = full["tables"]?[seat] else { return breach("no table \(seat)") }
            if seat == own {
                guard shown == real else { return breach("its own table is not shown as it is") }
                continue
            }
            guard shown.objectPairs?.map(\.key) == real.objectPairs?.map(\.key) else { return breach("\(seat)'s keys differ") }
            for key in ["draw", "foundations", "moves", "score", "status"] where shown[key] != real[key] {
                return breach("\(seat)'s \(key) is \(shown[key]?.encoded ?? "-"), not \(real[key]?.encoded ?? "-")")
            }
            for key in maskedPiles {
                guard let shownPiles = shown[key], let realPiles = real[key], shape(shownPiles) == shape(realPiles) else {
                    return breach("\(seat)'s \(key) does not have its true shape")
                }
                if let card = DiffInvariantTests.strings(in: shownPiles).first(where: { $0 != "??" }) {
                    return breach("\(seat)'s \(key) shows \(card)")
                }
            }
        }
        for op in diff.ops {
            let tokens = op.path.split(separator: "/", omittingEmptySubsequences: false)
            guard tokens.count >= 3, tokens[1] == "tables", tokens[2] != Substring(own) else { continue }
            let value = op.json["value"] ?? .null
            // A rival's whole table shows its foundations; its other piles, like each of them alone, only `??`.
            let hidden: [JSON]
            if tokens.count == 3 {
                hidden = maskedPiles.map { value[$0] ?? .null }
            } else {
                hidden = maskedPiles.contains(String(tokens[3])) ? [value] : []
            }
            if let card = hidden.flatMap(DiffInvariantTests.strings(in:)).first(where: { $0 != "??" }) {
                return breach("\(op.json.encoded) shows \(card) on a rival's table")
            }
        }
        return true
    }

    /// A JSON value with every string blanked: two piles of the same shape have the same lengths.
    static func shape(_ json: JSON) -> JSON {
        switch json {
        case .string: return ""
        case .array(let items): return .array(items.map(shape))
        case .object(let pairs): return .object(pairs.map { (key: $0.key, value: shape($0.value)) })
        case .null, .bool, .int, .double: return json
        }
    }
}
