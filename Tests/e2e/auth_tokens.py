"""Key files and JSON Web Tokens for the tests of PROTOCOL section 19, made here with nothing but
the `cryptography` package's long-stable API, so they run on Debian 12's python3-cryptography
(38.x) as on pip's (48): an HS256 secret, RSA 2048 and P-256 key pairs written as PEM
SubjectPublicKeyInfo public keys, tokens signed with each (RS256: PKCS#1 v1.5; ES256: raw r||s,
not DER), base64url without padding; and the bad tokens a server must refuse, each with the
reason docs/AUTH-DESIGN.md gives for it. No PyJWT: the tests must not share a library's idea of
what a token is with anything."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import pathlib
import secrets
import time
from dataclasses import dataclass
from typing import Any

try:
    import cryptography  # noqa: F401
except ImportError:  # a Python of its own (pyenv, venv) on a machine with Debian's python3-cryptography
    import sys
    if pathlib.Path("/usr/lib/python3/dist-packages/cryptography").is_dir():
        sys.path.append("/usr/lib/python3/dist-packages")
from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils  # noqa: E402

LEEWAY = 30  # seconds, on exp and nbf
MAX_TOKEN = 8192  # bytes
OMIT = object()  # a claim or header field left out


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# Key generation is slow (RSA): each private key is made once per test process and written into
# every test's own directory.
_private_keys: dict[str, Any] = {}


def _private(slot: str, kind: str):
    if slot not in _private_keys:
        if kind == "rsa":
            _private_keys[slot] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            _private_keys[slot] = ec.generate_private_key(ec.SECP256R1())
    return _private_keys[slot]


class Key:
    """One signing key; `path` is the file the server is given (None: a key it never sees)."""
    alg: str

    def __init__(self, path: pathlib.Path | None):
        self.path = path

    @property
    def kid(self) -> str:
        """The server's key id: the file's name without its directory and its last extension."""
        assert self.path is not None
        return self.path.stem

    def sign(self, data: bytes) -> bytes:
        raise NotImplementedError

    def verify(self, data: bytes, signature: bytes) -> bool:
        raise NotImplementedError


class HS256Key(Key):
    alg = "HS256"

    def __init__(self, path: pathlib.Path | None, secret: bytes | None = None):
        super().__init__(path)
        self.secret = secret if secret is not None else secrets.token_urlsafe(36).encode()  # 48 bytes
        if path is not None:
            # A trailing newline, as an editor leaves it: the server strips trailing whitespace.
            path.write_bytes(self.secret + b"\n")

    def sign(self, data: bytes) -> bytes:
        return hmac.new(self.secret, data, hashlib.sha256).digest()

    def verify(self, data: bytes, signature: bytes) -> bool:
        return hmac.compare_digest(self.sign(data), signature)


class _PublicKeyFile(Key):
    kind = ""

    def __init__(self, path: pathlib.Path | None, slot: str):
        super().__init__(path)
        self.private = _private(slot, self.kind)
        self.public = self.private.public_key()
        self.public_pem = self.public.public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo)
        if path is not None:
            path.write_bytes(self.public_pem)


class RS256Key(_PublicKeyFile):
    alg = "RS256"
    kind = "rsa"

    def sign(self, data: bytes) -> bytes:
        return self.private.sign(data, padding.PKCS1v15(), hashes.SHA256())

    def verify(self, data: bytes, signature: bytes) -> bool:
        try:
            self.public.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
            return True
        except InvalidSignature:
            return False


class ES256Key(_PublicKeyFile):
    alg = "ES256"
    kind = "ec"

    def sign_der(self, data: bytes) -> bytes:
        return self.private.sign(data, ec.ECDSA(hashes.SHA256()))

    def sign(self, data: bytes) -> bytes:
        r, s = utils.decode_dss_signature(self.sign_der(data))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")  # JWS: r || s, 32 bytes each

    def verify(self, data: bytes, signature: bytes) -> bool:
        if len(signature) != 64:
            return False
        der = utils.encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        try:
            self.public.verify(der, data, ec.ECDSA(hashes.SHA256()))
            return True
        except InvalidSignature:
            return False


def assemble(header: dict, claims: dict | bytes, signer) -> str:
    """header.claims.signature; `signer(signing_input) -> bytes`."""
    body = claims if isinstance(claims, bytes) else compact(claims)
    signing_input = b64url(compact(header)) + "." + b64url(body)
    return signing_input + "." + b64url(signer(signing_input.encode("ascii")))


@dataclass
class User:
    sub: str
    name: str | None  # None: no `name` claim


ADA = User("u-ada", "Ada")
GRACE = User("u-grace", "Grace Hopper")
EVE = User("u-eve", "Eve")


class Keyring:
    """The key files of one test, in a directory of its own, and the tokens minted with them
    (every one remembered, so a test can check none of them reached the server's log).

    Key ids are the files' stems: `shared-secret.txt` is `shared-secret`, `rsa-2026-11.pem`
    `rsa-2026-11`, and `ec.p256.pem` `ec.p256` (only the last extension goes)."""

    def __init__(self, directory: pathlib.Path, issuer: str | None = None, audience: str | None = None):
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.issuer, self.audience = issuer, audience
        self.hs = HS256Key(directory / "shared-secret.txt")
        self.rsa = RS256Key(directory / "rsa-2026-11.pem", "rsa-a")
        self.rsa_next = RS256Key(directory / "rsa-2026-12.pem", "rsa-b")  # key rotation: the next key
        self.ec = ES256Key(directory / "ec.p256.pem", "ec-a")
        # Keys the server is never given.
        self.stranger_hs = HS256Key(None)
        self.stranger_rsa = RS256Key(None, "rsa-c")
        self.stranger_ec = ES256Key(None, "ec-b")
        self.minted: list[str] = []

    # -- the server's flags ---------------------------------------------------------------------

    def flags(self, *keys: Key, issuer: bool = True, audience: bool = True) -> tuple[str, ...]:
        """`--auth-hs256`/`--auth-public-key` for each key (default: the secret, the first RSA key
        and the EC key), and the issuer and audience the keyring was made with."""
        chosen = keys or (self.hs, self.rsa, self.ec)
        args: list[str] = []
        for key in chosen:
            args += ["--auth-hs256" if key.alg == "HS256" else "--auth-public-key", str(key.path)]
        if issuer and self.issuer is not None:
            args += ["--auth-issuer", self.issuer]
        if audience and self.audience is not None:
            args += ["--auth-audience", self.audience]
        return tuple(args)

    # -- tokens ---------------------------------------------------------------------------------

    def claims(self, user: User = ADA, lifetime: float = 600, now: float | None = None, **overrides) -> dict:
        """sub, name, iat, exp (now + lifetime), iss and aud as configured; `overrides` replace any
        (OMIT leaves one out) or add more."""
        now = time.time() if now is None else now
        claims: dict[str, Any] = {"sub": user.sub, "iat": int(now), "exp": int(now + lifetime)}
        if user.name is not None:
            claims["name"] = user.name
        if self.issuer is not None:
            claims["iss"] = self.issuer
        if self.audience is not None:
            claims["aud"] = self.audience
        for field, value in overrides.items():
            if value is OMIT:
                claims.pop(field, None)
            else:
                claims[field] = value
        return claims

    def token(self, key: Key, user: User = ADA, lifetime: float = 600, *, kid: Any = None, alg: str | None = None,
              header: dict | None = None, signer=None, raw_claims: bytes | None = None, **claims) -> str:
        """A token signed with `key`; its header names the key's id unless kid=OMIT (or names
        `kid` when given), and the key's algorithm unless `alg` says otherwise."""
        head: dict[str, Any] = {"alg": alg or key.alg, "typ": "JWT"}
        if kid is None:
            if key.path is not None:
                head["kid"] = key.kid
        elif kid is not OMIT:
            head["kid"] = kid
        for field, value in (header or {}).items():
            if value is OMIT:
                head.pop(field, None)
            else:
                head[field] = value
        body = raw_claims if raw_claims is not None else self.claims(user, lifetime, **claims)
        jwt = assemble(head, body, signer or key.sign)
        self.minted.append(jwt)
        return jwt

    def remember(self, jwt: str) -> str:
        self.minted.append(jwt)
        return jwt

    def leaks(self, text: str) -> list[str]:
        """Which minted tokens (whole, or their claims or signature part) appear in `text`."""
        found = []
        for jwt in self.minted:
            parts = jwt.split(".")
            pieces = [jwt] + [p for p in parts[1:3] if len(p) >= 24]
            if len(jwt) >= 40 and any(piece in text for piece in pieces):
                found.append(jwt[:60] + "...")
        return found


def flip_signature(jwt: str) -> str:
    """The same token with one bit of its signature changed."""
    head, body, signature = jwt.split(".")
    raw = bytearray(b64url_decode(signature))
    raw[len(raw) // 2] ^= 0x01
    return f"{head}.{body}.{b64url(bytes(raw))}"


@dataclass
class BadToken:
    label: str
    jwt: str
    reasons: tuple[str, ...] | None  # the reasons the design allows; None: any "bad token: ..." reason


def bad_tokens(keys: Keyring, user: User = ADA) -> list[BadToken]:
    """Tokens a server with the secret, the first RSA key and the EC key, and the keyring's issuer
    and audience (both set), must refuse; with the reason for each."""
    assert keys.issuer and keys.audience, "the bad tokens assume an issuer and an audience are configured"
    now = time.time()
    t = keys.token
    over_long = t(keys.rsa, user, padding_claim="x" * (MAX_TOKEN + 100))
    assert len(over_long) > MAX_TOKEN
    rsa_confusion = assemble({"alg": "HS256", "typ": "JWT"}, keys.claims(user),
                             lambda data: hmac.new(keys.rsa.public_pem, data, hashlib.sha256).digest())
    rsa_confusion_kid = assemble({"alg": "HS256", "typ": "JWT", "kid": keys.rsa.kid}, keys.claims(user),
                                 lambda data: hmac.new(keys.rsa.public_pem, data, hashlib.sha256).digest())
    good_header = b64url(compact({"alg": "RS256", "typ": "JWT", "kid": keys.rsa.kid}))
    good_claims = b64url(compact(keys.claims(user)))
    listed = [
        # signatures
        BadToken("HS256 wrong signature", flip_signature(t(keys.hs, user)), ("bad signature",)),
        BadToken("RS256 wrong signature", flip_signature(t(keys.rsa, user)), ("bad signature",)),
        BadToken("ES256 wrong signature", flip_signature(t(keys.ec, user)), ("bad signature",)),
        BadToken("HS256 with another secret, same kid", t(keys.hs, user, signer=keys.stranger_hs.sign),
                 ("bad signature",)),
        BadToken("RS256 by a stranger key under a known kid", t(keys.rsa, user, signer=keys.stranger_rsa.sign),
                 ("bad signature",)),
        BadToken("RS256 by a stranger key, no kid", t(keys.stranger_rsa, user, kid=OMIT), ("bad signature",)),
        BadToken("ES256 by a stranger key, no kid", t(keys.stranger_ec, user, kid=OMIT), ("bad signature",)),
        BadToken("ES256 signature in DER, not r||s", t(keys.ec, user, signer=keys.ec.sign_der),
                 ("bad signature", "malformed")),
        BadToken("claims changed after signing", keys.remember(
            f"{good_header}.{b64url(compact(keys.claims(user, sub='u-mallory', name='Mallory')))}."
            + t(keys.rsa, user).split(".")[2]), ("bad signature",)),
        # algorithms
        BadToken("alg none", assemble({"alg": "none", "typ": "JWT"}, keys.claims(user), lambda data: b""),
                 ("no key for algorithm none",)),
        BadToken("alg none with a signature", t(keys.hs, user, alg="none", kid=OMIT), ("no key for algorithm none",)),
        BadToken("HS256 signed with the RSA public key PEM as its secret (mixed keys: the secret is tried)",
                 keys.remember(rsa_confusion), ("bad signature",)),
        BadToken("HS256 with the RSA public key PEM as its secret, naming the RSA key",
                 keys.remember(rsa_confusion_kid), ("no key for algorithm HS256", "bad signature")),
        BadToken("RS256 header naming the EC key", t(keys.rsa, user, kid=keys.ec.kid),
                 ("no key for algorithm RS256", "bad signature")),
        BadToken("no alg", t(keys.hs, user, header={"alg": OMIT}), None),
        BadToken("crit header", t(keys.rsa, user, header={"crit": ["exp"]}), None),
        BadToken("unknown kid", t(keys.rsa, user, kid="rsa-2027-01"), ("unknown key id",)),
        # claims
        BadToken("expired", t(keys.rsa, user, exp=int(now) - LEEWAY - 30), ("expired",)),
        BadToken("expired (HS256)", t(keys.hs, user, exp=int(now) - LEEWAY - 30), ("expired",)),
        BadToken("not yet valid", t(keys.ec, user, nbf=int(now) + LEEWAY + 90), ("not yet valid",)),
        BadToken("wrong issuer", t(keys.rsa, user, iss="https://elsewhere.example"), ("wrong issuer",)),
        BadToken("no issuer", t(keys.rsa, user, iss=OMIT), ("wrong issuer",)),
        BadToken("wrong audience", t(keys.rsa, user, aud="someone-else"), ("wrong audience",)),
        BadToken("audience list without ours", t(keys.ec, user, aud=["a", "b"]), ("wrong audience",)),
        BadToken("no audience", t(keys.hs, user, aud=OMIT), ("wrong audience",)),
        BadToken("no sub", t(keys.rsa, user, sub=OMIT), ("no sub",)),
        BadToken("empty sub", t(keys.rsa, user, sub=""), ("no sub", "malformed")),
        BadToken("sub not a string", t(keys.rsa, user, sub=42), ("no sub", "malformed")),
        BadToken("sub over 128 bytes", t(keys.rsa, user, sub="u" * 129), None),
        BadToken("no exp", t(keys.rsa, user, exp=OMIT), ("no exp",)),
        BadToken("exp not a number", t(keys.rsa, user, exp=str(int(now) + 600)), ("no exp", "malformed")),
        BadToken("name of 41 characters", t(keys.rsa, user, name="N" * 41), ("bad name",)),
        BadToken("empty name", t(keys.ec, user, name=""), ("bad name",)),
        BadToken("name with a control character", t(keys.hs, user, name="Ada\nLovelace"), ("bad name",)),
        BadToken("name not a string", t(keys.hs, user, name=7), ("bad name", "malformed")),
        # shape
        BadToken("garbage", "garbage", ("malformed",)),
        BadToken("two parts", f"{good_header}.{good_claims}", ("malformed",)),
        BadToken("four parts", f"{good_header}.{good_claims}.AAAA.AAAA", ("malformed",)),
        BadToken("not base64url", "!!!!.@@@@.####", ("malformed",)),
        BadToken("header not JSON", f"{b64url(b'not json')}.{good_claims}.AAAA", ("malformed",)),
        BadToken("header a JSON array", f"{b64url(b'[1,2]')}.{good_claims}.AAAA", ("malformed",)),
        BadToken("claims not a JSON object", t(keys.rsa, user, raw_claims=b'"just a string"'), ("malformed",)),
        BadToken("claims not JSON", t(keys.rsa, user, raw_claims=b"{sub: u-ada"), ("malformed",)),
        BadToken("over 8192 bytes", over_long, ("too long",)),
    ]
    return listed


def self_check(keys: Keyring) -> None:
    """The tokens minted here are what RFC 7515/7518 say, checked with `cryptography` alone: each
    signature verifies over header.claims with its key, and base64url carries no padding."""
    for key in (keys.hs, keys.rsa, keys.rsa_next, keys.ec):
        jwt = keys.token(key, ADA)
        head, body, signature = jwt.split(".")
        assert "=" not in jwt and "+" not in jwt and "/" not in jwt, jwt
        header = json.loads(b64url_decode(head))
        assert header == {"alg": key.alg, "typ": "JWT", "kid": key.kid}, header
        claims = json.loads(b64url_decode(body))
        assert claims["sub"] == ADA.sub and claims["exp"] > time.time(), claims
        raw = b64url_decode(signature)
        assert len(raw) == {"HS256": 32, "RS256": 256, "ES256": 64}[key.alg], (key.alg, len(raw))
        assert key.verify(f"{head}.{body}".encode(), raw), key.alg
        assert not key.verify(f"{head}.{body}x".encode(), raw), key.alg
    pem = keys.rsa.path.read_bytes()
    assert pem.startswith(b"-----BEGIN PUBLIC KEY-----"), pem[:40]
    assert keys.ec.path.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    loaded = serialization.load_pem_public_key(keys.ec.path.read_bytes())
    assert isinstance(loaded, ec.EllipticCurvePublicKey) and loaded.curve.name == "secp256r1"
    assert isinstance(serialization.load_pem_public_key(pem), rsa.RSAPublicKey)
    assert serialization.load_pem_public_key(pem).key_size == 2048
    assert len(keys.hs.path.read_bytes().rstrip()) >= 32


def write_unusable_keys(directory: pathlib.Path) -> dict[str, tuple[str, pathlib.Path]]:
    """Key files a server must refuse to start with: label -> (flag, path)."""
    directory.mkdir(parents=True, exist_ok=True)
    files: dict[str, tuple[str, pathlib.Path]] = {}

    def write(name: str, data: bytes, flag: str, label: str) -> None:
        path = directory / name
        path.write_bytes(data)
        files[label] = (flag, path)

    write("short.txt", b"s" * 31 + b"\n", "--auth-hs256", "an HS256 secret of 31 bytes")
    write("blank.txt", b" " * 40 + b"\n", "--auth-hs256", "an HS256 secret of only whitespace")
    small = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    write("rsa-1024.pem", small.public_key().public_bytes(serialization.Encoding.PEM,
                                                          serialization.PublicFormat.SubjectPublicKeyInfo),
          "--auth-public-key", "an RSA key of 1024 bits")
    p384 = ec.generate_private_key(ec.SECP384R1())
    write("p384.pem", p384.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo),
          "--auth-public-key", "a P-384 key")
    private = _private("rsa-a", "rsa").private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption())
    write("private.pem", private, "--auth-public-key", "a private key instead of a public one")
    write("garbage.pem", b"-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n",
          "--auth-public-key", "a PEM that holds no key")
    files["a key file that does not exist"] = ("--auth-public-key", directory / "missing.pem")
    files["an HS256 file that does not exist"] = ("--auth-hs256", directory / "missing.txt")
    return files
