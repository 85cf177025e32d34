extension Plane {
    /// Columns of the map in `textBoard()`.
    static let mapColumns = 48
    /// Rectangles listed one per line in `textBoard()`; the topmost are kept.
    static let listedRectangles = 60

    /// A drawing of the plane for terminals (`show`): a coarse map where each
    /// cell shows the label of the topmost rectangle over the cell's centre,
    /// then one line per rectangle, top first.
    public func textBoard() -> [String] {
        let labels = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        func label(_ index: Int) -> Character { index < labels.count ? labels[index] : "#" }

        let columns = Self.mapColumns
        // Terminal cells are about twice as tall as wide.
        let rows = max(1, min(24, Int((Double(columns) * height / width / 2).rounded())))
        var lines = ["plane \(Self.format(width)) x \(Self.format(height)), \(rectangles.count) rectangle\(rectangles.count == 1 ? "" : "s")"]
        lines.append("+" + String(repeating: "-", count: columns) + "+")
        for row in 0..<rows {
            var line = "|"
            for column in 0..<columns {
                let centre = PlanePoint(
                    x: (Double(column) + 0.5) * width / Double(columns),
                    y: (Double(row) + 0.5) * height / Double(rows))
                line.append(topmostIndex(at: centre).map(label) ?? " ")
            }
            lines.append(line + "|")
        }
        lines.append("+" + String(repeating: "-", count: columns) + "+")

        for index in rectangles.indices.reversed().prefix(Self.listedRectangles) {
            let r = rectangles[index]
            var line = "\(label(index)) \(r.id) x=\(Self.format(r.x)) y=\(Self.format(r.y)) "
                + "\(Self.format(r.width))x\(Self.format(r.height)) \(r.color.hex) alpha=\(r.alpha)"
            let by = players(selecting: r.id)
            if !by.isEmpty { line += " selected by " + by.joined(separator: ",") }
            lines.append(line)
        }
        if rectangles.count > Self.listedRectangles {
            lines.append("... and \(rectangles.count - Self.listedRectangles) more below")
        }
        return lines
    }
}
