import Foundation
import PostgresNIO

/// A few links lent to one caller at a time: the readers' connections. A caller finding every
/// link lent waits for one, so the database sees at most `links.count` reading sessions.
// @unchecked Sendable: `free` is read and written only while `condition` is locked; the links
// are Sendable and the array immutable.
final class PostgresLinkPool: @unchecked Sendable {
    private let links: [PostgresLink]
    private let condition = NSCondition()
    private var free: [Int]

    init(_ links: [PostgresLink]) {
        precondition(!links.isEmpty, "a pool needs a link")
        self.links = links
        free = Array(links.indices.reversed())
    }

    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        condition.lock()
        while free.isEmpty { condition.wait() }
        let index = free.removeLast()
        condition.unlock()
        defer {
            condition.lock()
            free.append(index)
            condition.signal()
            condition.unlock()
        }
        return try links[index].withSession(body)
    }

    func close() {
        for link in links { link.close() }
    }
}

/// A text[] parameter whose elements may be NULL, which postgres-nio's own arrays cannot
/// carry: the nullable columns (client id, diff) of a many-row insert from UNNEST.
struct NullableTextArray: PostgresNonThrowingEncodable {
    var elements: [String?]

    init(_ elements: [String?]) { self.elements = elements }

    static var psqlType: PostgresDataType { .textArray }
    static var psqlFormat: PostgresFormat { .binary }

    /// PostgreSQL's binary array: dimensions, a has-NULLs flag, the element type, then for the
    /// one dimension its length and lower bound, then each element as a length (-1 for NULL) and bytes.
    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(Int32(elements.isEmpty ? 0 : 1))
        buffer.writeInteger(Int32(elements.contains(nil) ? 1 : 0))
        buffer.writeInteger(PostgresDataType.text.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(Int32(1))
        for element in elements {
            guard let element else {
                buffer.writeInteger(Int32(-1))
                continue
            }
            buffer.writeInteger(Int32(element.utf8.count))
            buffer.writeString(element)
        }
    }
}
