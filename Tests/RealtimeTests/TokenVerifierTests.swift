import Core
import Crypto
import _CryptoExtras
import Foundation
import Testing
@testable import Realtime

/// Signs tokens as an operator's site would, with keys made here.
struct TokenMinter {
    static let secret = Array("a shared secret of thirty-two bytes or more, for HS256".utf8)
    static let now = 1_800_000_000.0
    let p256 = P256.Signing.PrivateKey()
    /// A fixed key, not one generated per run: swift-crypto 3.12's RSA key generation leaks 16
    /// bytes (the exponent's bignum), which LeakSanitizer reports in the test command.
    static let rsa = try! _RSA.Signing.PrivateKey(pemRepresentation: rsaPEM)
    static let rsaPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQC92a5H9iz+r+05
        v9LQjqyhvMGDD7Wlnouqb+2nb7O6wNGi3C/uyd00pYQtHbXMiekBA9zr748VGq2Y
        HYCDMNTnvD5sXyKt7bn6WncwOKOucx79Vc3Z0H9ARHqQ/TIs7H30I23hmaZcPpgE
        WcHHUUhZpEaEi4qo5E1/HxbJfxVP2lZWMngLmhIkvYQxFvexi2S8UYqZVLSEZbfK
        9FQbCEFMxvCECo12GW8N6Yaom1wk8oNMNanB76hkq/3eAAKF3tDiS8jVgVlIrVM5
        kAyID5UeMQWCiIFqzjAUBpVSPFmf6694eRZgCB4p5qaK+ArxMdM9doEDlzs1euP6
        9GJwrh4DAgMBAAECggEAU2H4GcMVoAbEukh13wPK7n5ov5d2wHcSAJmIV7HHzo5B
        hLYQl2Axt526n9YcsukfXULFFRryTOKau+S5POWFnQIgqJhgMuPmev6gup0lxsjp
        I3s8Hh5kxWVOL8AE+ZYk+8VTzXIejwUu3zpM0a3xiO2Ny0k+bU9Yeiy9ZWJbieYp
        C1M7xJrZdaeYENLV6Zzx0WTW8ErpGHrjlMuRtWBsl8BzKz19csVDiqkENsRym3+f
        ddrYZYVan9Mz4vMUHqKg8+Owgbo2DN5Fn2/10BxEeEki70NR6Mx22F9BBPn02O46
        SkJjp5dgoor3+clAUQxijnmFST9v432ciWqrOdhLgQKBgQDv+moCuZrtBIWY4O5a
        ePumFTbmzbPtlmM0kTc4RUDMtDZJPdHTLAoaaXXhySnzUN3kfhhy7hxe/01iEZ+n
        lGC3ujfxpV8T4HQuAL7BPgiE3uf2EDQFhJkAAIRHCPfxTvGVvh8nRlHTCrTgarc0
        +Aa7w8X5gEPbFnTjh5qKGRcZvwKBgQDKhoGr5O9d5krdk8wO84Uc3vgg+ZMsyYuV
        cWLU9euVHDhUWdpybMHc00yp2vRitcAjYZbBSIhK6kxca2hC4RFiPc7teyxymJE1
        Lhhl5h0UVV0GaCvGf+hZKIPuDYuc8S5L4oKCJrSnq/gwz0Xea3cw2ccfLnjcm9gJ
        x6vpYM7kvQKBgQCt/JU9konDjAK8W2AUUiDJQhpC7iKkf+M/KoWpk3Qutf2hzmNB
        Qm20xn9ECtASa6/kyJM7SG1jZqAZGQPywL36ltWWqjortBEnhTzH6AzPILl2ijrd
        QUyYVseQpOz2lDDNS0FU/UO3ycxn5JcdnTFskr0HbrpDrp1ilV8y/ovkCwKBgQCR
        wfKLg03fF8Jj7F4dmJgB6ltMaDLLNha2rI9D0+YEP/YuhyiX17xCsPRo/sOKU2KA
        VFkKrKgiurPQhCDamV9IhFFsS4z2wOUpEA7RL6dYHgPAe7Kdvyq7GFSzPJ5xiocW
        aGQjRbYZQsRyZIrVhCSZTPNpdqnXpHX8u+73HQxqRQKBgQCjBB8kjnHY/MfERCon
        t7yxVqSpC91/riYGSPZ8hMidsD7jXaBxDTr18jda8aaHdmhAjjFsER9PDBWiM99W
        WREYUNoJ5K4uV7IsHxUhfEYlmacvEOZzqpi30VU2gDDqEiRazkVxdSkDg/5cd5iY
        uY7qVoQ9AgM2TcHAeK5ime85mA==
        -----END PRIVATE KEY-----
        """

    var hmacKey: AuthKey { try! AuthKey.hs256(id: "shared", secret: Self.secret) }
    var ecKey: AuthKey { try! AuthKey.publicKey(id: "ec", pem: p256.publicKey.pemRepresentation) }
    var rsaKey: AuthKey { try! AuthKey.publicKey(id: "rsa", pem: Self.rsa.publicKey.pemRepresentation) }

    static func claims(sub: String? = "u1", name: String? = "Ada", exp: Double? = now + 600, extra: [(String, JSON)] = [])
        -> JSON {
        var pairs: [(key: String, value: JSON)] = []
        if let sub { pairs.append(("sub", .string(sub))) }
        if let name { pairs.append(("name", .string(name))) }
        if let exp { pairs.append(("exp", .double(exp))) }
        return .object(pairs + extra.map { (key: $0.0, value: $0.1) })
    }

    static func header(_ alg: String, kid: String? = nil) -> JSON {
        var pairs: [(key: String, value: JSON)] = [("alg", .string(alg)), ("typ", "JWT")]
        if let kid { pairs.append(("kid", .string(kid))) }
        return .object(pairs)
    }

    /// `header.claims` and a signature made by `sign` over it.
    static func token(_ header: JSON, _ claims: JSON, sign: ([UInt8]) -> [UInt8]) -> String {
        let signed = Base64URL.encode(Array(header.encoded.utf8)) + "." + Base64URL.encode(Array(claims.encoded.utf8))
        return signed + "." + Base64URL.encode(sign(Array(signed.utf8)))
    }

    static func hs256(_ claims: JSON = claims(), secret: [UInt8] = secret, kid: String? = nil, alg: String = "HS256") -> String {
        token(header(alg, kid: kid), claims) { Array(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: secret))) }
    }

    func es256(_ claims: JSON = claims(), kid: String? = nil) -> String {
        Self.token(Self.header("ES256", kid: kid), claims) { Array(try! p256.signature(for: $0).rawRepresentation) }
    }

    static func rs256(_ claims: JSON = claims(), kid: String? = nil) -> String {
        token(header("RS256", kid: kid), claims) {
            Array(try! rsa.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }
}

@Suite struct TokenVerifierTests {
    let mint = TokenMinter()
    let now = TokenMinter.now

    private func reason(_ verifier: TokenVerifier, _ token: String, at time: Double? = nil) -> String? {
        if case .failure(let refusal) = verifier.verify(token, now: time ?? now) { return refusal.reason }
        return nil
    }

    @Test func eachKindOfKeySignsAUserIn() throws {
        let verifier = TokenVerifier(keys: [mint.hmacKey, mint.ecKey, mint.rsaKey])
        for token in [TokenMinter.hs256(), mint.es256(), TokenMinter.rs256()] {
            let user = try verifier.verify(token, now: now).get()
            #expect(user == SignedUser(id: "u1", name: "Ada", expires: now + 600))
        }
        let unnamed = try verifier.verify(TokenMinter.hs256(TokenMinter.claims(name: nil)), now: now).get()
        #expect(unnamed.name == "u1", "the id is the name when the token gives none")
    }

    @Test func theAlgorithmIsTheKeysNeverTheTokens() {
        let rsaOnly = TokenVerifier(keys: [mint.rsaKey])
        // `none`, with an empty signature: no key has that algorithm.
        let none = TokenMinter.token(TokenMinter.header("none"), TokenMinter.claims()) { _ in [] }
        #expect(reason(rsaOnly, none) == "no key for algorithm none")
        // HMAC keyed with the public key's own bytes (the classic confusion): no HS256 key here.
        let pem = Array(TokenMinter.rsa.publicKey.pemRepresentation.utf8)
        #expect(reason(rsaOnly, TokenMinter.hs256(secret: pem)) == "no key for algorithm HS256")
        let der = Array(TokenMinter.rsa.publicKey.derRepresentation)
        #expect(reason(rsaOnly, TokenMinter.hs256(secret: der)) == "no key for algorithm HS256")
        // A token that names the RSA key but claims HS256 is refused, not checked as HMAC.
        #expect(reason(rsaOnly, TokenMinter.hs256(secret: pem, kid: "rsa")) == "no key for algorithm HS256")
        // An ES256 signature presented as RS256 by a key of the other kind.
        let both = TokenVerifier(keys: [mint.rsaKey, mint.ecKey])
        let swapped = TokenMinter.token(TokenMinter.header("RS256"), TokenMinter.claims()) {
            Array(try! mint.p256.signature(for: $0).rawRepresentation)
        }
        #expect(reason(both, swapped) == "bad signature")
    }

    @Test func aWrongSignatureOrAnotherSecretIsRefused() {
        let verifier = TokenVerifier(keys: [mint.hmacKey, mint.ecKey])
        #expect(reason(verifier, TokenMinter.hs256(secret: Array("another secret, also long enough for HS256".utf8)))
                == "bad signature")
        let other = TokenMinter()
        #expect(reason(verifier, other.es256()) == "bad signature", "a token of another P-256 key")
        var tampered = Array(TokenMinter.hs256().utf8)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(reason(verifier, String(decoding: tampered, as: UTF8.self)) != nil)
    }

    @Test func timeClaimsAreCheckedWithThirtySecondsOfLeeway() {
        let verifier = TokenVerifier(keys: [mint.hmacKey])
        #expect(reason(verifier, TokenMinter.hs256(TokenMinter.claims(exp: now - 31))) == "expired")
        #expect(reason(verifier, TokenMinter.hs256(TokenMinter.claims(exp: now - 29))) == nil, "inside the leeway")
        #expect(reason(verifier, TokenMinter.hs256(TokenMinter.claims(exp: nil))) == "no exp")
        #expect(reason(verifier, TokenMinter.hs256(TokenMinter.claims(extra: [("nbf", .double(now + 31))]))) == "not yet valid")
        #expect(reason(verifier, TokenMinter.hs256(TokenMinter.claims(extra: [("nbf", .double(now + 29))]))) == nil)
        #expect(reason(verifier, TokenMinter.hs256(TokenMinter.claims(exp: nil, extra: [("exp", "soon")]))) == "malformed")
        let user = SignedUser(id: "u", name: "u", expires: now)
        #expect(user.isValid(at: now + 29) && !user.isValid(at: now + 30), "a connection is signed out once exp and the leeway pass")
    }

    @Test func issuerAudienceSubjectAndNameAreChecked() {
        let strict = TokenVerifier(keys: [mint.hmacKey], issuer: "https://site.example", audience: "boardcast")
        let good = TokenMinter.claims(extra: [("iss", "https://site.example"), ("aud", "boardcast")])
        #expect(reason(strict, TokenMinter.hs256(good)) == nil)
        #expect(reason(strict, TokenMinter.hs256(TokenMinter.claims(extra: [("iss", "https://site.example"),
                                                                           ("aud", .array(["other", "boardcast"]))]))) == nil)
        #expect(reason(strict, TokenMinter.hs256(TokenMinter.claims(extra: [("iss", "https://evil.example"), ("aud", "boardcast")])))
                == "wrong issuer")
        #expect(reason(strict, TokenMinter.hs256(TokenMinter.claims(extra: [("iss", "https://site.example"), ("aud", "other")])))
                == "wrong audience")
        #expect(reason(strict, TokenMinter.hs256(TokenMinter.claims(extra: [("aud", "boardcast")]))) == "wrong issuer")
        let plain = TokenVerifier(keys: [mint.hmacKey])
        #expect(reason(plain, TokenMinter.hs256(TokenMinter.claims(sub: nil))) == "no sub")
        #expect(reason(plain, TokenMinter.hs256(TokenMinter.claims(sub: ""))) == "no sub")
        #expect(reason(plain, TokenMinter.hs256(TokenMinter.claims(sub: String(repeating: "x", count: 129)))) == "bad sub")
        #expect(reason(plain, TokenMinter.hs256(TokenMinter.claims(name: String(repeating: "é", count: 41)))) == "bad name")
        #expect(reason(plain, TokenMinter.hs256(TokenMinter.claims(name: String(repeating: "é", count: 40)))) == nil)
        #expect(reason(plain, TokenMinter.hs256(TokenMinter.claims(name: ""))) == "bad name")
        #expect(reason(plain, TokenMinter.hs256(TokenMinter.claims(name: "Ada\u{0007}"))) == "bad name")
    }

    @Test func garbageAndOverLongTokensAreRefusedUnread() {
        let verifier = TokenVerifier(keys: [mint.hmacKey])
        for garbage in ["", "abc", "a.b", "a.b.c.d", "!!.??.##", "e30.e30.", "W10.e30.AA", "e30.W10.AA", "bm90IGpzb24.e30.AA"] {
            #expect(reason(verifier, garbage) == "malformed", "\(garbage)")
        }
        let long = TokenMinter.hs256(TokenMinter.claims(extra: [("pad", .string(String(repeating: "x", count: 9000)))]))
        #expect(reason(verifier, long) == "too long")
        let crit = TokenMinter.token(.object([("alg", "HS256"), ("crit", .array(["exp"]))]), TokenMinter.claims()) {
            Array(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: TokenMinter.secret)))
        }
        #expect(reason(verifier, crit) == "unsupported crit header")
    }

    @Test func aKidChoosesTheKeyForRotation() {
        let old = TokenMinter()
        let oldKey = try! AuthKey.publicKey(id: "2026-10", pem: old.p256.publicKey.pemRepresentation)
        let newKey = try! AuthKey.publicKey(id: "2026-11", pem: mint.p256.publicKey.pemRepresentation)
        let verifier = TokenVerifier(keys: [oldKey, newKey])
        #expect(reason(verifier, old.es256(kid: "2026-10")) == nil)
        #expect(reason(verifier, mint.es256(kid: "2026-11")) == nil)
        #expect(reason(verifier, mint.es256()) == nil, "without a kid every key of its algorithm is tried")
        #expect(reason(verifier, old.es256(kid: "2026-11")) == "bad signature", "the named key only")
        #expect(reason(verifier, mint.es256(kid: "2026-09")) == "unknown key id")
    }

    @Test func keysAreCheckedWhenLoaded() {
        #expect(throws: AuthKeyError.self) { try AuthKey.hs256(id: "short", secret: Array("too short".utf8)) }
        #expect(throws: AuthKeyError.self) { try AuthKey.publicKey(id: "junk", pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----") }
        let pem = Array(TokenMinter.rsa.publicKey.pemRepresentation.utf8)
        #expect(throws: AuthKeyError.self, "a public key given as a shared secret") { try AuthKey.hs256(id: "mixup", secret: pem) }
        // Keys that are not P-256 or RSA, or not keys at all, are refused with a reason (and
        // never reach swift-crypto's RSA parser, which frees its key twice on bytes it cannot read).
        #expect(throws: AuthKeyError.self) { try AuthKey.publicKey(id: "p384", pem: P384.Signing.PrivateKey().publicKey.pemRepresentation) }
        #expect(throws: AuthKeyError.self) { try AuthKey.publicKey(id: "private", pem: P256.Signing.PrivateKey().pemRepresentation) }
        #expect(throws: AuthKeyError.self) { try AuthKey.publicKey(id: "empty", pem: "") }
        let pkcs1 = try? AuthKey.publicKey(id: "pkcs1", pem: TokenMinter.rsa.publicKey.pkcs1PEMRepresentation)
        #expect(pkcs1?.algorithm == .rs256, "an RSA PUBLIC KEY (PKCS #1) reads too")
        let verifier = TokenVerifier(keys: [pkcs1].compactMap { $0 })
        #expect(reason(verifier, TokenMinter.rs256()) == nil)
    }
}
