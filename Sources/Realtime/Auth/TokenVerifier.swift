import Core
import Crypto
import _CryptoExtras
import Foundation

/// Who a verified token says a connection is (PROTOCOL section 19): the operator's user id,
/// the name others see, and when the token stops counting. Nothing else of the token is kept.
public struct SignedUser: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Unix seconds: the token's `exp`. The connection counts as signed out from `expires` + leeway.
    public var expires: Double

    public init(id: String, name: String, expires: Double) {
        self.id = id
        self.name = name
        self.expires = expires
    }

    /// Whether the identity still counts at `now` (Unix seconds).
    public func isValid(at now: Double) -> Bool { now < expires + TokenVerifier.leeway }
}

/// Why a token was refused: the words after "bad token: " in the `forbidden` answer.
public struct TokenRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "bad token: " + reason }
}

/// Checks JSON Web Tokens signed by the operator's site with the keys the server was given.
/// The signature algorithm is always the key's: a token's `alg` can only fail to match it, never
/// choose it, so `none` and HMAC keyed with a public key's bytes find no key. The cryptography
/// is swift-crypto's (BoringSSL); this type only splits the token and reads its claims.
public struct TokenVerifier: Sendable {
    /// Clock skew allowed on `exp` and `nbf`, seconds.
    public static let leeway = 30.0
    /// Longer tokens are refused before any decoding (a real one is a few hundred bytes).
    public static let maxLength = 8192
    static let maxSubjectBytes = 128
    static let maxNameCharacters = 40

    public let keys: [AuthKey]
    public let issuer: String?
    public let audience: String?

    public init(keys: [AuthKey], issuer: String? = nil, audience: String? = nil) {
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
    }

    /// The user a token names, if it is signed by one of the keys and valid at `now` (Unix seconds).
    public func verify(_ token: String, now: Double) -> Result<SignedUser, TokenRefusal> {
        do throws(TokenRefusal) {
            return .success(try check(Array(token.utf8), now: now))
        } catch {
            return .failure(error)
        }
    }

    private func check(_ token: [UInt8], now: Double) throws(TokenRefusal) -> SignedUser {
        guard token.count <= Self.maxLength else { throw TokenRefusal("too long") }
        let parts = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSONText.parse(headerBytes), case .object = header,
              let claims = try? JSONText.parse(claimBytes), case .object = claims
        else { throw TokenRefusal("malformed") }
        guard let algorithm = header["alg"]?.stringValue else { throw TokenRefusal("malformed") }
        // Extensions this verifier does not know must not be ignored (RFC 7515, 4.1.11).
        guard header["crit"] == nil else { throw TokenRefusal("unsupported crit header") }
        let candidates: [AuthKey]
        if let kid = header["kid"] {
            guard let name = kid.stringValue, let key = keys.first(where: { $0.id == name }) else {
                throw TokenRefusal("unknown key id")
            }
            guard key.algorithm.rawValue == algorithm else { throw TokenRefusal("no key for algorithm \(algorithm.prefix(16))") }
            candidates = [key]
        } else {
            candidates = keys.filter { $0.algorithm.rawValue == algorithm }
            guard !candidates.isEmpty else { throw TokenRefusal("no key for algorithm \(algorithm.prefix(16))") }
        }
        let signed = Array(token[..<(parts[0].count + 1 + parts[1].count)])
        guard candidates.contains(where: { $0.isValidSignature(signature, for: signed) }) else {
            throw TokenRefusal("bad signature")
        }
        return try user(from: claims, now: now)
    }

    /// The claims, checked once the signature is known good.
    private func user(from claims: JSON, now: Double) throws(TokenRefusal) -> SignedUser {
        guard let exp = claims["exp"] else { throw TokenRefusal("no exp") }
        guard let expires = exp.doubleValue else { throw TokenRefusal("malformed") }
        guard now < expires + Self.leeway else { throw TokenRefusal("expired") }
        if let nbf = claims["nbf"] {
            guard let notBefore = nbf.doubleValue else { throw TokenRefusal("malformed") }
            guard now + Self.leeway >= notBefore else { throw TokenRefusal("not yet valid") }
        }
        if let issuer, claims["iss"]?.stringValue != issuer { throw TokenRefusal("wrong issuer") }
        if let audience {
            let named: Bool
            switch claims["aud"] {
            case .string(let one)?: named = one == audience
            case .array(let many)?: named = many.contains(.string(audience))
            default: named = false
            }
            guard named else { throw TokenRefusal("wrong audience") }
        }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else { throw TokenRefusal("no sub") }
        guard sub.utf8.count <= Self.maxSubjectBytes, !sub.unicodeScalars.contains(where: Self.isControl) else {
            throw TokenRefusal("bad sub")
        }
        let name: String
        switch claims["name"] {
        case nil, .null?:
            name = String(sub.prefix(Self.maxNameCharacters))
        case .string(let given)?:
            guard (1...Self.maxNameCharacters).contains(given.count),
                  !given.unicodeScalars.contains(where: Self.isControl) else { throw TokenRefusal("bad name") }
            name = given
        default:
            throw TokenRefusal("bad name")
        }
        return SignedUser(id: sub, name: name, expires: expires)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
    }
}

/// base64url without padding (RFC 7515, section 2); padding is tolerated, nothing else is.
enum Base64URL {
    static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var standard = [UInt8]()
        standard.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            default: standard.append(byte)
            }
        }
        while standard.last == UInt8(ascii: "=") { standard.removeLast() }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(standard)).map { Array($0) }
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension SignedUser {
    /// The field a cluster node sets on each message it forwards to a game's owner: who the
    /// connection is signed in as, checked by the forwarding node. It replaces whatever a client
    /// put there, and the owner reads it only from other nodes' requests.
    static let forwardedField = "signedIn"

    var forwarded: JSON {
        .object([("user", .string(id)), ("name", .string(name)), ("exp", .double(expires))])
    }

    /// The user of a forwarded message, if the node that forwarded it had one.
    init?(forwarded message: JSON) {
        guard let field = message[Self.forwardedField], let id = field["user"]?.stringValue,
              let name = field["name"]?.stringValue, let expires = field["exp"]?.doubleValue else { return nil }
        self.init(id: id, name: name, expires: expires)
    }
}
