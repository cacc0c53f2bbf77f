from nailmirror_protocol.errors import RESET_REASONS, ErrorCode, ResetReason, error_body


def test_error_body_shape() -> None:
    body = error_body(ErrorCode.CURSOR_EXPIRED, "old", {"reason": ResetReason.EPOCH_CHANGED})
    assert body == {"nm": 1, "error": "cursor_expired", "message": "old", "retryable": False,
                    "details": {"reason": "epoch_changed"}}


def test_only_transient_errors_are_retryable() -> None:
    assert error_body(ErrorCode.STORAGE_FULL, "")["retryable"] is True
    assert error_body(ErrorCode.TOKEN_REVOKED, "")["retryable"] is False
    assert error_body(ErrorCode.REVISION_CONFLICT, "")["retryable"] is False


def test_every_reset_reason_is_listed() -> None:
    assert {r.value for r in RESET_REASONS} == {"epoch_changed", "compacted", "ahead_of_server",
                                                 "protocol_upgraded", "channel_changed"}
