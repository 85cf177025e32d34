import Crypto
import Foundation

/// Game ids: eight characters of [a-z0-9] (2.8 trillion of them), short enough to read aloud.
/// Storage refuses a new game whose id is taken, so a collision costs a retried create, never a
/// merged game; at a million stored games one create in two million would meet one.
enum GameIDs {
    static let length = 8
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// `prefix` (a cluster node's code, when ids name their owner) and random characters to `length`.
    static func make(prefix: String = "", using random: inout some RandomNumberGenerator) -> String {
        prefix + String(decoding: (0..<(length - prefix.utf8.count)).map { _ in alphabet.randomElement(using: &random)! },
                        as: UTF8.self)
    }

    /// Whether `id` could name a stored game (anything else is `not-found` without a look at storage).
    static func isPlausible(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy(isIDCharacter)
    }

    static func isIDCharacter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

/// Tokens and token hashes.
enum Secrets {

    /// 128 random bits, base64url without padding. The server's generator is the system's secure source.
    static func token(using random: inout some RandomNumberGenerator) -> String {
        var bytes = [UInt8]()
        for _ in 0..<2 {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func matches(_ token: String, hash expected: String) -> Bool {
        let actual = Array(hash(token).utf8)
        let wanted = Array(expected.utf8)
        guard actual.count == wanted.count else { return false }
        return zip(actual, wanted).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The hub's source of randomness as a generator Swift's APIs take.
struct HubRandom: RandomNumberGenerator {
    let source: @Sendable () -> UInt64
    init(next: @escaping @Sendable () -> UInt64) { source = next }
    mutating func next() -> UInt64 { source() }
}
