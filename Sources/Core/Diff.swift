/// What one accepted gesture changed: an RFC 6902 patch that turns the public
/// document before the gesture into the public document after it.
public struct Diff: Sendable, Equatable {
    public var ops: [PatchOp]

    public init(_ ops: [PatchOp] = []) { self.ops = ops }

    public var isEmpty: Bool { ops.isEmpty }

    /// The `ops` array as JSON text, encoded once so the same bytes can go to every receiver.
    public var encodedOps: String {
        var capacity = 2 + ops.count
        for op in ops { capacity += op.maxEncodedCount }
        return JSONTextBuffer.makeString(capacity: capacity) { out in
            out.append(UInt8(ascii: "["))
            var first = true
            for op in ops {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                op.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    public mutating func append(_ op: PatchOp) { ops.append(op) }
    public mutating func append(contentsOf other: Diff) { ops.append(contentsOf: other.ops) }
}
