// CPU time to check one JSON Web Token (PROTOCOL section 19) through the server's own
// `TokenVerifier.verify(_:now:)`, for each kind of key the server takes, and for a refused
// token (a bad signature) of each kind.
//
//     swift build -c release --product auth-bench && .build/release/auth-bench [--rounds R] [--scale X]
//
// Tokens are signed here with swift-crypto's private keys (HS256: a 32-byte secret; RS256: a
// 2048-bit RSA key, PKCS #1 v1.5; ES256: a P-256 key, r || s), as an operator's site would sign
// them; each verifier holds the one public key (or secret) of its kind, as a server started with
// `--auth-hs256 FILE` or `--auth-public-key FILE` does. A header with `kid`, claims `sub`, `name`,
// `iat`, `exp`: the shape the page and the end-to-end tests send.
//
// Each case verifies the same token many times in a loop; the figure is µs of this process's
// CPU time (CLOCK_PROCESS_CPUTIME_ID) per verification, so a busy machine inflates wall time,
// not the figure. The cases are interleaved, one loop of each per round, and the rounds give a
// median and a range. It also prints the machine's other CPU load over the run (/proc/stat busy
// time minus this process's), the noise to quote with the figures. It prints figures; it is not
// a pass/fail test.
import Crypto
import _CryptoExtras
import Foundation
import Realtime
#if canImport(Glibc)
import Glibc
#endif

// ---- options ----
var rounds = 9
var scale = 1.0
do {
    var args = CommandLine.arguments.dropFirst()
    while let a = args.popFirst() {
        switch a {
        case "--rounds": rounds = args.popFirst().flatMap(Int.init) ?? rounds
        case "--scale": scale = args.popFirst().flatMap(Double.init) ?? scale
        default:
            print("usage: auth-bench [--rounds R] [--scale X]   (X scales the verifications per loop)")
            exit(2)
        }
    }
    guard rounds >= 1, scale > 0 else { print("--rounds must be >= 1, --scale > 0"); exit(2) }
}

// ---- clocks ----
func processCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func wallSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// The whole machine's busy time (all cores, all but idle and iowait), seconds.
func machineBusySeconds() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
          let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return 0 }
    let v = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard v.count >= 8 else { return 0 }
    let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz
}

// ---- tokens ----
func base64url(_ bytes: some Sequence<UInt8>) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

let now = Date().timeIntervalSince1970
let claims = #"{"sub":"user-4711","name":"Ada","iat":\#(Int(now)),"exp":\#(Int(now) + 3600)}"#

/// header.claims.signature, the signature made by `sign` over the first two parts; `corrupt`
/// flips one bit of the signature (a token whose signature does not match).
func token(alg: String, kid: String, corrupt: Bool = false, sign: ([UInt8]) throws -> [UInt8]) rethrows -> String {
    let header = #"{"alg":"\#(alg)","typ":"JWT","kid":"\#(kid)"}"#
    let input = base64url(Array(header.utf8)) + "." + base64url(Array(claims.utf8))
    var signature = try sign(Array(input.utf8))
    if corrupt { signature[signature.count / 2] ^= 0x01 }
    return input + "." + base64url(signature)
}

// HS256
let secretBytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
let secret = SymmetricKey(data: secretBytes)
let hsSign: ([UInt8]) -> [UInt8] = { Array(HMAC<SHA256>.authenticationCode(for: $0, using: secret)) }
let hsVerifier = TokenVerifier(keys: [try AuthKey.hs256(id: "hs", secret: secretBytes)])

// RS256, 2048 bits
let rsaKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
let rsSign: ([UInt8]) throws -> [UInt8] = {
    Array(try rsaKey.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation)
}
let rsVerifier = TokenVerifier(keys: [try AuthKey.publicKey(id: "rs", pem: rsaKey.publicKey.pemRepresentation)])

// ES256, P-256
let ecKey = P256.Signing.PrivateKey()
let esSign: ([UInt8]) throws -> [UInt8] = { Array(try ecKey.signature(for: $0).rawRepresentation) }
let esVerifier = TokenVerifier(keys: [try AuthKey.publicKey(id: "es", pem: ecKey.publicKey.pemRepresentation)])

struct Case {
    var name: String
    var verifier: TokenVerifier
    var token: String
    var good: Bool
    var loops: Int
}

let cases: [Case] = [
    Case(name: "HS256, valid", verifier: hsVerifier, token: token(alg: "HS256", kid: "hs", sign: hsSign), good: true, loops: 40_000),
    Case(name: "HS256, bad signature", verifier: hsVerifier, token: token(alg: "HS256", kid: "hs", corrupt: true, sign: hsSign),
         good: false, loops: 40_000),
    Case(name: "RS256 (2048), valid", verifier: rsVerifier, token: try token(alg: "RS256", kid: "rs", sign: rsSign), good: true,
         loops: 8_000),
    Case(name: "RS256 (2048), bad signature", verifier: rsVerifier,
         token: try token(alg: "RS256", kid: "rs", corrupt: true, sign: rsSign), good: false, loops: 8_000),
    Case(name: "ES256 (P-256), valid", verifier: esVerifier, token: try token(alg: "ES256", kid: "es", sign: esSign), good: true,
         loops: 3_000),
    Case(name: "ES256 (P-256), bad signature", verifier: esVerifier,
         token: try token(alg: "ES256", kid: "es", corrupt: true, sign: esSign), good: false, loops: 3_000),
    // No cryptography at all: the token is split, decoded and parsed, its kid names no key.
    Case(name: "unknown kid (parsing only)", verifier: hsVerifier, token: token(alg: "HS256", kid: "other", sign: hsSign),
         good: false, loops: 40_000),
]

// Every case answers as it should before anything is timed.
for c in cases {
    switch c.verifier.verify(c.token, now: now) {
    case .success(let user):
        guard c.good, user.id == "user-4711", user.name == "Ada" else { fatalError("\(c.name): accepted \(user)") }
    case .failure(let refusal):
        let expected = c.name.hasPrefix("unknown kid") ? "unknown key id" : "bad signature"
        guard !c.good, refusal.reason == expected else { fatalError("\(c.name): refused: \(refusal)") }
    }
}

// ---- the loops ----
/// µs of process CPU per verification and µs of wall time over one loop of `n`, and how many
/// were accepted (used, so the loop is not optimised away).
func loop(_ c: Case, _ n: Int, now: Double) -> (cpu: Double, wall: Double, accepted: Int) {
    var accepted = 0
    let w0 = wallSeconds(), c0 = processCPUSeconds()
    for _ in 0..<n {
        if case .success = c.verifier.verify(c.token, now: now) { accepted &+= 1 }
    }
    let c1 = processCPUSeconds(), w1 = wallSeconds()
    return ((c1 - c0) * 1e6 / Double(n), (w1 - w0) * 1e6 / Double(n), accepted)
}

var accepted = 0
for c in cases { accepted += loop(c, max(1, c.loops / 20), now: now).accepted }   // warm up

var cpu = [[Double]](repeating: [], count: cases.count)
var wall = [[Double]](repeating: [], count: cases.count)
let busy0 = machineBusySeconds(), self0 = processCPUSeconds(), wall0 = wallSeconds()
for _ in 0..<rounds {
    for (i, c) in cases.enumerated() {
        let r = loop(c, max(1, Int(Double(c.loops) * scale)), now: now)
        accepted += r.accepted
        cpu[i].append(r.cpu)
        wall[i].append(r.wall)
    }
}
let busy1 = machineBusySeconds(), self1 = processCPUSeconds(), wall1 = wallSeconds()

func median(_ v: [Double]) -> Double {
    let s = v.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func f(_ x: Double) -> String { x < 10 ? String(format: "%.2f", x) : String(format: "%.1f", x) }

let tokenLengths = cases.map(\.token.utf8.count)
print("auth-bench: \(rounds) rounds, cases interleaved; token lengths \(Set(tokenLengths).sorted()) bytes")
print("")
print("| token | verifications a loop | µs CPU per verification: median (min-max) | µs wall: median | verifications per CPU s |")
print("|---|---:|---|---:|---:|")
for (i, c) in cases.enumerated() {
    let m = median(cpu[i])
    print("| \(c.name) | \(max(1, Int(Double(c.loops) * scale))) | **\(f(m))** (\(f(cpu[i].min()!))-\(f(cpu[i].max()!))) "
          + "| \(f(median(wall[i]))) | \(Int((1e6 / m).rounded())) |")
}
let span = wall1 - wall0
let own = self1 - self0
let other = max(0, (busy1 - busy0) - own)
print("")
print(String(format: "run: %.1f s wall, %.1f s CPU of this process (%.0f%% of a core); other CPU on the machine: %.0f%% (of %d00%%)",
             span, own, 100 * own / span, 100 * other / span, ProcessInfo.processInfo.activeProcessorCount))
if accepted == 0 { print("(nothing accepted?)") }
