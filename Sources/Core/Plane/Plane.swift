/// The shared drawing plane (protocol section 6): rectangles bottom to top and
/// each player's selected rectangle.
///
/// Everything random comes from one SplitMix64 seeded by the options, and a
/// refused command leaves the generator untouched too, so replaying the
/// accepted commands of a game rebuilds it exactly.
public struct Plane: Sendable, Equatable {
    public let width: Double
    public let height: Double
    /// Bottom to top. Only add, double-tap and reset change it, and add and
    /// double-tap only append, so an index into it names a rectangle for good
    /// until the next reset.
    public private(set) var rectangles: [Rectangle] = []
    /// Per player, in the order they first selected; an index into `rectangles`.
    private var selections: [Selection] = []
    /// The diff paths of each rectangle's fields, parallel to `rectangles`: made
    /// once per rectangle instead of once per gesture (see core-bench).
    private var fieldPaths: [FieldPaths] = []
    private var ids: Set<RectangleID> = []
    private var rng: SplitMix64

    /// A bound on rectangles so one player's `add` loop cannot grow a game without end.
    public static let maxRectangles = 10_000

    private struct Selection: Sendable, Equatable {
        let player: String
        var index: Int
        /// `/selections/PLAYER`, escaped.
        let path: String

        init(player: String, index: Int) {
            self.player = player
            self.index = index
            path = "/selections/" + Pointer.escape(player)
        }
    }

    private struct FieldPaths: Sendable, Equatable {
        let x, y, r, g, b, alpha: String

        init(_ id: RectangleID) {
            (x, y, r, g, b, alpha) = (
                Self.path(id, "x"), Self.path(id, "y"), Self.path(id, "r"), Self.path(id, "g"), Self.path(id, "b"),
                Self.path(id, "alpha")
            )
        }

        /// `/rectangles/ID/FIELD` in one allocation; `+` on Strings costs many times more.
        static func path(_ id: RectangleID, _ field: StaticString) -> String {
            let prefix: StaticString = "/rectangles/"
            var raw = id.rawValue
            return raw.withUTF8 { idBytes in
                String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + idBytes.count + 1 + field.utf8CodeUnitCount) {
                    var at = 0
                    func copy(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>) {
                        for byte in bytes {
                            buffer[at] = byte
                            at += 1
                        }
                    }
                    copy(UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount), into: $0)
                    copy(idBytes, into: $0)
                    $0[at] = UInt8(ascii: "/")
                    at += 1
                    copy(UnsafeBufferPointer(start: field.utf8Start, count: field.utf8CodeUnitCount), into: $0)
                    return at
                }
            }
        }
    }

    public init(options: PlaneOptions) throws(GameError) {
        for (name, side) in [("width", options.width), ("height", options.height)] {
            guard side.isFinite, side > 0, side <= PlaneOptions.maxSide else {
                throw .badRequest("plane-size", "\(name) must be a number above 0 and at most \(Int(PlaneOptions.maxSide))")
            }
        }
        width = options.width
        height = options.height
        rng = SplitMix64(seed: options.seed)
    }

    private var factory: RectangleFactory { RectangleFactory(planeWidth: width, planeHeight: height) }

    // MARK: - Reading

    public var selectedPlayers: [String] { selections.map(\.player) }

    public func selection(of player: String) -> RectangleID? {
        selections.first(where: { $0.player == player }).map { rectangles[$0.index].id }
    }

    /// Players who selected the given rectangle, in selection order.
    public func players(selecting id: RectangleID) -> [String] {
        selections.filter { rectangles[$0.index].id == id }.map(\.player)
    }

    /// Index in `rectangles` of the topmost rectangle containing the point.
    func topmostIndex(at point: PlanePoint) -> Int? {
        var i = rectangles.count
        while i > 0 {
            i -= 1
            if rectangles[i].contains(point) { return i }
        }
        return nil
    }

    private func selectionSlot(of player: String) -> Int? {
        selections.firstIndex(where: { $0.player == player })
    }

    // MARK: - Commands

    public mutating func apply(_ command: PlaneCommand, context: MoveContext) -> Result<MoveOutcome, GameError> {
        do {
            return .success(try perform(command, player: context.player))
        } catch {
            return .failure(error)
        }
    }

    // Each gesture validates everything first and mutates only once it cannot
    // fail, so a refusal leaves the plane (generator included) as it was.
    private mutating func perform(_ command: PlaneCommand, player: String) throws(GameError) -> MoveOutcome {
        switch command {
        case .tap(let point): return MoveOutcome(diff: try tap(point, player: player))
        case .doubleTap(let point): return MoveOutcome(diff: try doubleTap(point, player: player))
        case .drag(let from, let to): return MoveOutcome(diff: try drag(from: from, to: to, player: player))
        case .reset: return MoveOutcome(diff: try reset(), events: [GameEvent(name: "reset")])
        case .add(let spec): return MoveOutcome(diff: try add(spec, player: player))
        case .color(let rgb): return MoveOutcome(diff: try recolor(rgb, player: player))
        case .alpha(let step): return MoveOutcome(diff: try changeAlpha(step: step, player: player))
        case .leave: return MoveOutcome(diff: try leave(player: player))
        }
    }

    private mutating func tap(_ point: PlanePoint, player: String) throws(GameError) -> Diff {
        try Self.requireFinite(point)
        if let hit = topmostIndex(at: point) {
            guard selectionSlot(of: player).map({ selections[$0].index }) != hit else {
                throw .illegal("already-selected", "that rectangle is already your selection")
            }
            var diff = Diff()
            diff.ops.reserveCapacity(1)
            select(hit, for: player, into: &diff)
            return diff
        }
        guard let slot = selectionSlot(of: player) else {
            throw .illegal("nothing-to-deselect", "no rectangle there and nothing selected")
        }
        let removed = selections.remove(at: slot)
        return Diff([.remove(path: removed.path)])
    }

    private mutating func doubleTap(_ point: PlanePoint, player: String) throws(GameError) -> Diff {
        try Self.requireFinite(point)
        try requireRoom()
        let factory = self.factory
        let (w, h) = factory.defaultSize
        let origin = factory.clampedOrigin(x: point.x - w / 2, y: point.y - h / 2, width: w, height: h)
        var rng = self.rng
        let id = factory.makeUniqueID(avoiding: ids, using: &rng)
        let color = factory.makeColor(using: &rng)
        let alpha = factory.makeAlpha(using: &rng)
        self.rng = rng
        return insert(Rectangle(id: id, x: origin.x, y: origin.y, width: w, height: h, color: color, alpha: alpha), selectedBy: player)
    }

    private mutating func drag(from: PlanePoint, to: PlanePoint, player: String) throws(GameError) -> Diff {
        try Self.requireFinite(from)
        try Self.requireFinite(to)
        guard let index = topmostIndex(at: from) else {
            throw .illegal("nothing-to-drag", "no rectangle under the drag's start")
        }
        var moved = rectangles[index]
        (moved.x, moved.y) = factory.clampedOrigin(
            x: moved.x + (to.x - from.x), y: moved.y + (to.y - from.y), width: moved.width, height: moved.height)
        let alreadySelected = selectionSlot(of: player).map { selections[$0].index } == index
        guard moved != rectangles[index] || !alreadySelected else {
            throw .illegal("nothing-moved", "the rectangle cannot move that way and is already your selection")
        }
        var diff = Diff()
        diff.ops.reserveCapacity(3)
        let paths = fieldPaths[index]
        if moved.x != rectangles[index].x { diff.append(.replace(path: paths.x, value: .double(moved.x))) }
        if moved.y != rectangles[index].y { diff.append(.replace(path: paths.y, value: .double(moved.y))) }
        rectangles[index] = moved
        select(index, for: player, into: &diff)
        return diff
    }

    private mutating func reset() throws(GameError) -> Diff {
        guard !rectangles.isEmpty else { throw .illegal("plane-empty", "the plane is already empty") }
        var diff = Diff([.replace(path: "/rectangles", value: .object([])), .replace(path: "/order", value: .array([]))])
        if !selections.isEmpty { diff.append(.replace(path: "/selections", value: .object([]))) }
        rectangles.removeAll(keepingCapacity: true)
        fieldPaths.removeAll(keepingCapacity: true)
        selections.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
        return diff
    }

    /// A rectangle given by `add` that sticks out of the plane is moved inside it,
    /// as a double-tap's is; one larger than the plane cannot be, and is refused.
    private mutating func add(_ spec: RectangleSpec, player: String) throws(GameError) -> Diff {
        for (name, value) in [("x", spec.x), ("y", spec.y)] {
            if let value, !value.isFinite { throw .badRequest("not-finite", "\(name) must be a finite number") }
        }
        for (name, value, side) in [("width", spec.width, width), ("height", spec.height, height)] {
            if let value, !(value.isFinite && value > 0 && value <= side) {
                throw .badRequest("rectangle-size", "\(name) must be above 0 and at most the plane's \(name) (\(Self.format(side)))")
            }
        }
        for (name, value) in [("r", spec.r), ("g", spec.g), ("b", spec.b)] {
            if let value, !RGB.channelRange.contains(value) { throw .badRequest("color-range", "\(name) must be 0...255") }
        }
        if let alpha = spec.alpha, !Rectangle.alphaRange.contains(alpha) {
            throw .badRequest("alpha-range", "alpha must be 1...10")
        }
        try requireRoom()

        let factory = self.factory
        let w = spec.width ?? factory.defaultSize.width
        let h = spec.height ?? factory.defaultSize.height
        var rng = self.rng
        let id = factory.makeUniqueID(avoiding: ids, using: &rng)
        // Draw only what was not given, always in the same order, so replays agree.
        let x = spec.x ?? factory.makeCoordinate(room: width - w, using: &rng)
        let y = spec.y ?? factory.makeCoordinate(room: height - h, using: &rng)
        var color = RGB(r: 0, g: 0, b: 0)
        if spec.r == nil || spec.g == nil || spec.b == nil { color = factory.makeColor(using: &rng) }
        color = RGB(r: spec.r ?? color.r, g: spec.g ?? color.g, b: spec.b ?? color.b)
        let alpha = spec.alpha ?? factory.makeAlpha(using: &rng)
        self.rng = rng
        let origin = factory.clampedOrigin(x: x, y: y, width: w, height: h)
        return insert(Rectangle(id: id, x: origin.x, y: origin.y, width: w, height: h, color: color, alpha: alpha), selectedBy: player)
    }

    private mutating func recolor(_ rgb: RGB?, player: String) throws(GameError) -> Diff {
        if let rgb, !rgb.isValid { throw .badRequest("color-range", "r, g and b must be 0...255") }
        let index = try selectedIndex(of: player)
        let old = rectangles[index].color
        let new: RGB
        if let rgb {
            guard rgb != old else { throw .illegal("same-color", "the selection already has that colour") }
            new = rgb
        } else {
            // A random colour always changes something: re-roll the one-in-16-million repeat.
            var rng = self.rng
            var drawn = factory.makeColor(using: &rng)
            while drawn == old { drawn = factory.makeColor(using: &rng) }
            self.rng = rng
            new = drawn
        }
        rectangles[index].color = new
        let paths = fieldPaths[index]
        var diff = Diff()
        diff.ops.reserveCapacity(3)
        if new.r != old.r { diff.append(.replace(path: paths.r, value: .int(new.r))) }
        if new.g != old.g { diff.append(.replace(path: paths.g, value: .int(new.g))) }
        if new.b != old.b { diff.append(.replace(path: paths.b, value: .int(new.b))) }
        return diff
    }

    private mutating func changeAlpha(step: Int, player: String) throws(GameError) -> Diff {
        guard step == 1 || step == -1 else { throw .badRequest("alpha-step", "alpha step must be 1 or -1") }
        let index = try selectedIndex(of: player)
        let alpha = rectangles[index].alpha + step
        guard Rectangle.alphaRange.contains(alpha) else {
            throw .illegal("alpha-bounds", step > 0 ? "alpha is already at its most, 10" : "alpha is already at its least, 1")
        }
        rectangles[index].alpha = alpha
        return Diff([.replace(path: fieldPaths[index].alpha, value: .int(alpha))])
    }

    private mutating func leave(player: String) throws(GameError) -> Diff {
        guard let slot = selectionSlot(of: player) else {
            throw .illegal("no-selection", "\(player) has no selection to remove")
        }
        let removed = selections.remove(at: slot)
        return Diff([.remove(path: removed.path)])
    }

    // MARK: - Helpers

    private func selectedIndex(of player: String) throws(GameError) -> Int {
        guard let slot = selectionSlot(of: player) else { throw .illegal("no-selection", "select a rectangle first") }
        return selections[slot].index
    }

    private func requireRoom() throws(GameError) {
        guard rectangles.count < Self.maxRectangles else {
            throw .illegal("plane-full", "the plane holds at most \(Self.maxRectangles) rectangles; reset it first")
        }
    }

    private static func requireFinite(_ point: PlanePoint) throws(GameError) {
        guard point.isFinite else { throw .badRequest("not-finite", "x and y must be finite numbers") }
    }

    /// Appends a new rectangle on top and makes it the player's selection.
    private mutating func insert(_ rectangle: Rectangle, selectedBy player: String) -> Diff {
        var diff = Diff()
        diff.ops.reserveCapacity(3)
        diff.append(.add(path: "/rectangles/" + rectangle.id.rawValue, value: rectangle.json))
        diff.append(.add(path: "/order/-", value: .string(rectangle.id.rawValue)))
        ids.insert(rectangle.id)
        rectangles.append(rectangle)
        fieldPaths.append(FieldPaths(rectangle.id))
        select(rectangles.count - 1, for: player, into: &diff)
        return diff
    }

    /// Makes `index` the player's selection, adding the op that says so unless it already is.
    private mutating func select(_ index: Int, for player: String, into diff: inout Diff) {
        let value = JSON.string(rectangles[index].id.rawValue)
        if let slot = selectionSlot(of: player) {
            guard selections[slot].index != index else { return }
            selections[slot].index = index
            diff.append(.replace(path: selections[slot].path, value: value))
        } else {
            let selection = Selection(player: player, index: index)
            selections.append(selection)
            diff.append(.add(path: selection.path, value: value))
        }
    }

    static func format(_ number: Double) -> String {
        var out = ""
        JSON.writeNumber(number, into: &out)
        return out
    }

    // MARK: - Document

    /// The public document, exactly as the protocol shows it; rectangles listed bottom to top.
    public var publicState: JSON {
        .object([
            (key: "width", value: .double(width)),
            (key: "height", value: .double(height)),
            (key: "rectangles", value: .object(rectangles.map { (key: $0.id.rawValue, value: $0.json) })),
            (key: "order", value: .array(rectangles.map { .string($0.id.rawValue) })),
            (key: "selections", value: .object(selections.map { (key: $0.player, value: .string(rectangles[$0.index].id.rawValue)) })),
        ])
    }
}

// MARK: - Test support

extension Plane {
    /// A plane holding exactly the given rectangles (bottom to top) and selections,
    /// for tests that start from a picture. The generator starts from `seed`.
    init(
        width: Double = 1024, height: Double = 768, seed: UInt64 = 0,
        rectangles: [Rectangle], selections: [(player: String, id: RectangleID)] = []
    ) throws(GameError) {
        self = try Plane(options: PlaneOptions(width: width, height: height, seed: seed))
        for rectangle in rectangles {
            precondition(!ids.contains(rectangle.id), "duplicate rectangle \(rectangle.id)")
            precondition(rectangle.x >= 0 && rectangle.y >= 0 && rectangle.x + rectangle.width <= width
                && rectangle.y + rectangle.height <= height, "rectangle \(rectangle.id) sticks out of the plane")
            ids.insert(rectangle.id)
            self.rectangles.append(rectangle)
            fieldPaths.append(FieldPaths(rectangle.id))
        }
        for (player, id) in selections {
            guard let index = self.rectangles.firstIndex(where: { $0.id == id }) else {
                preconditionFailure("selection of unknown rectangle \(id)")
            }
            precondition(!self.selections.contains { $0.player == player }, "\(player) selects twice")
            self.selections.append(Selection(player: player, index: index))
        }
    }
}
