"""A style's price: integer minor units (分 / cents) of the store's currency, read, bounded and shown.

Money is never a float here. What staff type (the review page, `styles set-price`) and what a style folder's
style.json holds (`"price": 128`, `128.5` or `"128.50"`) are read as decimals and turned into minor units by the
currency's exponent (ISO 4217: CNY 2, JPY 0); more decimals than the currency has, a sign, a thousands
separator or anything that is not a plain number is refused with one line saying how to write it.

How a price is shown (decided for the kiosk, ARCHITECTURE.md §8): the currency's symbol, the whole amount with
thousands grouped, and the minor units only when there are some — ¥128, ¥1,280, ¥128.50. A price list in a
salon reads "¥128", and a shown ".00" on every tile is noise; a price with 分 still shows them exactly.
The symbol follows the display language where Chinese and English write it differently (US$ / $).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from nailmirror_desktop.core.catalog.errors import StyleError

DEFAULT_CURRENCY = "CNY"
MAX_PRICE_MINOR = 99_999_999  # ¥999,999.99: far above any nail style; the migration's CHECK says the same
MAX_PRICE_TEXT = 16


@dataclass(frozen=True)
class Currency:
    code: str
    exponent: int  # ISO 4217 minor-unit digits
    symbol_zh: str
    symbol_en: str


CURRENCIES = {c.code: c for c in (
    Currency("CNY", 2, "¥", "¥"),
    Currency("HKD", 2, "HK$", "HK$"),
    Currency("MOP", 2, "MOP$", "MOP$"),
    Currency("TWD", 2, "NT$", "NT$"),
    Currency("SGD", 2, "S$", "S$"),
    Currency("USD", 2, "US$", "$"),
    Currency("EUR", 2, "€", "€"),
    Currency("GBP", 2, "£", "£"),
    Currency("JPY", 0, "JP¥", "¥"),
)}


def currency(code: str) -> Currency:
    """The currency named by `code` (upper-case ISO 4217); StyleError(UNKNOWN_CURRENCY) when not supported."""
    found = CURRENCIES.get(str(code).strip().upper())
    if found is None:
        raise StyleError("UNKNOWN_CURRENCY", f"{code!r}: supported are {', '.join(CURRENCIES)}")
    return found


def parse_price(value: object, currency_code: str = DEFAULT_CURRENCY) -> int:
    """Minor units from what a person wrote: text like "128" or "128.50", an int, or a Decimal (style.json's
    numbers are read as Decimal). Raises StyleError(PRICE_INVALID) with a one-line reason."""
    unit = currency(currency_code)
    if isinstance(value, bool) or value is None:
        raise StyleError("PRICE_INVALID", "a price must be a number such as 128 or 128.50")
    if isinstance(value, float):  # never arrives from our readers; refused rather than rounded
        raise StyleError("PRICE_INVALID", "a price must not be a float; write it as text such as \"128.50\"")
    if isinstance(value, int):
        amount = Decimal(value)
    elif isinstance(value, Decimal):
        amount = value
    elif isinstance(value, str):
        text = value.strip()
        for symbol in (unit.symbol_zh, unit.symbol_en):  # "¥128" as printed on a price list
            if text.startswith(symbol):
                text = text[len(symbol):].strip()
                break
        whole, _, part = text.partition(".")
        if not whole or len(text) > MAX_PRICE_TEXT or not _ascii_digits(whole) \
                or ("." in text and not _ascii_digits(part)):
            raise StyleError("PRICE_INVALID", f"{value[:MAX_PRICE_TEXT]!r}: write the price as digits, such as "
                                              f"128 or 128.50")
        amount = Decimal(text)
    else:
        raise StyleError("PRICE_INVALID", "a price must be a number such as 128 or 128.50")
    try:
        if not amount.is_finite() or amount < 0:
            raise StyleError("PRICE_INVALID", "a price cannot be negative")
        minor = amount.scaleb(unit.exponent)
        if minor != minor.to_integral_value():
            raise StyleError("PRICE_INVALID", f"{unit.code} has {unit.exponent} decimal place(s) at most")
        result = int(minor)
    except InvalidOperation:
        raise StyleError("PRICE_INVALID", "a price must be a number such as 128 or 128.50") from None
    return check_price_minor(result)


def _ascii_digits(text: str) -> bool:
    return bool(text) and all("0" <= ch <= "9" for ch in text)


def check_price_minor(minor: int) -> int:
    """`minor` if it is a whole number within 0..MAX_PRICE_MINOR; StyleError(PRICE_INVALID) otherwise."""
    if isinstance(minor, bool) or not isinstance(minor, int) or not 0 <= minor <= MAX_PRICE_MINOR:
        raise StyleError("PRICE_INVALID", f"a price must be between 0 and {format_price(MAX_PRICE_MINOR)}")
    return minor


def format_amount(minor: int, currency_code: str = DEFAULT_CURRENCY) -> str:
    """The number alone, as staff type it back: "128", "128.50" (no grouping, no symbol)."""
    unit = currency(currency_code)
    whole, part = divmod(minor, 10**unit.exponent)
    return f"{whole}.{part:0{unit.exponent}d}" if part else str(whole)


def format_price(minor: int, currency_code: str = DEFAULT_CURRENCY, language: str = "zh_CN") -> str:
    """What a customer reads: ¥128, ¥1,280, ¥128.50 (see the module doc)."""
    unit = currency(currency_code)
    whole, part = divmod(minor, 10**unit.exponent)
    symbol = unit.symbol_en if language == "en" else unit.symbol_zh
    return f"{symbol}{whole:,}" + (f".{part:0{unit.exponent}d}" if part else "")
