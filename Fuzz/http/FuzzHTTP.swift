// HTTP paths and query strings: `LobbyQuery.parse` and the hub's `.http` event,
// driven without sockets; and the whole input as the first bytes of a connection, read by
// `RequestLine.check` (what lws gets to parse, or the 400 instead) and by `RequestHead`
// (the 431 for headers over its limits), at once and in two pieces. A hub with the default config, a seeded random source and a
// few live games (one of each kind) is fed path and query; it must never crash and must
// answer every request exactly once, with a response action or with a storage request
// (load, list) whose answer, fed back, gives the response. Bodies of 200s are JSON.
import Core
import FuzzSupport
@testable import Realtime

@_cdecl("fuzz_http_main")
func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzMain(argc, argv, fuzzOne)
}

/// The hub's random source: a SplitMix64 stream.
/// `@unchecked Sendable`: libFuzzer calls the target from one thread only, and nothing else runs.
final class SeededRandom: @unchecked Sendable {
    private var generator = SplitMix64(seed: 0x5EED)
    func next() -> UInt64 { generator.next() }
}

/// One hub for the whole run, with a live Klondike game, plane and race.
final class World {
    let hub: Hub
    let games: [String]
    let now = Instant(monotonic: 1000, unixTime: 1_800_000_000)
    var nextRequest: HTTPRequestID = 0

    init() {
        let random = SeededRandom()
        hub = Hub(config: Hub.Config(games: .standard), random: { random.next() })
        let connection = ConnectionID(1)
        _ = hub.handle(.opened(connection, .unknown, query: [:]), at: now)
        for kind in GameCatalog.standard.kinds {
            let actions = hub.handle(.frame(connection, Array(#"{"type":"create","kind":"\#(kind)"}"#.utf8)), at: now)
            for case .store(_, let ticket) in actions { _ = hub.handle(.committed(upTo: ticket, refused: [:]), at: now) }
        }
        games = hub.rooms.all.map(\.id).sorted()
        precondition(games.count == GameCatalog.standard.kinds.count, "the fuzz hub did not create its games")
    }
}

nonisolated(unsafe) let world = World()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let rest = String(decoding: input.bytes.dropFirst(), as: UTF8.self)
    // The path as lws gives it (anything but NUL), after one of the prefixes the hub knows.
    var path: String
    var query: String?
    if let mark = rest.firstIndex(of: "?") {
        path = String(rest[..<mark])
        query = String(rest[rest.index(after: mark)...])
    } else {
        path = rest
        query = mode & 1 == 0 ? nil : ""
    }
    switch (mode >> 1) & 7 {
    case 0: path = "/api/games" + path
    case 1: path = "/api/games/" + path
    case 2: path = "/api/games/" + world.games[Int(mode >> 4) % world.games.count] + path
    case 3: path = "/api/games/" + world.games[Int(mode >> 4) % world.games.count]
    default: break
    }
    checkLobbyQuery(query)
    checkRequestLine(Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)))
    checkRequestHead(Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)), split: Int(mode))
    answer(path: path, query: query, storage: mode >> 7 == 0)
    return 0
}

/// A connection's first bytes: a line passed to lws is a whole HTTP/1.x request line with a known
/// method, an absolute path of at most `RequestLine.maxPathBytes` once decoded, well-formed escapes
/// and no NUL or control byte; anything else is answered (400 or 405, with a reason) or waited for
/// only while no line end came and it is short enough.
func checkRequestLine(_ bytes: [UInt8]) {
    let what = String(decoding: bytes.prefix(80), as: UTF8.self).debugDescription
    switch RequestLine.check(bytes) {
    case .incomplete:
        require(!bytes.contains(UInt8(ascii: "\n")) && bytes.count <= RequestLine.maxLineBytes, "\(what): waited for")
    case .refuse(let response):
        require([400, 405].contains(response.status) && !response.body.isEmpty, "\(what): refused with \(response.status)")
        let head = String(decoding: response.closingBytes.prefix(30), as: UTF8.self)
        require(head.hasPrefix("HTTP/1.1 \(response.status) "), "\(what): \(head)")
    case .pass:
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return require(false, "\(what): passed with no line end") }
        let line = bytes[..<end].last == UInt8(ascii: "\r") ? bytes[..<(end - 1)] : bytes[..<end]
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        require(parts.count == 3 && parts[1].first == UInt8(ascii: "/"), "\(what): passed a malformed line")
        var path: [UInt8] = []
        var index = parts[1].startIndex
        while index < parts[1].endIndex, parts[1][index] != UInt8(ascii: "?") {
            if parts[1][index] == UInt8(ascii: "%") {
                let hex = String(decoding: parts[1][(index + 1)...(index + 2)], as: UTF8.self)
                path.append(UInt8(hex, radix: 16) ?? 0)
                index += 3
            } else {
                path.append(parts[1][index])
                index += 1
            }
        }
        require(path.count <= RequestLine.maxPathBytes, "\(what): passed a path of \(path.count) bytes")
        require(!line.contains(0) && !path.contains { $0 < 0x20 || $0 == 0x7F }, "\(what): passed a control byte")
    }
}

/// A connection's first bytes as a head: read at once and in two pieces (cut `split` bytes in,
/// scaled), the same verdict; a head passed to lws ends within `RequestHead.maxBytes` with a
/// request line `RequestLine` passes and at most `maxFields` fields of at most `maxFieldBytes`.
func checkRequestHead(_ bytes: [UInt8], split: Int) {
    let what = String(decoding: bytes.prefix(80), as: UTF8.self).debugDescription
    var whole = RequestHead()
    let verdict = whole.read(bytes)
    var pieces = RequestHead()
    let cut = bytes.isEmpty ? 0 : split * bytes.count / 256
    var inTwo = pieces.read(bytes[..<cut])
    if inTwo == .incomplete { inTwo = pieces.read(bytes) }
    require(inTwo == verdict, "\(what): \(verdict) at once, \(inTwo) in two pieces")
    switch verdict {
    case .incomplete:
        require(bytes.count < RequestHead.maxBytes, "\(what): waited for past \(bytes.count) bytes")
    case .refuse(let response):
        require([400, 405, 431].contains(response.status) && !response.body.isEmpty, "\(what): refused with \(response.status)")
    case .pass:
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            var line = bytes[lineStart..<index]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            lineStart = index + 1
            if line.isEmpty && !lines.isEmpty { break }
            lines.append(line)
        }
        require(lineStart <= RequestHead.maxBytes, "\(what): passed a head of \(lineStart) bytes")
        require(RequestLine.check(Array(bytes[..<(lines.first?.endIndex ?? 0)]) + [10]) == .pass, "\(what): passed a bad line")
        require(lines.count - 1 <= RequestHead.maxFields, "\(what): passed \(lines.count - 1) fields")
        require(lines.dropFirst().allSatisfy { $0.count <= RequestHead.maxFieldBytes }, "\(what): passed a long field")
    }
}

func checkLobbyQuery(_ query: String?) {
    switch LobbyQuery.parse(query, games: .standard) {
    case .success(let parsed):
        require((1...Lobby.maxLimit).contains(parsed.limit), "\(query ?? "nil"): limit \(parsed.limit)")
        require(parsed.status.map(LobbyQuery.statuses(of: .standard).contains) ?? true, "\(query ?? "nil"): status \(parsed.status ?? "")")
    case .failure(let refusal):
        require(!refusal.why.isEmpty, "\(query ?? "nil"): refused with no reason")
    }
}

/// Feeds one request to the hub, and the storage answers it asks for; exactly one response must come.
func answer(path: String, query: String?, storage works: Bool) {
    let hub = world.hub
    world.nextRequest += 1
    let request = world.nextRequest
    let what = "\(path.debugDescription) query \(query?.debugDescription ?? "nil")"
    var pending = hub.handle(.http(request, path: path, query: query), at: world.now)
    var responses: [HTTPResponse] = []
    while !pending.isEmpty {
        let action = pending.removeFirst()
        switch action {
        case .respond(let id, let response):
            require(id == request, "\(what): answered request \(id), not \(request)")
            responses.append(response)
        case .read(.load(let game)):
            pending += hub.handle(.read(.loaded(game: game, works ? .notFound : .failed("fuzz"))), at: world.now)
        case .read(.listing(let token, _)):
            pending += hub.handle(.read(.listing(token: token, games: works ? [] : nil)), at: world.now)
        case .log, .countError:
            break
        default:
            require(false, "\(what): unexpected action \(action)")
        }
    }
    require(responses.count == 1, "\(what): \(responses.count) responses")
    guard let response = responses.first else { return }
    require([200, 400, 404, 503].contains(response.status), "\(what): status \(response.status)")
    if response.status == 200 {
        require(response.contentType == "application/json", "\(what): 200 as \(response.contentType)")
        do {
            let body = try JSONText.parse(response.body)
            if path.hasPrefix("/api/games/"), path != "/api/games/" {
                require(body["game"]?.stringValue.map { path == "/api/games/" + $0 } ?? false, "\(what): answered \(body.encoded)")
            } else {
                require(body.arrayValue != nil, "\(what): the lobby is \(body.encoded)")
            }
        } catch {
            require(false, "\(what): a 200 body that is not JSON: \(error)")
        }
    } else {
        require(response.contentType == "text/plain", "\(what): \(response.status) as \(response.contentType)")
    }
}
