import Testing
@testable import Core

/// Builds a plane from a small table, one rectangle a line, bottom first:
///
///     aaa-aaa-aaa  10  20 150 120 #ff8000 7  p1,p2
///     id           x   y  w   h   colour  alpha  [players who selected it]
func planePicture(_ table: String, width: Double = 1024, height: Double = 768, seed: UInt64 = 1) throws -> Plane {
    var rectangles: [Rectangle] = []
    var selections: [(player: String, id: RectangleID)] = []
    for line in table.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
        let words = line.split(separator: " ").map(String.init)
        guard words.count == 7 || words.count == 8, let id = RectangleID(words[0]),
              let x = Double(words[1]), let y = Double(words[2]), let w = Double(words[3]), let h = Double(words[4]),
              words[5].count == 7, words[5].hasPrefix("#"), let rgb = Int(words[5].dropFirst(), radix: 16),
              let alpha = Int(words[6])
        else {
            Issue.record("bad picture line: \(line)")
            continue
        }
        let color = RGB(r: (rgb >> 16) & 0xFF, g: (rgb >> 8) & 0xFF, b: rgb & 0xFF)
        rectangles.append(Rectangle(id: id, x: x, y: y, width: w, height: h, color: color, alpha: alpha))
        if words.count == 8 {
            selections += words[7].split(separator: ",").map { (player: String($0), id: id) }
        }
    }
    return try Plane(width: width, height: height, seed: seed, rectangles: rectangles, selections: selections)
}

func rectID(_ text: String) -> RectangleID {
    guard let id = RectangleID(text) else { preconditionFailure("not a rectangle id: \(text)") }
    return id
}

extension Plane {
    /// Applies a command that must be accepted and returns its ops as wire text.
    @discardableResult
    mutating func expectAccepted(_ command: PlaneCommand, by player: String = "p1",
                                 sourceLocation: SourceLocation = #_sourceLocation) -> String {
        switch apply(command, context: MoveContext(player: player, time: 0)) {
        case .success(let outcome):
            #expect(!outcome.diff.isEmpty, "an accepted command must change something", sourceLocation: sourceLocation)
            return outcome.diff.encodedOps
        case .failure(let error):
            Issue.record("expected \(command) to be accepted, got \(error)", sourceLocation: sourceLocation)
            return ""
        }
    }

    /// Applies a command that must be refused with the given code and rule, and checks that nothing changed.
    mutating func expectRefused(_ command: PlaneCommand, by player: String = "p1", _ code: GameError.Code, rule: String,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        let before = self
        switch apply(command, context: MoveContext(player: player, time: 0)) {
        case .success(let outcome):
            Issue.record("expected \(command) to be refused, got \(outcome.diff.encodedOps)", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == code && error.rule == rule, "got \(error)", sourceLocation: sourceLocation)
        }
        #expect(self == before, "a refused command changed the plane", sourceLocation: sourceLocation)
    }
}

func point(_ x: Double, _ y: Double) -> PlanePoint { PlanePoint(x: x, y: y) }
