/// The first line of an HTTP request (`GET /path?query HTTP/1.1`), checked before lws parses
/// it. lws 4.1.6 closes the connection without a word on a path that decodes to a NUL byte or
/// that overflows its header space, and answers a malformed percent-escape with an HTML 403;
/// PROTOCOL section 14 wants a status line for every request, 400 or 404 for a bad path.
/// (`RequestHead` reads the header fields that follow.)
enum RequestLine {
    /// The longest path (percent-decoded, without the query) the server reads.
    static let maxPathBytes = 2048
    /// A first line longer than this (without its end) is refused without waiting for its end.
    static let maxLineBytes = 8192
    /// The most query arguments (`a=1&b=2` is two; lws also splits at `;`). lws keeps each in a
    /// slot of the same table as the header fields, and closes a connection without a status
    /// line when that table is full: this and `RequestHead.maxFields` keep a request inside it.
    static let maxQueryArguments = 24

    enum Verdict: Equatable {
        /// No line end yet: wait for more bytes.
        case incomplete
        /// A well-formed line: lws may parse the request.
        case pass
        /// Answer this and close.
        case refuse(HTTPResponse)
    }

    /// Methods lws's parser knows; it refuses any other with a 403 of its own.
    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT"]

    /// Reads the request's first bytes as received so far.
    static func check(_ bytes: [UInt8]) -> Verdict {
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")), end <= maxLineBytes + 1 else {
            guard bytes.count > maxLineBytes else { return .incomplete }
            // Too long to wait for its end: say what is wrong with what came (most likely the path).
            let parts = bytes.prefix(maxLineBytes).split(separator: UInt8(ascii: " "), maxSplits: 2)
            if parts.count >= 2, case .refuse(let response) = checkTarget(parts[1]) { return .refuse(response) }
            return .refuse(badRequest("request line over \(maxLineBytes) bytes"))
        }
        var line = bytes[..<end]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8) else {
            return .refuse(badRequest("not an HTTP/1.1 request line"))
        }
        guard methods.contains(String(decoding: parts[0], as: UTF8.self)) else {
            return .refuse(HTTPResponse.text(405, "GET or HEAD only\n"))
        }
        return checkTarget(parts[1])
    }

    /// The request target: an absolute path, well-formed percent-escapes, no control bytes
    /// raw or escaped, a path of at most `maxPathBytes` once decoded, and at most
    /// `maxQueryArguments` query arguments.
    private static func checkTarget(_ target: ArraySlice<UInt8>) -> Verdict {
        guard target.first == UInt8(ascii: "/") else { return .refuse(badRequest("the path must start with /")) }
        var decodedPath = 0
        var inQuery = false
        var queryArguments = 0
        var index = target.startIndex
        while index < target.endIndex {
            var byte = target[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < target.endIndex, let high = hexDigitValue(target[index + 1]),
                      let low = hexDigitValue(target[index + 2]) else {
                    return .refuse(badRequest("bad percent-encoding in the URL"))
                }
                byte = high << 4 | low
                index += 3
                guard byte != 0 else { return .refuse(badRequest("NUL in the URL")) }
            } else {
                index += 1
                if byte == UInt8(ascii: "?") && !inQuery {
                    inQuery = true
                    queryArguments = 1
                } else if inQuery && (byte == UInt8(ascii: "&") || byte == UInt8(ascii: ";")) {
                    // lws splits the query at these when they come raw (not escaped).
                    queryArguments += 1
                    if queryArguments > maxQueryArguments {
                        return .refuse(badRequest("over \(maxQueryArguments) query arguments"))
                    }
                }
            }
            guard byte >= 0x20, byte != 0x7F else { return .refuse(badRequest("control character in the URL")) }
            if !inQuery {
                decodedPath += 1
                if decodedPath > maxPathBytes { return .refuse(pathTooLong) }
            }
        }
        return .pass
    }

    /// What a path over `maxPathBytes` gets (also when lws truncated one for a later request of a connection).
    static let pathTooLong = badRequest("path over \(maxPathBytes) bytes")

    private static func badRequest(_ why: String) -> HTTPResponse {
        HTTPResponse.text(400, "bad request: \(why)\n")
    }
}
