// A SwiftUI table that plays Klondike on a Boardcast server with the BoardcastClient library
// (clients/swift). The guide that walks through it is docs/CLIENTS.md.
//
// - tap the stock to draw (or to turn the waste over); tap a face-up card to pick it up, then tap
//   the pile it should go to (sent as a drag);
// - double-tap a card on the waste or the tableau to send it home (the server's double-tap);
// - drag a card, or a card and everything on it, onto another pile;
// - shake the device for a new deal (a reset).
//
// It is built on GameSession's `changes` stream and `KlondikeState`, sends every command with
// `basedOn:` (the seq of the table on screen), and handles `stale` and `illegal-move`. It calls
// `suspend()` / `resume()` as the scene goes to the background and comes back.
//
// Use it in an iOS app target that depends on the BoardcastClient package (clients/swift):
//
//     @main struct KlondikeApp: App {
//         var body: some Scene {
//             WindowGroup { KlondikeTableView(server: URL(string: "wss://games.example.com/ws")!) }
//         }
//     }
//
// This file is not compiled by this repository's builds or its Linux CI: Linux has neither
// SwiftUI nor UIKit, and no package target includes it.

#if canImport(SwiftUI) && canImport(UIKit)
import BoardcastClient
import Combine
import SwiftUI
import UIKit

// MARK: - Shake

extension UIDevice {
    /// Posted when the device is shaken (by `UIWindow.motionEnded` below).
    static let deviceDidShakeNotification = Notification.Name("deviceDidShakeNotification")
}

extension UIWindow {
    /// A SwiftUI app does not own a view controller to receive the shake, but every key window
    /// gets the motion events that nothing else handled.
    open override func motionEnded(_ motion: UIEvent.EventSubtype, with event: UIEvent?) {
        if motion == .motionShake {
            NotificationCenter.default.post(name: UIDevice.deviceDidShakeNotification, object: nil)
        }
    }
}

// MARK: - The model: one GameSession, and what the view shows of it

@MainActor
final class KlondikeTableModel: ObservableObject {
    /// The table on screen, decoded from the session's latest state.
    @Published private(set) var table: KlondikeState?
    /// The seq of `table`: what every command says it was chosen from (`basedOn:`).
    @Published private(set) var seq: Int?
    @Published private(set) var connection: SessionStatus = .connecting
    /// The last refusal or problem, in words.
    @Published private(set) var note: String?
    /// The `won` event's seconds, from the deal to the winning move.
    @Published private(set) var wonIn: Int?
    /// A picked-up card (a pointer: `/waste`, `/foundations/I`, `/tableau/I/J`), waiting for a
    /// tap on the pile it should go to.
    @Published var selected: String?

    private let client: BoardcastClient
    private var session: GameSession?
    private var followers: [Task<Void, Never>] = []
    /// suspend() and resume() in the order the scene changed.
    private var lifecycle: Task<Void, Never>?

    private enum Saved {
        static let game = "boardcast.klondike.game"
        static let token = "boardcast.klondike.token"
    }

    /// - Parameters:
    ///   - server: the server's WebSocket address, `wss://HOST/ws`.
    ///   - token: a sign-in token provider (PROTOCOL section 19), if your site signs users in.
    init(server: URL, token: BoardcastClient.TokenProvider? = nil) {
        client = BoardcastClient(url: server, token: token)
    }

    /// Joins this device's game again (after a relaunch), or deals a new one.
    func start() async {
        guard session == nil else { return }
        let defaults = UserDefaults.standard
        if let game = defaults.string(forKey: Saved.game), let token = defaults.string(forKey: Saved.token) {
            if await open(client.joining(game: game, token: token, seat: "p1")) { return }
            // Gone (`not-found`) or no longer ours: deal a new game instead.
            defaults.removeObject(forKey: Saved.game)
            defaults.removeObject(forKey: Saved.token)
        }
        _ = await open(client.creating(kind: "klondike", options: ["draw": 1]))
    }

    /// Follows the session's streams, then waits until it has joined. The streams are
    /// subscribed before `ready()`, so the first state is not missed.
    private func open(_ session: GameSession) async -> Bool {
        self.session = session
        let changes = session.changes
        let statuses = session.statuses
        let events = session.events
        followers = [
            Task { [weak self] in
                for await change in changes { self?.show(change) }
            },
            Task { [weak self] in
                for await status in statuses { self?.connection = status }
            },
            Task { [weak self] in
                for await event in events { self?.announce(event) }
            },
        ]
        do {
            try await session.ready()
        } catch {
            note = "\(error)"  // not-found, forbidden, ...
            for follower in followers { follower.cancel() }
            followers = []
            await session.close()
            self.session = nil
            return false
        }
        if let game = session.game, let token = session.token {
            UserDefaults.standard.set(game, forKey: Saved.game)
            UserDefaults.standard.set(token, forKey: Saved.token)
        }
        return true
    }

    /// A new state, in seq order: the latest one first, then each one after it. After a
    /// reconnection only the states missed arrive (or one snapshot), still in order.
    private func show(_ change: StateChange) {
        do {
            table = try change.state.decode(KlondikeState.self)
            seq = change.seq
        } catch {
            note = "not a Klondike state: \(error)"
        }
        // A pick-up was made on the old table: drop it rather than move from a stale choice.
        selected = nil
    }

    private func announce(_ event: JSONValue) {
        switch event["event"]?.stringValue {
        case "won": wonIn = event["seconds"]?.intValue
        case "reset": wonIn = nil
        default: break
        }
    }

    // MARK: Gestures

    func tapStock() {
        selected = nil
        send { try await $0.tap("/stock", basedOn: $1) }
    }

    /// A double-tap on `/waste` or `/tableau/I/J`: the server sends the card home, or onto the
    /// first tableau pile that takes it (`illegal-move` for a card that is not on top).
    func doubleTap(_ card: String) {
        selected = nil
        send { try await $0.doubleTap(card, basedOn: $1) }
    }

    func drag(from: String, to: String) {
        send { try await $0.drag(from: from, to: to, basedOn: $1) }
    }

    func undo() {
        selected = nil
        send { try await $0.undo(basedOn: $1) }
    }

    /// What a shake sends: a new deal.
    func newDeal() {
        selected = nil
        send { try await $0.reset(basedOn: $1) }
    }

    /// A tap on a face-up card (`card`) or on a pile (`card` nil: an empty pile or a face-down
    /// card). The protocol's tap means something only on `/stock`; a tap anywhere else is the
    /// app's own gesture: pick a card up, then put it down on another pile (sent as a drag).
    func tapped(card: String?, pile: String) {
        if let from = selected, Self.pile(of: from) != pile {
            selected = nil
            drag(from: from, to: pile)
        } else {
            selected = (card == selected) ? nil : card
        }
    }

    /// The end of a drag: `target` is the pile under the finger, if any.
    func dropped(from card: String, pile: String, on target: String?) {
        selected = nil
        guard let target, target != pile else { return }  // nowhere, or back where it was
        drag(from: card, to: target)
    }

    /// Whether card `index` of the tableau pile `pile` is picked up (it or a card under it).
    func isSelected(pile: String, index: Int) -> Bool {
        guard let selected, Self.pile(of: selected) == pile else { return false }
        guard let last = selected.split(separator: "/").last, let j = Int(last) else { return false }
        return index >= j
    }

    /// `/tableau/I/J` is in pile `/tableau/I`; any other pointer is a pile itself.
    static func pile(of pointer: String) -> String {
        let parts = pointer.split(separator: "/")
        return parts.count == 3 ? "/\(parts[0])/\(parts[1])" : pointer
    }

    /// Sends a command chosen from the table on screen, and says why if it is refused.
    private func send(_ command: @escaping @Sendable (GameSession, Int) async throws -> GameSession.CommandResult) {
        guard let session, let seq else { return }  // no table yet: nothing was chosen
        note = nil
        Task {
            do {
                // Sent once, also across a reconnection. While the session reconnects it waits,
                // and goes out after the re-join unless the catch-up made it stale.
                _ = try await command(session, seq)
            } catch let error as BoardcastError {
                switch error.code {
                case "stale":
                    // The server had already shown a newer table than the one this was chosen
                    // from (another device of the same player, a catch-up after a reconnection).
                    // Nothing was sent; the newer table is on screen or on its way.
                    note = "The table changed first, so that move was not sent."
                case "illegal-move":
                    note = error.message  // "an empty foundation takes only an Ace, not 7H"
                case "closed":
                    break
                default:
                    note = error.description  // "unavailable: ...", "bad-request: ..."
                }
            } catch {
                note = "\(error)"
            }
        }
    }

    // MARK: The app in the background

    /// iOS suspends a backgrounded app's sockets: let go of ours, and come back with `since`.
    func scenePhaseChanged(_ phase: ScenePhase) {
        guard let session else { return }
        let previous = lifecycle
        switch phase {
        case .background:
            lifecycle = Task {
                await previous?.value
                await session.suspend()
            }
        case .active:
            lifecycle = Task {
                await previous?.value
                await session.resume()  // does nothing unless suspended
            }
        default:
            break
        }
    }
}

// MARK: - The view

@MainActor
struct KlondikeTableView: View {
    @StateObject private var model: KlondikeTableModel
    @Environment(\.scenePhase) private var scenePhase
    @State private var dragging: Dragging?
    @State private var confirmingNewDeal = false

    /// A card (and what lies on it) on its way to another pile.
    struct Dragging: Equatable {
        var pile: String
        var index: Int
        var origin: CGPoint
        var translation: CGSize
    }

    init(server: URL, token: BoardcastClient.TokenProvider? = nil) {
        _model = StateObject(wrappedValue: KlondikeTableModel(server: server, token: token))
    }

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            header
            GeometryReader { geometry in
                table(TableLayout(size: geometry.size))
            }
        }
        .padding(8)
        .background(Color(red: 0.05, green: 0.36, blue: 0.2).ignoresSafeArea())
        .task { await model.start() }
        .onChange(of: scenePhase) { phase in model.scenePhaseChanged(phase) }
        .onReceive(NotificationCenter.default.publisher(for: UIDevice.deviceDidShakeNotification)) { _ in
            shaken()
        }
        .confirmationDialog("New deal?", isPresented: $confirmingNewDeal, titleVisibility: .visible) {
            Button("New deal", role: .destructive) { model.newDeal() }
        } message: {
            Text("This deal will be lost.")
        }
    }

    /// A shake: a new deal at once if nothing would be lost, else after asking.
    private func shaken() {
        guard let table = model.table else { return }
        if table.isWon || table.moves == 0 {
            model.newDeal()
        } else {
            confirmingNewDeal = true
        }
    }

    private var header: some View {
        VStack(alignment: .leading, spacing: 4) {
            HStack(spacing: 12) {
                Text("Score \(model.table?.score ?? 0)")
                Text("Moves \(model.table?.moves ?? 0)")
                Spacer()
                if model.connection != .ready {
                    Text(model.connection.rawValue.capitalized)  // Connecting, Reconnecting, ...
                        .foregroundStyle(Color.yellow)
                }
                Button("Undo") { model.undo() }
                    .disabled(model.table == nil)
                Button("New deal") { confirmingNewDeal = true }
                    .disabled(model.table == nil)
            }
            if let note = model.note {
                Text(note).font(.footnote)
            }
        }
        .foregroundStyle(Color.white)
    }

    @ViewBuilder
    private func table(_ layout: TableLayout) -> some View {
        if let table = model.table {
            ZStack(alignment: .topLeading) {
                stock(table, layout)
                waste(table, layout)
                ForEach(table.foundations.indices, id: \.self) { i in
                    foundation(i, table, layout)
                }
                ForEach(table.tableau.indices, id: \.self) { i in
                    tableauPile(i, table, layout)
                }
                draggedCards(table, layout)
                if table.isWon {
                    wonBanner(layout)
                }
            }
            .frame(maxWidth: .infinity, maxHeight: .infinity, alignment: .topLeading)
            .coordinateSpace(name: "table")
        } else {
            ProgressView()
                .tint(Color.white)
                .frame(maxWidth: .infinity, maxHeight: .infinity)
        }
    }

    // MARK: Piles

    private func stock(_ table: KlondikeState, _ layout: TableLayout) -> some View {
        Group {
            if table.stock.isEmpty {
                EmptySlot(symbol: "arrow.counterclockwise")  // a tap turns the waste over
            } else {
                CardView(card: KlondikeState.faceDown)
            }
        }
        .frame(width: layout.cardWidth, height: layout.cardHeight)
        .contentShape(Rectangle())
        .onTapGesture { model.tapStock() }
        .offset(x: layout.x(0), y: 0)
    }

    /// The waste's top card, with the two under it fanned out when drawing three.
    private func waste(_ table: KlondikeState, _ layout: TableLayout) -> some View {
        let shown = Array(table.waste.suffix(3))
        let fan = table.draw == 3 ? layout.wasteFan : 0
        return ZStack(alignment: .topLeading) {
            EmptySlot()
                .frame(width: layout.cardWidth, height: layout.cardHeight)
                .offset(x: layout.x(1), y: 0)
            ForEach(shown.indices, id: \.self) { k in
                let origin = CGPoint(x: layout.x(1) + CGFloat(k) * fan, y: 0)
                if k == shown.count - 1 {
                    interactive(
                        card: shown[k], pointer: "/waste", pile: "/waste", index: table.waste.count - 1,
                        selected: model.selected == "/waste", origin: origin, doubleTaps: true, layout: layout)
                } else {
                    placed(CardView(card: shown[k]), at: origin, layout)
                }
            }
        }
    }

    private func foundation(_ i: Int, _ table: KlondikeState, _ layout: TableLayout) -> some View {
        let pointer = "/foundations/\(i)"
        let pile = table.foundations[i]
        let origin = CGPoint(x: layout.x(3 + i), y: 0)
        return ZStack(alignment: .topLeading) {
            placed(EmptySlot(), at: origin, layout)
                .onTapGesture { model.tapped(card: nil, pile: pointer) }
            if pile.count > 1 {
                placed(CardView(card: pile[pile.count - 2]), at: origin, layout)  // seen while the top is dragged
            }
            if let top = pile.last {
                // A foundation's top card can be dragged (or picked up) back onto the tableau.
                interactive(
                    card: top, pointer: pointer, pile: pointer, index: pile.count - 1,
                    selected: model.selected == pointer, origin: origin, doubleTaps: false, layout: layout)
            }
        }
    }

    private func tableauPile(_ i: Int, _ table: KlondikeState, _ layout: TableLayout) -> some View {
        let pile = table.tableau[i]
        let pilePointer = "/tableau/\(i)"
        let offsets = layout.fanOffsets(pile)
        return ZStack(alignment: .topLeading) {
            placed(EmptySlot(), at: CGPoint(x: layout.x(i), y: layout.tableauTop), layout)
                .onTapGesture { model.tapped(card: nil, pile: pilePointer) }
            ForEach(pile.indices, id: \.self) { j in
                let origin = CGPoint(x: layout.x(i), y: layout.tableauTop + offsets[j])
                if pile[j] == KlondikeState.faceDown {
                    placed(CardView(card: pile[j]), at: origin, layout)
                        .onTapGesture { model.tapped(card: nil, pile: pilePointer) }
                } else {
                    interactive(
                        card: pile[j], pointer: "\(pilePointer)/\(j)", pile: pilePointer, index: j,
                        selected: model.isSelected(pile: pilePointer, index: j), origin: origin,
                        doubleTaps: true, layout: layout)
                }
            }
        }
    }

    // MARK: Cards and their gestures

    private func placed<V: View>(_ view: V, at origin: CGPoint, _ layout: TableLayout) -> some View {
        view
            .frame(width: layout.cardWidth, height: layout.cardHeight)
            .contentShape(Rectangle())
            .offset(x: origin.x, y: origin.y)
    }

    /// A face-up card that can be dragged, double-tapped (`doubleTaps`) and tapped.
    private func interactive(
        card: String, pointer: String, pile: String, index: Int, selected: Bool, origin: CGPoint,
        doubleTaps: Bool, layout: TableLayout
    ) -> some View {
        let lifted = dragging.map { $0.pile == pile && index >= $0.index } ?? false
        return placed(CardView(card: card, selected: selected), at: origin, layout)
            .opacity(lifted ? 0.35 : 1)  // where it came from, while its copy follows the finger
            .gesture(
                DragGesture(minimumDistance: 6, coordinateSpace: .named("table"))
                    .onChanged { value in
                        dragging = Dragging(pile: pile, index: index, origin: origin, translation: value.translation)
                    }
                    .onEnded { value in
                        dragging = nil
                        model.dropped(from: pointer, pile: pile, on: layout.pile(at: value.location))
                    }
            )
            .onTapGesture(count: 2) {
                if doubleTaps { model.doubleTap(pointer) }
            }
            .onTapGesture { model.tapped(card: pointer, pile: pile) }
    }

    /// The card being dragged and every card on it, under the finger.
    @ViewBuilder
    private func draggedCards(_ table: KlondikeState, _ layout: TableLayout) -> some View {
        if let d = dragging {
            let run = Array(table.cards(in: d.pile).dropFirst(d.index))
            ForEach(run.indices, id: \.self) { k in
                CardView(card: run[k], selected: true)
                    .frame(width: layout.cardWidth, height: layout.cardHeight)
                    .offset(
                        x: d.origin.x + d.translation.width,
                        y: d.origin.y + d.translation.height + CGFloat(k) * layout.fanUp)
                    .allowsHitTesting(false)
            }
        }
    }

    private func wonBanner(_ layout: TableLayout) -> some View {
        VStack(spacing: 6) {
            Text("Won!").font(.largeTitle.bold())
            if let seconds = model.wonIn {
                Text("in \(seconds) s")
            }
            Text("Shake for a new deal")
        }
        .padding(24)
        .background(.ultraThinMaterial, in: RoundedRectangle(cornerRadius: 16))
        .frame(width: layout.size.width)
        .offset(y: layout.tableauTop)
    }
}

// MARK: - Geometry

/// Seven columns: the stock, the waste (its fan over the empty third column), the four
/// foundations; below them the seven tableau piles.
struct TableLayout {
    let size: CGSize

    var column: CGFloat { size.width / 7 }
    var cardWidth: CGFloat { max(column - 6, 1) }
    var cardHeight: CGFloat { cardWidth * 1.45 }
    var tableauTop: CGFloat { cardHeight + 18 }
    var fanDown: CGFloat { cardHeight * 0.12 }
    var fanUp: CGFloat { cardHeight * 0.3 }
    var wasteFan: CGFloat { cardWidth * 0.22 }

    func x(_ column: Int) -> CGFloat { CGFloat(column) * self.column + 3 }

    /// Each card's distance below the pile's top, squeezed to fit the height.
    func fanOffsets(_ pile: [String]) -> [CGFloat] {
        var offsets: [CGFloat] = []
        var y: CGFloat = 0
        for card in pile {
            offsets.append(y)
            y += card == KlondikeState.faceDown ? fanDown : fanUp
        }
        let room = max(size.height - tableauTop - cardHeight, 0)
        guard let last = offsets.last, last > room else { return offsets }
        return offsets.map { $0 * room / last }
    }

    /// The pile under a point: the pointer a drop there goes to (PROTOCOL section 5's targets).
    func pile(at point: CGPoint) -> String? {
        guard point.x >= 0, point.y >= 0 else { return nil }
        let c = Int(point.x / column)
        guard (0..<7).contains(c) else { return nil }
        if point.y < tableauTop - 9 {
            switch c {
            case 0: return "/stock"  // the server refuses a drop here: illegal-move
            case 1: return "/waste"  // the same
            case 3...6: return "/foundations/\(c - 3)"
            default: return nil
            }
        }
        return "/tableau/\(c)"
    }
}

extension KlondikeState {
    /// The cards of a pile pointer (`/waste`, `/foundations/I`, `/tableau/I`), bottom first.
    func cards(in pile: String) -> [String] {
        let parts = pile.split(separator: "/")
        guard let name = parts.first else { return [] }
        let i = parts.count > 1 ? Int(parts[1]) : nil
        switch (name, i) {
        case ("stock", nil): return stock
        case ("waste", nil): return waste
        case ("foundations", let i?) where foundations.indices.contains(i): return foundations[i]
        case ("tableau", let i?) where tableau.indices.contains(i): return tableau[i]
        default: return []
        }
    }
}

// MARK: - Cards

struct CardView: View {
    let card: String
    var selected = false

    var body: some View {
        let shape = RoundedRectangle(cornerRadius: 5, style: .continuous)
        ZStack(alignment: .topLeading) {
            if card == KlondikeState.faceDown {
                shape.fill(Color(red: 0.16, green: 0.3, blue: 0.7))
            } else {
                shape.fill(Color.white)
                Text(Self.label(card))
                    .font(.system(size: 14, weight: .semibold, design: .rounded))
                    .foregroundStyle(Self.isRed(card) ? Color.red : Color.black)
                    .padding(3)
            }
            shape.strokeBorder(selected ? Color.yellow : Color.black.opacity(0.25), lineWidth: selected ? 3 : 1)
        }
    }

    /// `TD` → `10♦`.
    static func label(_ card: String) -> String {
        guard let rank = card.first, let suit = card.last else { return card }
        let symbol: String
        switch suit {
        case "S": symbol = "♠"
        case "H": symbol = "♥"
        case "D": symbol = "♦"
        case "C": symbol = "♣"
        default: symbol = String(suit)
        }
        return (rank == "T" ? "10" : String(rank)) + symbol
    }

    static func isRed(_ card: String) -> Bool { card.hasSuffix("H") || card.hasSuffix("D") }
}

struct EmptySlot: View {
    var symbol: String?

    var body: some View {
        RoundedRectangle(cornerRadius: 5, style: .continuous)
            .strokeBorder(Color.white.opacity(0.35), lineWidth: 1.5)
            .overlay {
                if let symbol {
                    Image(systemName: symbol).foregroundStyle(Color.white.opacity(0.6))
                }
            }
    }
}
#endif
