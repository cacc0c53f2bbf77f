from nailmirror_protocol.canonical import body_sha256, canonical_json, catalog_digest, is_sha256_hex


def test_canonical_json_ignores_key_order_and_spacing() -> None:
    assert canonical_json({"b": 1, "a": "奶白"}) == '{"a":"奶白","b":1}'.encode()
    assert body_sha256({"a": [1, 2], "b": None}) == body_sha256({"b": None, "a": [1, 2]})
    assert body_sha256({"a": [1, 2]}) != body_sha256({"a": [2, 1]})


def test_digest_is_order_free_and_version_sensitive() -> None:
    pairs = [("b", 2), ("a", 1)]
    assert catalog_digest(pairs) == catalog_digest(reversed(pairs))
    assert catalog_digest(pairs) != catalog_digest([("b", 3), ("a", 1)])
    # sha256 of "a:1\nb:2\n": the kiosk computes exactly this over its rows
    assert catalog_digest(pairs) == "sha256:" + __import__("hashlib").sha256(b"a:1\nb:2\n").hexdigest()


def test_sha256_hex() -> None:
    assert is_sha256_hex("a" * 64)
    assert not is_sha256_hex("A" * 64)
    assert not is_sha256_hex("a" * 63)
