import pytest

from nailmirror_protocol.checks import Action, NotProtocol, classify, parse_body, retry_after_s


def test_only_protocol_bodies_are_accepted() -> None:
    assert parse_body(b'{"nm": 1, "x": 2}', "application/json") == {"nm": 1, "x": 2}
    for raw, content_type in [(b"<html>login</html>", "text/html"), (b'{"x": 1}', None), (b"[1]", None),
                              (b'{"nm": 1', None), (b'{"nm": 2}', None)]:
        with pytest.raises(NotProtocol):
            parse_body(raw, content_type)


@pytest.mark.parametrize(("status", "body", "action"), [
    (410, {"error": "cursor_expired", "details": {"reason": "epoch_changed"}}, Action.RESET),
    (401, {"error": "token_revoked"}, Action.STOP),
    (426, {"error": "upgrade_required"}, Action.STOP),
    (422, {"error": "missing_blobs"}, Action.UPLOAD),
    (429, {"error": "submission_quota_exceeded", "retryable": True}, Action.RETRY),
    (503, None, Action.RETRY),
    (409, {"error": "revision_conflict"}, Action.GIVE_UP),
    (403, {"error": "not_your_draft"}, Action.GIVE_UP),
    (400, {"error": "hash_mismatch"}, Action.GIVE_UP),
])
def test_classify(status: int, body: dict | None, action: Action) -> None:
    assert classify(status, body).action is action


def test_reset_names_its_reason_and_retry_after_reads_seconds() -> None:
    assert classify(410, {"error": "cursor_expired", "details": {"reason": "compacted"}}).reason == "compacted"
    assert retry_after_s(" 120 ") == 120 and retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT") is None
    assert retry_after_s(None) is None
