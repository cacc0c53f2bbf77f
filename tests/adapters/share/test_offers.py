"""One-time offers and the rate limiter, on a manual clock."""

from __future__ import annotations

from pathlib import Path

from nailmirror_desktop.adapters.share.offers import Claim, RateLimiter, ShareOffers


def test_an_offer_is_delivered_whole_three_times_one_transfer_at_a_time_until_it_expires():
    now = [0.0]
    offers = ShareOffers(ttl_s=180, clock=lambda: now[0])
    offer = offers.offer(Path("a.png"))
    assert offers.peek(offer.token)[0] is Claim.OK
    assert offers.peek(offer.token)[0] is Claim.OK  # peeking uses nothing up
    assert offers.begin(offer.token)[0] is Claim.OK
    assert offers.begin(offer.token)[0] is Claim.BUSY  # one transfer at a time
    assert offers.peek(offer.token)[0] is Claim.OK  # the page still shows meanwhile
    assert offers.end(offer.token, delivered=False).deliveries == 0  # cut off midway: not counted
    for delivered in (1, 2, 3):
        assert offers.begin(offer.token)[0] is Claim.OK
        assert offers.end(offer.token, delivered=True).deliveries == delivered
    assert offers.begin(offer.token)[0] is Claim.USED and offers.peek(offer.token)[0] is Claim.USED
    late = offers.offer(Path("b.png"))
    now[0] += 180
    assert offers.begin(late.token)[0] is Claim.EXPIRED
    assert offers.begin("not-a-token")[0] is Claim.UNKNOWN
    assert offers.begin("é-not-ascii")[0] is Claim.UNKNOWN
    offers.withdraw_all()
    assert offers.peek(late.token)[0] is Claim.UNKNOWN
    assert offers.end(late.token, delivered=True) is None  # withdrawn while it was being sent


def test_an_offer_is_named_in_the_log_without_its_token():
    offer = ShareOffers().offer(Path("a.png"))
    assert len(offer.log_id) == 8 and offer.log_id not in offer.token and offer.token[:4] not in offer.log_id


def test_tokens_are_fresh_and_long():
    offers = ShareOffers()
    tokens = {offers.offer(Path("a.png")).token for _ in range(50)}
    assert len(tokens) == 50 and min(len(t) for t in tokens) >= 43  # 32 random bytes, base64url


def test_the_rate_limit_slides_per_client():
    now = [0.0]
    limiter = RateLimiter(limit=3, window_s=10, clock=lambda: now[0])
    assert [limiter.allow("10.0.0.5") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("10.0.0.6")  # another phone is not held up
    assert 1 <= limiter.retry_after_s("10.0.0.5") <= 11
    now[0] += 10
    assert limiter.allow("10.0.0.5")


def test_a_made_picture_is_kept_with_its_offer_and_goes_with_it():
    offers = ShareOffers()
    offer = offers.offer(Path("a_after.png"), "image/jpeg", build=lambda: b"jpeg")
    offers.keep_body(offer.token, (1, 2), b"jpeg")
    assert offers.peek(offer.token)[1].body == b"jpeg"
    offers.withdraw_all()  # the idle reset
    offers.keep_body(offer.token, (1, 2), b"made while she left")  # a build that ended after the reset
    assert offers.peek(offer.token) == (Claim.UNKNOWN, None) and offers._offers == {}
