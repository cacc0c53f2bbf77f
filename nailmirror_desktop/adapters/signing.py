"""HQ's ed25519 signatures checked on the kiosk (issue #27 §5): the `Verifier` that core/model_releases and
nailmirror_protocol.model_release take, over `cryptography`. It never raises: junk (a key of the wrong length,
base64 that is not, a forged signature) is simply not verified."""

from __future__ import annotations

import binascii

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from nailmirror_protocol.model_release import signed_message, unb64


def verify_ed25519(public_key_b64: str, purpose: str, payload: bytes, signature_b64: str) -> bool:
    """Whether `signature_b64` is the holder of `public_key_b64`'s signature over signed_message(purpose,
    payload) (HQ frames every signature with its purpose, so one purpose's never passes for another's)."""
    try:
        key = Ed25519PublicKey.from_public_bytes(unb64(public_key_b64))
        key.verify(unb64(signature_b64), signed_message(purpose, payload))
    except (InvalidSignature, binascii.Error, ValueError, TypeError):
        return False
    return True
