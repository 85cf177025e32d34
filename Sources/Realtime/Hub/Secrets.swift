import Crypto
import Foundation

/// Game ids, tokens and token hashes.
enum Secrets {
    private static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// Six characters of [a-z0-9]: short enough to read aloud, 2 billion of them.
    static func gameID(using random: inout some RandomNumberGenerator) -> String {
        String(decoding: (0..<6).map { _ in idAlphabet.randomElement(using: &random)! }, as: UTF8.self)
    }

    /// Game ids are made of these; anything else cannot name a stored game.
    static func isIDCharacter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

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
