import pytest

from nailmirror_protocol.cursor import Cursor, CursorError, format_cursor, parse_cursor


def test_round_trip() -> None:
    assert parse_cursor("e3.1046") == Cursor("e3", 1046)
    assert str(Cursor("e1a2b", 0)) == "e1a2b.0"
    assert format_cursor("e3", 7) == "e3.7"


@pytest.mark.parametrize("text", ["", "e3", "e3.", ".5", "e3.-1", "e3.+1", "e3. 1", "e.3.4", "e 3.1", "e3.1x",
                                  "e3.٣", "e3." + "9" * 20])
def test_rejects_what_is_not_a_cursor(text: str) -> None:
    with pytest.raises(CursorError):
        parse_cursor(text)


def test_cursors_order_by_seq_within_an_epoch() -> None:
    assert parse_cursor("e1.9") < parse_cursor("e1.10")
