/// The head of a connection's first request (its request line, then its header fields up to the
/// empty line), read before lws parses it. lws 4.1.6 keeps a request's header fields in one
/// buffer of fixed size and one table of fixed size; a head that overflows either fails its
/// parser, and lws shuts the connection down with no status line and no callback before it (the
/// close callback comes after the shutdown). PROTOCOL section 14 wants a status line for every
/// request, so a head over the limits below is answered 431 here instead, and lws is given a
/// buffer every head within them fits (`lwsHeaderSpace`): lws never meets its own limits on a
/// first request. Later requests on a kept-alive connection are lws's alone.
///
/// Reads what came so far, as often as more comes: each call gets the connection's bytes from
/// the first (they are peeked, so they only grow) and reads only those it has not read yet.
struct RequestHead {
    /// The most bytes of a head: request line, header fields and the empty line that ends them.
    static let maxBytes = 16384
    /// The most header fields. lws holds each field of a name it knows, each query argument and
    /// the request line's two parts in a table of 94 slots; with `RequestLine.maxQueryArguments`
    /// a head within this limit needs at most 90.
    static let maxFields = 64
    /// The longest header field line, without its line end (the request line has its own limit).
    static let maxFieldBytes = 8192

    /// The header buffer lws gets (`max_http_header_data`): any head within the limits above fits.
    /// lws keeps a field of a name it does not know with an 8-byte link in front and without its
    /// line end (at most 8 bytes more than the line); a query argument costs it one byte more
    /// than it takes on the wire.
    static let lwsHeaderSpace = maxBytes + 8 * maxFields + RequestLine.maxQueryArguments + 256

    enum Verdict: Equatable {
        /// The head has not ended yet: wait for more bytes.
        case incomplete
        /// A well-formed request line and a head within the limits: lws may parse it.
        case pass
        /// Answer this and close.
        case refuse(HTTPResponse)
    }

    /// Bytes read so far.
    private(set) var read = 0
    /// Where the line being read starts.
    private var lineStart = 0
    /// Header fields ended so far.
    private var fields = 0
    /// Whether the request line ended and passed `RequestLine`.
    private var requestLineRead = false

    init() {}

    /// Reads `bytes`, the connection's bytes from its first one (at least those of the last call).
    mutating func read<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Verdict
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let lineFeed = UInt8(ascii: "\n")
        let start = bytes.startIndex
        let count = bytes.count
        if !requestLineRead {
            let window = bytes[(start + read)..<(start + min(count, RequestLine.maxLineBytes + 3))]
            guard let end = window.firstIndex(of: lineFeed) else {
                read = window.endIndex - start
                // No line end yet: wait, or let `RequestLine` refuse a line too long to wait for.
                guard read > RequestLine.maxLineBytes else { return .incomplete }
                return verdict(RequestLine.check(Array(bytes[start..<window.endIndex])))
            }
            switch RequestLine.check(Array(bytes[start...end])) {
            case .pass:
                requestLineRead = true
                read = end + 1 - start
                lineStart = read
            case let other:
                return verdict(other)
            }
        }
        // Nothing past `maxBytes` is read: a head whose end is not within them is too long.
        let end = min(count, Self.maxBytes)
        for index in read..<max(read, end) where bytes[start + index] == lineFeed {
            var length = index - lineStart
            if length > 0 && bytes[start + index - 1] == UInt8(ascii: "\r") { length -= 1 }
            if length == 0 {
                read = index + 1
                return .pass
            }
            fields += 1
            if fields > Self.maxFields { return .refuse(Self.tooManyFields) }
            if length > Self.maxFieldBytes { return .refuse(Self.fieldTooLarge) }
            lineStart = index + 1
        }
        read = max(read, end)
        // A line longer than a field may be, with room for its CR: refused before it ends.
        if read - lineStart > Self.maxFieldBytes + 1 { return .refuse(Self.fieldTooLarge) }
        // The empty line is still to come, so the head will be longer than what came.
        if count >= Self.maxBytes { return .refuse(Self.headTooLarge) }
        return .incomplete
    }

    private func verdict(_ line: RequestLine.Verdict) -> Verdict {
        switch line {
        case .incomplete: return .incomplete
        case .pass: return .pass
        case .refuse(let response): return .refuse(response)
        }
    }

    static let headTooLarge = tooLarge("headers over \(maxBytes) bytes")
    static let tooManyFields = tooLarge("over \(maxFields) header fields")
    static let fieldTooLarge = tooLarge("a header field over \(maxFieldBytes) bytes")

    private static func tooLarge(_ why: String) -> HTTPResponse {
        HTTPResponse.text(431, "request header fields too large: \(why)\n")
    }
}
