"""Kubernetes resource quantities with the apimachinery's rounding rules.

A quantity is parsed into an exact rational number.  ``milli_value`` and ``value``
round up to the next integer, as Go's ``Quantity.MilliValue()`` and ``Quantity.Value()``
do, so that "0.1m" of CPU counts as 1m and "1.5" bytes as 2.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}

# sign, digits with an optional fraction, then a binary suffix, a decimal exponent or an SI suffix.
_QUANTITY = re.compile(
    r"^(?P<sign>[+-]?)(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|[numkMGTPE]?)$"
)


class QuantityError(ValueError):
    """The text is not a valid Kubernetes quantity."""


@lru_cache(maxsize=65536, typed=True)  # typed: True is not the quantity 1
def parse_quantity(text: str | int | float) -> Fraction:
    """Parse a quantity ("100m", "1Gi", "1e3", "0.5") into an exact Fraction."""
    if isinstance(text, bool):
        raise QuantityError(f"quantities must match the regular expression, got {text!r}")
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        return Fraction(str(text))
    s = str(text).strip()
    m = _QUANTITY.match(s)
    if m is None:
        raise QuantityError(
            f"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got {text!r}"
        )
    num = Fraction(m.group("num"))
    suffix = m.group("suffix")
    if suffix in _BINARY:
        num *= _BINARY[suffix]
    elif suffix and suffix[0] in "eE" and len(suffix) > 1:
        num *= Fraction(10) ** int(suffix[1:])
    else:
        num *= _DECIMAL[suffix]
    return -num if m.group("sign") == "-" else num


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


def milli_value(text: str | int | float) -> int:
    """The quantity in thousandths, rounded up (Go's ``MilliValue``)."""
    return _ceil(parse_quantity(text) * 1000)


def value(text: str | int | float) -> int:
    """The quantity as an integer, rounded up (Go's ``Value``)."""
    return _ceil(parse_quantity(text))


def resource_amount(name: str, text: str | int | float) -> int:
    """The integer the scheduler works with for a resource: millicores for cpu, else the value."""
    return milli_value(text) if name == "cpu" else value(text)


def format_amount(name: str, amount: int) -> str:
    """A compact human form of a resource amount (for rendering only)."""
    if name == "cpu":
        return f"{amount}m" if amount % 1000 else str(amount // 1000)
    if name in ("memory", "ephemeral-storage") or name.startswith("hugepages-"):
        for suffix, factor in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if amount and amount % factor == 0:
                return f"{amount // factor}{suffix}"
        for suffix, factor in (("Gi", 2**30), ("Mi", 2**20)):
            if amount >= factor:
                return f"{amount / factor:.1f}{suffix}"
    return str(amount)
