import Crypto
import _CryptoExtras
import Foundation
import SwiftASN1

/// A key the server checks tokens with, and the one algorithm it verifies.
public struct AuthKey: Sendable {
    public enum Algorithm: String, Sendable {
        case hs256 = "HS256"
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    /// The key's id: a token's `kid` names it. For a key file, its name without directory or extension.
    public let id: String
    public let algorithm: Algorithm
    private let material: Material

    private enum Material: @unchecked Sendable {
        // swift-crypto's key types are immutable values; RSA's is not marked Sendable in 3.x.
        case secret(SymmetricKey)
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
    }

    /// An HS256 secret: at least 32 bytes (RFC 7518, 3.2: no shorter than the hash).
    public static func hs256(id: String, secret: [UInt8]) throws(AuthKeyError) -> AuthKey {
        guard secret.count >= 32 else {
            throw AuthKeyError("the HS256 secret \(id) has \(secret.count) bytes; at least 32 are needed")
        }
        // A public key given as the shared secret would let anyone who has it sign tokens.
        guard !secret.starts(with: Array("-----BEGIN".utf8)) else {
            throw AuthKeyError("\(id) is a PEM file: give a public key to --auth-public-key, not --auth-hs256")
        }
        return AuthKey(id: id, algorithm: .hs256, material: .secret(SymmetricKey(data: secret)))
    }

    /// A PEM public key (SubjectPublicKeyInfo): P-256 for ES256, RSA of 2048 bits or more for RS256.
    public static func publicKey(id: String, pem: String) throws(AuthKeyError) -> AuthKey {
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            return AuthKey(id: id, algorithm: .es256, material: .p256(key))
        }
        do {
            let numbers = try RSAPublicKeyNumbers(pem: pem)
            let key = try _RSA.Signing.PublicKey(n: numbers.modulus, e: numbers.exponent)
            guard key.keySizeInBits >= 2048 else {
                throw AuthKeyError("an RSA key of \(key.keySizeInBits) bits: at least 2048 are needed")
            }
            return AuthKey(id: id, algorithm: .rs256, material: .rsa(key))
        } catch {
            throw AuthKeyError("\(id) is neither a P-256 nor an RSA (2048 bits or more) public key in PEM: \(error)")
        }
    }

    /// Reads a key file given to `--auth-hs256` (`secret`) or `--auth-public-key`.
    public static func load(file path: String, secret: Bool) throws(AuthKeyError) -> AuthKey {
        guard let data = FileManager.default.contents(atPath: path) else { throw AuthKeyError("cannot read key file \(path)") }
        let id = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        if secret {
            var bytes = Array(data)
            while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 { bytes.removeLast() }
            return try hs256(id: id, secret: bytes)
        }
        return try publicKey(id: id, pem: String(decoding: data, as: UTF8.self))
    }

    func isValidSignature(_ signature: [UInt8], for signed: [UInt8]) -> Bool {
        switch material {
        case .secret(let key):
            return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: key)
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signed),
                                        padding: .insecurePKCS1v1_5)
        case .p256(let key):
            // JWS carries r || s (64 bytes), not DER (RFC 7518, 3.4).
            guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                return false
            }
            return key.isValidSignature(ecdsa, for: SHA256.hash(data: signed))
        }
    }
}

public struct AuthKeyError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// An RSA public key's modulus and exponent, read from PEM by SwiftASN1: a `PUBLIC KEY`
/// (SubjectPublicKeyInfo, rsaEncryption) or an `RSA PUBLIC KEY` (PKCS #1). swift-crypto 3.12's
/// own parser of RSA DER frees its key twice when the bytes do not parse (found by
/// AddressSanitizer with a malformed key file), so only numbers reach it.
struct RSAPublicKeyNumbers {
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]
    var modulus: [UInt8]
    var exponent: [UInt8]

    init(pem: String) throws {
        let document = try PEMDocument(pemString: pem)
        switch document.discriminator {
        case "PUBLIC KEY":
            let bits = try DER.sequence(try DER.parse(document.derBytes), identifier: .sequence) { nodes in
                guard let algorithm = nodes.next() else { throw AuthKeyError("no algorithm") }
                let oid = try DER.sequence(algorithm, identifier: .sequence) { inner in
                    let oid = try ASN1ObjectIdentifier(derEncoded: &inner)
                    _ = inner.next()  // its parameters: NULL
                    return oid
                }
                guard oid == Self.rsaEncryption else { throw AuthKeyError("not an RSA key (\(oid))") }
                return try ASN1BitString(derEncoded: &nodes)
            }
            try self.init(pkcs1: Array(bits.bytes))
        case "RSA PUBLIC KEY":
            try self.init(pkcs1: document.derBytes)
        default:
            throw AuthKeyError("a PEM \(document.discriminator), not a public key")
        }
    }

    private init(pkcs1 der: [UInt8]) throws {
        (modulus, exponent) = try DER.sequence(try DER.parse(der), identifier: .sequence) { nodes in
            (Array(try ArraySlice<UInt8>(derEncoded: &nodes)), Array(try ArraySlice<UInt8>(derEncoded: &nodes)))
        }
    }
}
