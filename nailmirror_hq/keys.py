"""HQ's one ed25519 key pair (issue 25 §1): what HQ signs so that it can later prove it said so.

A grant's id is signed when HQ makes it; the signature travels with the grant's inbox event to the kiosk and back
with the kiosk's GRANT ledger entry, so a grant a restore lost is learned back only when HQ's own public key
verifies it, never on a kiosk's word. The data loop's model releases are signed with the same key
(`SigningKey.sign` with their own purpose, so a signature of one kind can never pass for another).

Where it lives: the pair is made on HQ's first start and kept in HQ's database (table hq_signing_key, so the
documented backup carries it); its private half is sealed with AES-256-GCM under a key-encryption key kept in
HQ's config file (DATA_DIR/hq.toml, or NAILMIRROR_HQ_CONFIG), written 0600 and never in the database or a
backup: a stolen backup alone cannot sign. Verifying needs only the public half, so the API never needs the
config file's secret. The config file is kept apart from the backups; without it the key cannot be unsealed and
HQ refuses to start with one line saying so.
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat
from sqlalchemy import Connection, text

from nailmirror_hq.errors import HQError
from nailmirror_protocol import model_release
from nailmirror_protocol.errors import ErrorCode

ALGORITHM = model_release.SIGNING_ALGORITHM
GRANT_PURPOSE = "credits.grant.v1"
MODEL_RELEASE_PURPOSE = model_release.MODEL_RELEASE_PURPOSE  # the data loop's model releases
KEY_ROTATION_PURPOSE = model_release.KEY_ROTATION_PURPOSE
CONFIG_SECTION = "signing"
CONFIG_KEY = "key_encryption_key"
_KEK_BYTES = 32


class SigningKeyUnavailable(ValueError):
    """HQ's signing key cannot be had: a missing or unreadable config file, or one that does not unseal the key in
    the database. A ValueError, so the CLI says it in one line as an unusable data directory (exit 4)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


# --- the config file's key-encryption key --------------------------------------------------------------------

def load_or_create_kek(path: Path, *, may_create: bool) -> bytes:
    """The 32-byte key-encryption key from HQ's config file. A missing file is made (0600, created exclusively, so
    two HQ processes starting at once never write two keys) when `may_create`: only while the database holds no
    sealed key yet, since a new file could never unseal an existing one."""
    if not path.exists():
        if not may_create:
            raise SigningKeyUnavailable(f"HQ's signing key is sealed with the key in {path}, which is missing: put "
                                        f"back the copy kept apart from the backups (or set NAILMIRROR_HQ_CONFIG)")
        path.parent.mkdir(parents=True, exist_ok=True)
        body = (f"# NailMirror HQ's secrets. Keep a copy apart from HQ's backups: the backup holds HQ's signing key\n"
                f"# sealed with this key, and neither is any use without the other. Readable by HQ's user only.\n"
                f"[{CONFIG_SECTION}]\n{CONFIG_KEY} = \"{_b64(secrets.token_bytes(_KEK_BYTES))}\"\n")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another HQ process made it a moment ago: read theirs
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(body)
                out.flush()
                os.fsync(out.fileno())
    os.chmod(path, 0o600)  # an operator's copy put back with a looser mode is tightened, not trusted as it is
    try:
        value = tomllib.loads(path.read_text(encoding="utf-8"))[CONFIG_SECTION][CONFIG_KEY]
        kek = _unb64(value)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError, binascii.Error) as exc:
        raise SigningKeyUnavailable(f"{path}: no [{CONFIG_SECTION}] {CONFIG_KEY} readable in it "
                                    f"({type(exc).__name__})") from None
    if len(kek) != _KEK_BYTES:
        raise SigningKeyUnavailable(f"{path}: {CONFIG_KEY} is not {_KEK_BYTES} bytes of base64")
    return kek


# --- the key pair --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PublicKey:
    key_id: str
    raw: bytes  # the 32-byte ed25519 public key

    def verify(self, purpose: str, payload: bytes, signature: str) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.raw).verify(_unb64(signature), _message(purpose, payload))
        except (InvalidSignature, binascii.Error, ValueError):
            return False
        return True


@dataclass(frozen=True)
class SigningKey:
    public: PublicKey
    _private: Ed25519PrivateKey

    def __repr__(self) -> str:  # never the private half in a log or a traceback
        return f"SigningKey({self.public.key_id})"

    def sign(self, purpose: str, payload: bytes) -> str:
        return _b64(self._private.sign(_message(purpose, payload)))

    def sign_grant(self, grant_id: str, store_id: str, amount: int) -> str:
        return self.sign(GRANT_PURPOSE, grant_payload(grant_id, store_id, amount))


def _message(purpose: str, payload: bytes) -> bytes:
    # The purpose is part of what is signed: a grant's signature never verifies as a model release's. The framing
    # is the protocol's, so what HQ signs and what a kiosk verifies cannot drift apart.
    return model_release.signed_message(purpose, payload)


def grant_payload(grant_id: str, store_id: str, amount: int) -> bytes:
    """What a grant's signature covers: its id, its store and its amount (a signed id alone would let a kiosk
    claim it back with any amount, or in another store)."""
    return f"{grant_id}\n{store_id}\n{amount}".encode()


def _key_id(raw_public: bytes) -> str:
    return model_release.key_id(raw_public)  # the id a kiosk computes from the key it pins


# The newest key is the one HQ signs with; the older ones stay, so whatever they signed (a grant a kiosk sends
# back, a release a kiosk still runs) still verifies after a rotation.
_CURRENT = "SELECT key_id, public_key, private_sealed, created_at FROM hq_signing_key ORDER BY created_at DESC LIMIT 1"


def public_key(conn: Connection) -> PublicKey | None:
    """The key HQ signs with now."""
    row = conn.execute(text(_CURRENT)).first()
    return None if row is None else PublicKey(row.key_id, _unb64(row.public_key))


def public_keys(conn: Connection) -> list[PublicKey]:
    """Every key HQ ever signed with, newest first."""
    return [PublicKey(row.key_id, _unb64(row.public_key)) for row in conn.execute(text(
        "SELECT key_id, public_key FROM hq_signing_key ORDER BY created_at DESC"))]


def verify_any(conn: Connection, purpose: str, payload: bytes, signature: str) -> bool:
    """Did any of HQ's keys, current or rotated out, sign this? (A grant's signature names no key.)"""
    return any(key.verify(purpose, payload, signature) for key in public_keys(conn))


def hq_key(key: PublicKey) -> model_release.HQKey:
    """The key as kiosks pin it (enrollment, hello)."""
    return {"alg": ALGORITHM, "key": _b64(key.raw), "key_id": key.key_id}


def announced(conn: Connection) -> dict[str, Any]:
    """What enrollment and hello tell a kiosk of HQ's keys: `hq_key` (the current one, which a kiosk with none
    pins) and `hq_key_rotations` (how a kiosk pinned to an older one reaches it)."""
    current = public_key(conn)
    if current is None:  # HQ opened without initialising (tests of the bare schema): nothing to pin
        return {}
    return {"hq_key": hq_key(current), "hq_key_rotations": rotations(conn)}


def rotations(conn: Connection) -> list[model_release.KeyRotation]:
    """HQ's key rotations, oldest first: the newest KEY_ROTATIONS_MAX (what a kiosk reads of hello)."""
    rows = conn.execute(text(
        "SELECT r.old_key_id, r.rotated_at, r.signature, k.key_id, k.public_key FROM hq_key_rotation r "
        "JOIN hq_signing_key k ON k.key_id = r.new_key_id ORDER BY r.rotated_at DESC LIMIT :n"),
        {"n": model_release.KEY_ROTATIONS_MAX}).all()
    return [{"old_key_id": row.old_key_id, "new_key": {"alg": ALGORITHM, "key": row.public_key, "key_id": row.key_id},
             "rotated_at": row.rotated_at, "signature": row.signature} for row in reversed(rows)]


def unseal(key_id: str, public_b64: str, sealed: str, kek: bytes) -> SigningKey:
    """The key pair from its database row, or SigningKeyUnavailable when `kek` is not the key it was sealed with."""
    blob = _unb64(sealed)
    try:
        raw = AESGCM(kek).decrypt(blob[:12], blob[12:], key_id.encode("ascii"))
    except InvalidTag:
        raise SigningKeyUnavailable("HQ's signing key in the database does not open with the key in HQ's config "
                                    "file: put back the config file that belongs with this database") from None
    private = Ed25519PrivateKey.from_private_bytes(raw)
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    if _b64(public) != public_b64 or _key_id(public) != key_id:
        raise SigningKeyUnavailable("HQ's signing key in the database is damaged: its two halves do not match")
    return SigningKey(PublicKey(key_id, public), private)


def ensure_key(conn: Connection, kek: bytes, now: str) -> SigningKey:
    """HQ's key pair: the one in the database, unsealed, else a new one sealed and stored. Called inside
    db.write (the single writer), so two HQ processes starting at once never make two."""
    row = conn.execute(text(_CURRENT)).first()
    if row is not None:
        return unseal(row.key_id, row.public_key, row.private_sealed, kek)
    return _new_key(conn, kek, now)


def _new_key(conn: Connection, kek: bytes, now: str) -> SigningKey:
    private = Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    key_id = _key_id(public)
    nonce = secrets.token_bytes(12)
    raw = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    sealed = nonce + AESGCM(kek).encrypt(nonce, raw, key_id.encode("ascii"))
    conn.execute(text("INSERT INTO hq_signing_key (key_id, algorithm, public_key, private_sealed, created_at) "
                      "VALUES (:k, :a, :p, :s, :t)"),
                 {"k": key_id, "a": ALGORITHM, "p": _b64(public), "s": _b64(sealed), "t": now})
    return SigningKey(PublicKey(key_id, public), private)


def rotate(conn: Connection, kek: bytes, now: str) -> tuple[SigningKey, model_release.KeyRotation]:
    """A new key pair, which signs from now on (inside db.write), and the rotation record the old key signs so
    kiosks pinned to it follow. The old pair stays: what it signed keeps verifying."""
    old = ensure_key(conn, kek, now)
    newest = conn.execute(text("SELECT MAX(created_at) FROM hq_signing_key")).scalar_one()
    if now <= newest:  # the newest key is the current one: it must sort after the one it replaces
        raise HQError(409, ErrorCode.BAD_REQUEST, f"HQ's clock ({now}) is not past its newest key's time "
                                                  f"({newest}): try again in a moment")
    new = _new_key(conn, kek, now)
    new_key = hq_key(new.public)
    signature = old.sign(KEY_ROTATION_PURPOSE, model_release.rotation_payload(old.public.key_id, new_key, now))
    conn.execute(text("INSERT INTO hq_key_rotation (old_key_id, new_key_id, rotated_at, signature) "
                      "VALUES (:o, :n, :t, :s)"), {"o": old.public.key_id, "n": new.public.key_id, "t": now,
                                                    "s": signature})
    return new, {"old_key_id": old.public.key_id, "new_key": new_key, "rotated_at": now, "signature": signature}


def sign_unsigned_grants(conn: Connection, key: SigningKey) -> int:
    """Sign every grant HQ holds that has no signature yet (grants from before migration 0008, or restored from
    a backup written before it); returns how many. Plain SQL on the columns 0008 knows, so the migration can
    call it too."""
    rows = conn.execute(text("SELECT grant_id, store_id, amount FROM credit_grant WHERE signature IS NULL")).all()
    for grant_id, store_id, amount in rows:
        conn.execute(text("UPDATE credit_grant SET signature = :s WHERE grant_id = :g"),
                     {"s": key.sign_grant(grant_id, store_id, int(amount)), "g": grant_id})
    return len(rows)
