"""Resource lists as the API server's admission plugins add, compare and print them.

A quantity keeps the format it was written in (``500m`` and ``2`` are decimal, ``1Gi``
binary, ``1e3`` exponent) and the API prints it in that format's canonical form, so the
numbers in a quota or limit-range message read as the API server writes them: the
quantity's ``String()`` of apimachinery's resource package.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kschedx.core.api.quantity import parse_quantity

DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"

_DECIMAL_SUFFIXES = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIXES = {0: "", 10: "Ki", 20: "Mi", 30: "Gi", 40: "Ti", 50: "Pi", 60: "Ei"}


@dataclass(frozen=True)
class Quantity:
    """An exact amount and the format it prints in."""

    amount: Fraction
    format: str = DECIMAL_SI

    @staticmethod
    def parse(text: Any) -> Quantity:
        s = str(text).strip()
        amount = parse_quantity(text)
        tail = s.lstrip("+-0123456789.")
        if tail.endswith("i"):
            fmt = BINARY_SI
        elif tail[:1] in ("e", "E"):
            fmt = DECIMAL_EXPONENT
        else:
            fmt = DECIMAL_SI
        return Quantity(amount, fmt)

    def __add__(self, other: Quantity) -> Quantity:
        # Go's Quantity.Add: a zero quantity takes the format of what is added to it.
        return Quantity(self.amount + other.amount, other.format if self.amount == 0 else self.format)

    def milli(self) -> int:
        """Go's ``MilliValue`` (rounded up)."""
        x = self.amount * 1000
        return -((-x.numerator) // x.denominator)

    def value(self) -> int:
        """Go's ``Value`` (rounded up)."""
        x = self.amount
        return -((-x.numerator) // x.denominator)

    def __str__(self) -> str:
        return canonical(self.amount, self.format)


def canonical(amount: Fraction, fmt: str = DECIMAL_SI) -> str:
    """The canonical text of a quantity (apimachinery's ``CanonicalizeBytes``): the largest
    suffix that keeps an integer mantissa; nothing finer than nano (rounded up)."""
    sign = "-" if amount < 0 else ""
    amount = abs(amount)
    if amount == 0:
        return "0"
    if fmt == BINARY_SI and amount >= 1024 and amount.denominator == 1:
        n, exp = int(amount), 0
        while n % 1024 == 0 and exp < 60:
            n //= 1024
            exp += 10
        return f"{sign}{n}{_BINARY_SUFFIXES[exp]}"
    # Decimal: the amount in nanos (rounded up), then the largest power of 1000 that divides it.
    nanos = amount * 10**9
    n = -((-nanos.numerator) // nanos.denominator)
    exp = -9
    while n % 1000 == 0 and exp < 18:
        n //= 1000
        exp += 3
    if fmt == DECIMAL_EXPONENT:
        return f"{sign}{n}" + (f"e{exp}" if exp else "")
    return f"{sign}{n}{_DECIMAL_SUFFIXES[exp]}"


ResourceList = dict[str, Quantity]


def resource_list(raw: Any) -> ResourceList:
    """A ResourceList of an API object (a mapping of names to quantity strings)."""
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): Quantity.parse(v) for k, v in raw.items()}


def add(a: Mapping[str, Quantity], b: Mapping[str, Quantity]) -> ResourceList:
    """quota.Add: the union, summed where both have the resource."""
    out = dict(a)
    for k, v in b.items():
        out[k] = out[k] + v if k in out else v
    return out


def negated(items: Mapping[str, Quantity]) -> ResourceList:
    """quota.Subtract's other half: each amount with its sign flipped (usage given back)."""
    return {k: Quantity(-v.amount, v.format) for k, v in items.items()}


def add_into(into: dict[str, Quantity], other: Mapping[str, Quantity]) -> None:
    for k, v in other.items():
        into[k] = into[k] + v if k in into else v


def max_into(into: dict[str, Quantity], other: Mapping[str, Quantity]) -> None:
    for k, v in other.items():
        if k not in into or v.amount > into[k].amount:
            into[k] = v


def mask(items: Mapping[str, Quantity], names: Iterable[str]) -> ResourceList:
    keep = set(names)
    return {k: v for k, v in items.items() if k in keep}


def pretty(items: Mapping[str, Quantity]) -> str:
    """``k=v`` by name, comma-separated, as the quota messages print a ResourceList."""
    return ",".join(f"{k}={items[k]}" for k in sorted(items))
