from fractions import Fraction

import pytest

from kschedx.core.api.quantity import QuantityError, format_amount, milli_value, parse_quantity, value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100m", Fraction(1, 10)),
        ("1", Fraction(1)),
        ("1.5", Fraction(3, 2)),
        ("1Ki", Fraction(1024)),
        ("1Mi", Fraction(2**20)),
        ("2Gi", Fraction(2 * 2**30)),
        ("1k", Fraction(1000)),
        ("1M", Fraction(10**6)),
        ("1G", Fraction(10**9)),
        ("1e3", Fraction(1000)),
        ("1E3", Fraction(1000)),
        ("1E", Fraction(10**18)),
        ("5n", Fraction(5, 10**9)),
        ("5u", Fraction(5, 10**6)),
        (".5", Fraction(1, 2)),
        ("-1", Fraction(-1)),
        ("+2", Fraction(2)),
        (3, Fraction(3)),
    ],
)
def test_parse(text: str, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("bad", ["", "abc", "1Qi", "1.2.3", "m", "1 Gi", "Gi", True])
def test_parse_rejects(bad: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(bad)  # type: ignore[arg-type]


def test_milli_value_rounds_up_like_go() -> None:
    assert milli_value("0.1m") == 1
    assert milli_value("1.0001") == 1001
    assert milli_value("250m") == 250
    assert milli_value("2") == 2000


def test_value_rounds_up_like_go() -> None:
    assert value("1.5") == 2
    assert value("100m") == 1
    assert value("1Gi") == 2**30
    assert value("0") == 0


def test_format_amount() -> None:
    assert format_amount("cpu", 1500) == "1500m"
    assert format_amount("cpu", 2000) == "2"
    assert format_amount("memory", 2**30) == "1Gi"
    assert format_amount("pods", 7) == "7"
