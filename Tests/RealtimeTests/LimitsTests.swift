import Testing
@testable import Realtime

/// The limits of PROTOCOL section 14 as plain values, without sockets: client addresses,
/// trusted proxies and X-Forwarded-For, origins, connections and creations per address,
/// control-frame floods, and the first request head of a connection (its line, then its header fields).
@Suite struct ClientAddressTests {
    private func address(_ text: String) -> ClientAddress {
        guard let parsed = ClientAddress(text) else {
            Issue.record("\(text) should parse")
            return .unknown
        }
        return parsed
    }

    @Test func ipv4IsItsMappedIPv6Form() {
        #expect(address("192.0.2.1") == address("::ffff:192.0.2.1"))
        #expect(address("192.0.2.1") == address("::FFFF:c000:201"))
        #expect(address("192.0.2.1").isIPv4)
        #expect(address("192.0.2.1") == ClientAddress(ipv4: 0xC000_0201))
        #expect(address("192.0.2.1").description == "192.0.2.1")
        #expect(address("::ffff:10.0.0.7").description == "10.0.0.7")
    }

    @Test func ipv6TextReadsAndPrintsInItsShortForm() {
        let cases: [(String, String)] = [
            ("2001:db8::1", "2001:db8::1"),
            ("2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
            ("::1", "::1"),
            ("::", "::"),
            ("fe80::", "fe80::"),
            ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
            ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
            ("1::8", "1::8"),
            ("[2001:db8::1]", "2001:db8::1"),
            ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
        ]
        for (text, printed) in cases {
            #expect(address(text).description == printed, "\(text)")
            #expect(!address(text).isIPv4, "\(text)")
        }
    }

    @Test func anythingElseIsNotAnAddress() {
        for text in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", "1..3.4", "a.b.c.d", "1.2.3.4 ",
                     ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "g::1", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:",
                     "fe80::1%eth0", "1.2.3.4:80", "[::1]:80", "[1.2.3.4]", "::ffff:1.2.3", "unknown", "1:2:3:4:5:6:7::8"] {
            #expect(ClientAddress(text) == nil, "\(text) should not parse")
        }
    }

    @Test func limitsCountAnIPv6ClientByItsSlash64() {
        #expect(address("2001:db8:1:2::1").limitKey == address("2001:db8:1:2:ffff::9").limitKey)
        #expect(address("2001:db8:1:2::1").limitKey != address("2001:db8:1:3::1").limitKey)
        #expect(address("10.0.0.1").limitKey == address("10.0.0.1"))
        #expect(address("10.0.0.1").limitKey != address("10.0.0.2").limitKey)
    }

    @Test func rangesHoldTheirNetworkOnly() throws {
        let ten = try #require(AddressRange("10.0.0.0/8"))
        #expect(ten.contains(address("10.200.3.4")))
        #expect(!ten.contains(address("11.0.0.1")))
        #expect(!ten.contains(address("::a00:1")), "an IPv4 network holds no IPv6 address")
        let one = try #require(AddressRange("127.0.0.1"))
        #expect(one.contains(address("::ffff:127.0.0.1")) && !one.contains(address("127.0.0.2")))
        let v6 = try #require(AddressRange("2001:db8::/32"))
        #expect(v6.contains(address("2001:db8:ffff::1")) && !v6.contains(address("2001:db9::1")))
        #expect(v6.description == "2001:db8::/32" && one.description == "127.0.0.1")
        for bad in ["10.0.0.0/33", "10.0.0.0/", "::/129", "10.0.0.0/-1", "x/8", "10.0.0.0/8/8"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
    }
}

@Suite struct ForwardedForTests {
    private let peer = ClientAddress("127.0.0.1")!
    private let proxies = TrustedProxies([AddressRange("127.0.0.1")!, AddressRange("10.0.0.0/8")!])

    @Test func aPeerNobodyTrustsIsTheClientWhateverItSends() {
        let stranger = ClientAddress("198.51.100.7")!
        #expect(proxies.client(peer: stranger, forwardedFor: "203.0.113.9") == stranger)
        #expect(TrustedProxies().client(peer: peer, forwardedFor: "203.0.113.9") == peer)
    }

    @Test func behindTrustedProxiesTheRightMostUntrustedEntryIsTheClient() {
        #expect(proxies.client(peer: peer, forwardedFor: "203.0.113.9") == ClientAddress("203.0.113.9"))
        // The client forged the first entry; the trusted proxy appended what it saw.
        #expect(proxies.client(peer: peer, forwardedFor: "1.1.1.1, 203.0.113.9") == ClientAddress("203.0.113.9"))
        // A chain of trusted proxies (10/8) is walked through.
        #expect(proxies.client(peer: peer, forwardedFor: "1.1.1.1, 203.0.113.9, 10.1.2.3 ,10.9.9.9") == ClientAddress("203.0.113.9"))
        #expect(proxies.client(peer: peer, forwardedFor: "2001:db8::5") == ClientAddress("2001:db8::5"))
        // Ports, as some proxies write them.
        #expect(proxies.client(peer: peer, forwardedFor: "203.0.113.9:5123") == ClientAddress("203.0.113.9"))
        #expect(proxies.client(peer: peer, forwardedFor: "[2001:db8::5]:443") == ClientAddress("2001:db8::5"))
        // Every entry trusted: the left-most.
        #expect(proxies.client(peer: peer, forwardedFor: "10.0.0.5, 10.0.0.6") == ClientAddress("10.0.0.5"))
    }

    @Test func aMalformedOrMissingHeaderFromATrustedProxyCountsAsThePeer() {
        for header in [nil, "", "unknown", "203.0.113.9, garbage", "203.0.113.9,,10.0.0.1", "1.2.3.4:99999",
                       Array(repeating: "10.0.0.1", count: 40).joined(separator: ",")] as [String?] {
            #expect(proxies.client(peer: peer, forwardedFor: header) == peer, "\(header ?? "nil")")
        }
        // Only what lies right of the client is read: garbage left of it does not matter.
        #expect(proxies.client(peer: peer, forwardedFor: "garbage, 203.0.113.9") == ClientAddress("203.0.113.9"))
    }
}

@Suite struct OriginPolicyTests {
    @Test func noFlagAllowsEveryOrigin() {
        let policy = OriginPolicy()
        #expect(policy.allowsEveryOrigin)
        #expect(policy.allows(origin: "https://anything.example") && policy.allows(origin: nil))
    }

    @Test func listedOriginsAreComparedAsBrowsersSendThem() throws {
        let policy = try OriginPolicy(allowing: ["https://Example.com/", "http://localhost:8080", "https://game.example:443",
                                                 "http://[::1]:80"])
        #expect(policy.allowed == ["https://example.com", "http://localhost:8080", "https://game.example", "http://[::1]"])
        #expect(policy.allows(origin: "https://example.com"))
        #expect(policy.allows(origin: "https://game.example"))
        #expect(policy.allows(origin: "http://localhost:8080"))
        #expect(policy.allows(origin: nil), "no Origin: not a browser page")
        for other in ["http://example.com", "https://example.com:8443", "https://evil.example", "null",
                      "https://example.com.evil.example", "http://localhost:8081", ""] {
            #expect(!policy.allows(origin: other), "\(other)")
        }
        #expect(try OriginPolicy(allowing: ["null"]).allows(origin: "null"))
    }

    @Test func aFlagThatIsNotAnOriginIsRefused() {
        for bad in ["example.com", "https://", "https://example.com/game", "https://example.com?x", "https://user@example.com",
                    "https://example.com:99999", "https://example.com:", "1https://example.com", "https://[::1"] {
            #expect(throws: OriginPolicy.Invalid.self, "\(bad)") { try OriginPolicy(allowing: [bad]) }
        }
    }
}

@Suite struct UpgradeGateTests {
    private let local = ClientAddress("127.0.0.1")!

    private func gate(max: Int = 2, proxies: [String] = [], origins: [String] = []) throws -> UpgradeGate {
        var limits = ClientLimits()
        limits.maxConnectionsPerAddress = max
        limits.trustedProxies = TrustedProxies(proxies.compactMap(AddressRange.init))
        limits.origins = try OriginPolicy(allowing: origins)
        return UpgradeGate(limits: limits)
    }

    private func status(_ decision: UpgradeGate.Decision) -> UInt32? {
        if case .refuse(let response, _) = decision { return response.status }
        return nil
    }

    @Test func anAddressGetsItsLimitThenA429UntilOneCloses() throws {
        var gate = try gate()
        for _ in 0..<2 {
            #expect(gate.decide(UpgradeRequest(path: "/ws", peer: local), stopping: false) == .admit(local, user: nil))
            gate.opened(local)
        }
        let refused = gate.decide(UpgradeRequest(path: "/ws", peer: local), stopping: false)
        guard case .refuse(let response, let limit) = refused else {
            Issue.record("the third connection should be refused")
            return
        }
        #expect(response.status == 429 && limit == .connectionsPerAddress)
        #expect(String(decoding: response.body, as: UTF8.self).contains("127.0.0.1"))
        // Another address is not touched.
        let other = ClientAddress("127.0.0.2")!
        #expect(gate.decide(UpgradeRequest(path: "/ws", peer: other), stopping: false) == .admit(other, user: nil))
        gate.closed(local)
        #expect(gate.decide(UpgradeRequest(path: "/ws", peer: local), stopping: false) == .admit(local, user: nil))
        gate.closed(local)
        #expect(gate.connections.trackedAddresses == 0, "an address with no open connection takes no room")
    }

    @Test func behindATrustedProxyEachForwardedClientHasItsOwnCount() throws {
        var gate = try gate(max: 1, proxies: ["127.0.0.1"])
        let first = gate.decide(UpgradeRequest(path: "/ws", peer: local, forwardedFor: "203.0.113.1"), stopping: false)
        #expect(first == .admit(ClientAddress("203.0.113.1")!, user: nil))
        gate.opened(ClientAddress("203.0.113.1")!)
        #expect(status(gate.decide(UpgradeRequest(path: "/ws", peer: local, forwardedFor: "203.0.113.1"), stopping: false)) == 429)
        #expect(gate.decide(UpgradeRequest(path: "/ws", peer: local, forwardedFor: "203.0.113.2"), stopping: false)
                == .admit(ClientAddress("203.0.113.2")!, user: nil))
        // An IPv6 client counts with its /64, and is told so.
        let v6 = ClientAddress("2001:db8:0:7::1")!
        gate.opened(v6)
        guard case .refuse(let response, _) = gate.decide(UpgradeRequest(path: "/ws", peer: local, forwardedFor: "2001:db8:0:7::2"),
                                                          stopping: false) else {
            Issue.record("a second connection of the same /64 should be refused")
            return
        }
        #expect(String(decoding: response.body, as: UTF8.self)
                == "too many connections from 2001:db8:0:7::2 (counted with its /64): at most 1 at a time\n")
        // Without the proxy trusted, the header means nothing: the peer is the client.
        var plain = try self.gate(max: 1)
        plain.opened(local)
        #expect(status(plain.decide(UpgradeRequest(path: "/ws", peer: local, forwardedFor: "203.0.113.9"), stopping: false)) == 429)
    }

    @Test func theOriginIsCheckedBeforeTheCountAndTheWrongPathOrAStopIsRefusedToo() throws {
        var gate = try gate(max: 1, origins: ["https://game.example"])
        gate.opened(local)
        guard case .refuse(let response, let limit) =
                gate.decide(UpgradeRequest(path: "/ws", peer: local, origin: "https://evil.example"), stopping: false) else {
            Issue.record("a foreign origin should be refused")
            return
        }
        #expect(response.status == 403 && limit == .origin)
        #expect(status(gate.decide(UpgradeRequest(path: "/ws", peer: local, origin: "https://game.example"), stopping: false)) == 429)
        gate.closed(local)
        #expect(gate.decide(UpgradeRequest(path: "/ws", peer: local, origin: "https://game.example"), stopping: false) == .admit(local, user: nil))
        #expect(gate.decide(UpgradeRequest(path: "/ws", peer: local), stopping: false) == .admit(local, user: nil))
        #expect(status(gate.decide(UpgradeRequest(path: "/other", peer: local), stopping: false)) == 404)
        #expect(status(gate.decide(UpgradeRequest(path: nil, peer: local), stopping: false)) == 404)
        #expect(status(gate.decide(UpgradeRequest(path: "/ws", peer: local), stopping: true)) == 503)
    }

    @Test func aRefusalIsOneWholeHTTPResponseThatEndsTheConnection() {
        let bytes = HTTPResponse.text(429, "too many\n").closingBytes
        #expect(String(decoding: bytes, as: UTF8.self)
                == "HTTP/1.1 429 Too Many Requests\r\ncontent-type: text/plain\r\ncontent-length: 9\r\nconnection: close\r\n\r\ntoo many\n")
    }
}

@Suite struct CreateRateTests {
    private let home = ClientAddress("192.0.2.10")!

    @Test func aBurstOfTheRateThenOneEveryMinuteOverRate() {
        var rate = CreateRatePerAddress(perMinute: 30)
        for index in 0..<30 { #expect(rate.take(home, now: 1000 + Double(index) * 0.01) == .allowed, "creation \(index + 1)") }
        guard case .refused(let wait) = rate.take(home, now: 1000.3) else {
            Issue.record("the 31st creation within a minute should be refused")
            return
        }
        #expect(wait > 1.6 && wait <= 2, "one creation comes back every 2 s; \(wait)")
        #expect(rate.refusalMessage(retryAfter: wait) == "over 30 new games a minute from this address: try again in 2 s")
        #expect(rate.take(home, now: 1000.3 + wait + 0.001) == .allowed)
        #expect(rate.take(home, now: 1000.3 + wait + 0.002) != .allowed)
        // Another address has its own bucket; an IPv6 client shares its /64's.
        #expect(rate.take(ClientAddress("192.0.2.11")!, now: 1001) == .allowed)
        var v6 = CreateRatePerAddress(perMinute: 1)
        #expect(v6.take(ClientAddress("2001:db8::1")!, now: 0) == .allowed)
        #expect(v6.take(ClientAddress("2001:db8::2")!, now: 1) != .allowed)
        #expect(v6.take(ClientAddress("2001:db8:0:1::1")!, now: 1) == .allowed)
    }

    @Test func bucketsFullAgainAreDroppedSoMemoryFollowsRecentAddressesOnly() {
        var rate = CreateRatePerAddress(perMinute: 30)
        for index in 0..<1000 { _ = rate.take(ClientAddress(ipv4: 0x0A00_0000 + UInt32(index)), now: Double(index) * 0.001) }
        #expect(rate.trackedAddresses == 1000)
        // A minute later every one of them is full again: each new call drops a few of the stalest.
        for index in 0..<300 { _ = rate.take(home, now: 70 + Double(index)) }
        #expect(rate.trackedAddresses == 1, "only the address still in use keeps a bucket")
    }

    @Test func atTheCapTheStalestBucketMakesRoom() {
        var rate = CreateRatePerAddress(perMinute: 2, maxAddresses: 3)
        let a = ClientAddress("10.0.0.1")!, b = ClientAddress("10.0.0.2")!, c = ClientAddress("10.0.0.3")!
        for address in [a, b, c] {
            _ = rate.take(address, now: 0)
            _ = rate.take(address, now: 0)
        }
        #expect(rate.take(b, now: 1) != .allowed, "b used its two")
        #expect(rate.take(ClientAddress("10.0.0.4")!, now: 2) == .allowed)
        #expect(rate.trackedAddresses == 3)
        #expect(rate.take(a, now: 3) == .allowed, "a was the stalest: dropped, it starts full")
        #expect(rate.take(b, now: 3) != .allowed, "b was used later than c and keeps its empty bucket")
    }
}

@Suite struct ControlFloodTests {
    @Test func aFloodIsPausedSecondBySecondThenClosedAfterThreeSeconds() {
        var flood = ControlFloodGuard()
        #expect(flood.overLimit(now: 100) == .pause(until: 101))
        #expect(flood.overLimit(now: 101.1) == .pause(until: 102.1))
        #expect(flood.overLimit(now: 102.2) == .pause(until: 103.2))
        #expect(flood.overLimit(now: 103.0) == .close)
    }

    @Test func aPauseLongerThanTheQuietGapEndsTheFlood() {
        var flood = ControlFloodGuard()
        #expect(flood.overLimit(now: 100) == .pause(until: 101))
        #expect(flood.overLimit(now: 101.5) == .pause(until: 102.5))
        #expect(flood.overLimit(now: 104) == .pause(until: 105), "2.5 s without a frame over the limit: a new flood")
        #expect(flood.overLimit(now: 106) == .pause(until: 107))
        #expect(flood.overLimit(now: 107.5) == .close)
    }
}

@Suite struct RequestLineTests {
    private func check(_ line: String) -> RequestLine.Verdict { RequestLine.check(Array(line.utf8)) }

    private func refusal(_ line: String) -> String? {
        guard case .refuse(let response) = check(line) else { return nil }
        return "\(response.status) " + String(decoding: response.body, as: UTF8.self)
    }

    @Test func wellFormedLinesPass() {
        for line in ["GET /ws HTTP/1.1\r\n", "GET /ws?watch=k7f3q9&x=%41 HTTP/1.1\r\n", "HEAD /healthz HTTP/1.0\n",
                     "GET /api/games/abc%2Fdef HTTP/1.1\r\n", "POST /healthz HTTP/1.1\r\n", "GET /caf\u{e9} HTTP/1.1\r\n",
                     "GET /" + String(repeating: "a", count: 2047) + " HTTP/1.1\r\n",
                     "GET /x?" + String(repeating: "q", count: 5000) + " HTTP/1.1\r\n"] {
            #expect(check(line) == .pass, "\(line.prefix(40))")
        }
    }

    @Test func aLineNotInYetIsWaitedFor() {
        #expect(check("") == .incomplete)
        #expect(check("GET /api/ga") == .incomplete)
        #expect(check("GET /" + String(repeating: "a", count: 3000)) == .incomplete, "a long path may still be cut short by nothing")
    }

    @Test func badPathsAreA400SayingWhy() {
        #expect(refusal("GET /api/games/ab%00cd HTTP/1.1\r\n") == "400 bad request: NUL in the URL\n")
        #expect(refusal("GET /ws?x=%00 HTTP/1.1\r\n") == "400 bad request: NUL in the URL\n")
        #expect(refusal("GET /api/games/%zz HTTP/1.1\r\n") == "400 bad request: bad percent-encoding in the URL\n")
        #expect(refusal("GET /a%4 HTTP/1.1\r\n") == "400 bad request: bad percent-encoding in the URL\n")
        #expect(refusal("GET /a% HTTP/1.1\r\n") == "400 bad request: bad percent-encoding in the URL\n")
        #expect(refusal("GET /a%0a HTTP/1.1\r\n") == "400 bad request: control character in the URL\n")
        #expect(refusal("GET /a\u{1}b HTTP/1.1\r\n") == "400 bad request: control character in the URL\n")
        #expect(refusal("GET /" + String(repeating: "a", count: 2048) + " HTTP/1.1\r\n") == "400 bad request: path over 2048 bytes\n")
        #expect(refusal("GET /" + String(repeating: "%61", count: 2048) + " HTTP/1.1\r\n") == "400 bad request: path over 2048 bytes\n")
        #expect(refusal("GET /api/games/" + String(repeating: "a", count: 10_000)) == "400 bad request: path over 2048 bytes\n",
                "refused once over the line limit, without waiting for its end")
        #expect(refusal("GET /x?" + String(repeating: "q", count: 9000)) == "400 bad request: request line over 8192 bytes\n")
        #expect(refusal("GET api HTTP/1.1\r\n") == "400 bad request: the path must start with /\n")
        #expect(refusal("GET http://example.com/ HTTP/1.1\r\n") == "400 bad request: the path must start with /\n")
    }

    @Test func queryArgumentsAreCountedAsLwsSplitsThem() {
        let most = (1...RequestLine.maxQueryArguments).map { "a\($0)=1" }
        #expect(check("GET /ws?" + most.joined(separator: "&") + " HTTP/1.1\r\n") == .pass)
        #expect(check("GET /ws?" + most.joined(separator: ";") + " HTTP/1.1\r\n") == .pass)
        #expect(check("GET /ws?" + String(repeating: "%26", count: 100) + " HTTP/1.1\r\n") == .pass, "escaped: no split")
        #expect(check("GET /a&b&c&" + String(repeating: "&", count: 30) + " HTTP/1.1\r\n") == .pass, "in the path: no split")
        #expect(refusal("GET /ws?" + (most + ["x"]).joined(separator: "&") + " HTTP/1.1\r\n")
                == "400 bad request: over 24 query arguments\n")
        #expect(refusal("GET /ws?" + String(repeating: ";", count: 24) + " HTTP/1.1\r\n") == "400 bad request: over 24 query arguments\n")
    }

    @Test func linesThatAreNotHTTPAreRefused() {
        #expect(refusal("GARBAGE\r\n") == "400 bad request: not an HTTP/1.1 request line\n")
        #expect(refusal("GET /a b HTTP/1.1\r\n") == "400 bad request: not an HTTP/1.1 request line\n")
        #expect(refusal("GET / HTTP/2.0\r\n") == "400 bad request: not an HTTP/1.1 request line\n")
        #expect(refusal("GET /\r\n") == "400 bad request: not an HTTP/1.1 request line\n")
        #expect(refusal("BREW / HTTP/1.1\r\n") == "405 GET or HEAD only\n")
    }
}

@Suite struct RequestHeadTests {
    /// Reads `text` as it would come, in pieces of `piece` bytes, each call with everything so far.
    private func read(_ text: String, piece: Int = .max) -> RequestHead.Verdict {
        let bytes = Array(text.utf8)
        var head = RequestHead()
        var end = 0
        while true {
            end = min(bytes.count, end + max(1, min(piece, bytes.count)))
            let verdict = head.read(bytes[..<end])
            if verdict != .incomplete || end == bytes.count { return verdict }
        }
    }

    private func refusal(_ text: String, piece: Int = .max) -> String? {
        guard case .refuse(let response) = read(text, piece: piece) else { return nil }
        return "\(response.status) " + String(decoding: response.body, as: UTF8.self)
    }

    private func fields(_ count: Int, _ line: (Int) -> String = { "X-Field-\($0): v" }) -> String {
        (0..<count).map { line($0) + "\r\n" }.joined()
    }

    private let get = "GET /ws HTTP/1.1\r\nHost: example.com\r\n"

    @Test func aHeadWithinTheLimitsPasses() {
        let browser = get + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\nOrigin: https://example.com\r\nCookie: " + String(repeating: "c", count: 4000) + "\r\n\r\n"
        #expect(read(browser) == .pass)
        #expect(read(browser, piece: 7) == .pass, "the same head a few bytes at a time")
        #expect(read("GET / HTTP/1.0\r\n\r\n") == .pass)
        #expect(read("GET / HTTP/1.1\nHost: x\n\n") == .pass, "bare line feeds, as lws takes them")
        #expect(read(get + fields(RequestHead.maxFields - 1) + "\r\n") == .pass, "the most fields (Host is one)")
        #expect(read(get + "X-Long: " + String(repeating: "v", count: RequestHead.maxFieldBytes - 8) + "\r\n\r\n") == .pass)
        let body = get + "Content-Length: 5\r\n\r\nhello" + String(repeating: "x", count: 20_000)
        #expect(read(body) == .pass, "what follows the head is not read")
    }

    @Test func aHeadNotInYetIsWaitedFor() {
        #expect(read("") == .incomplete)
        #expect(read("GET /ws HTTP/1.1\r\n") == .incomplete)
        #expect(read(get + "Upgrade: webs") == .incomplete)
        #expect(read(get + "Upgrade: websocket\r\n\r") == .incomplete)
    }

    @Test func aHeadExactlyAtTheByteLimitPassesAndOneMoreIs431() {
        let line = "X-Pad: " + String(repeating: "p", count: 4000) + "\r\n"
        func head(size: Int) -> String {
            var text = get + line + line + line
            let rest = size - text.utf8.count - "X-Pad: \r\n\r\n".utf8.count
            text += "X-Pad: " + String(repeating: "q", count: rest) + "\r\n\r\n"
            #expect(text.utf8.count == size)
            return text
        }
        #expect(read(head(size: RequestHead.maxBytes)) == .pass)
        #expect(refusal(head(size: RequestHead.maxBytes + 1)) == "431 request header fields too large: headers over 16384 bytes\n")
        #expect(refusal(head(size: RequestHead.maxBytes + 1), piece: 1000) == "431 request header fields too large: headers over 16384 bytes\n")
    }

    @Test func headersTooLargeAre431SayingWhy() {
        let megabyte = get + fields(1000) { "X-Big-\($0): " + String(repeating: "v", count: 1000) }
        #expect(refusal(megabyte) == "431 request header fields too large: headers over 16384 bytes\n")
        #expect(refusal(String(megabyte.prefix(RequestHead.maxBytes)))
                == "431 request header fields too large: headers over 16384 bytes\n", "refused without waiting for its end")
        #expect(refusal(get + fields(5000) + "\r\n") == "431 request header fields too large: over 64 header fields\n")
        #expect(refusal(get + fields(RequestHead.maxFields) + "\r\n") == "431 request header fields too large: over 64 header fields\n")
        #expect(refusal(get + fields(5000), piece: 100) == "431 request header fields too large: over 64 header fields\n")
        let long = get + "X-Long: " + String(repeating: "v", count: 10_000) + "\r\n\r\n"
        #expect(refusal(long) == "431 request header fields too large: a header field over 8192 bytes\n")
        #expect(refusal(String(long.prefix(9000))) == "431 request header fields too large: a header field over 8192 bytes\n",
                "refused before its end")
        #expect(refusal(get + "X-Long: " + String(repeating: "v", count: RequestHead.maxFieldBytes - 7) + "\r\n\r\n")
                == "431 request header fields too large: a header field over 8192 bytes\n")
    }

    @Test func theRequestLineIsJudgedFirst() {
        #expect(refusal("GET /api/games/ab%00cd HTTP/1.1\r\n" + fields(5000)) == "400 bad request: NUL in the URL\n")
        #expect(refusal("GET /a%zz HTTP/1.1\r\n") == "400 bad request: bad percent-encoding in the URL\n", "before any header came")
        #expect(refusal("GET /x?" + String(repeating: "q", count: 9000)) == "400 bad request: request line over 8192 bytes\n")
        #expect(refusal("GET /x?" + String(repeating: "q", count: 9000), piece: 1000) == "400 bad request: request line over 8192 bytes\n")
        #expect(refusal("BREW / HTTP/1.1\r\n\r\n") == "405 GET or HEAD only\n")
    }

    @Test func lwsHasRoomForEveryHeadThatPasses() {
        // lws's worst case: fields of names it does not know, each kept with 8 bytes more than its line.
        #expect(RequestHead.lwsHeaderSpace >= RequestHead.maxBytes + 8 * RequestHead.maxFields)
        // Its table of 94 slots: the path, each query argument, the version, each field.
        #expect(2 + RequestLine.maxQueryArguments + RequestHead.maxFields <= 94)
        #expect(Listener.peekCapacity >= RequestHead.maxBytes)
    }
}
