"""The subset of CEL that DRA device selectors use, evaluated as kube-scheduler v1.35 does.

Why not a library: the Python CEL packages on PyPI were tried.  ``cel-python`` takes
0.1-1 ms per evaluation (a 5,000-node cluster evaluates tens of thousands of
device/selector pairs per cycle) and its compiled runner fails with custom functions;
``common-expression-language`` cannot carry Kubernetes' ``quantity``/``semver`` object
types.  So the expressions are parsed here and compiled into Python closures.

Supported (everything else fails closed with a compile error in cel-go's wording,
``undeclared reference to 'f' (in container '')`` or a syntax error):

* literals: int (decimal, hex), uint (``1u``), double, string (quotes, triple quotes,
  raw ``r""``, escapes), bytes (``b""``), bool, null; lists ``[...]`` and maps ``{k: v}``;
* operators: ``! - * / % + - < <= > >= == != in && || ?:``, member selection ``a.f``,
  indexing ``a[k]``, optional selection ``a.?f`` / ``a[?k]``; ``&&``/``||`` are
  commutative over errors as in CEL (``false && error`` is false);
* equality is CEL's heterogeneous equality (``1 == 1.0``, ``"a" == 1`` is false);
  ordering compares numbers across int/uint/double, strings, bytes and bools;
* macros: ``has(a.f)``, ``all``, ``exists``, ``exists_one``, ``map`` (2 and 3 args),
  ``filter``, ``cel.bind``;
* functions: ``size``, ``int``, ``uint``, ``double``, ``string``, ``bool``, ``bytes``,
  ``type``, ``dyn``, ``matches``; strings: ``contains startsWith endsWith matches
  charAt indexOf lastIndexOf lowerAscii upperAscii replace split substring trim``,
  list ``join``; lists: ``isSorted sum min max indexOf lastIndexOf``;
  Kubernetes quantities: ``quantity isQuantity sign isInteger asInteger
  asApproximateFloat add sub isGreaterThan isLessThan compareTo``; semantic versions:
  ``semver isSemver major minor patch isGreaterThan isLessThan compareTo``;
  optionals: ``optional.of optional.none optional.ofNonZeroValue hasValue value
  orValue or``.

The DRA ``device`` variable is a map with ``driver``, ``attributes`` and ``capacity``;
looking up an unknown domain in ``attributes``/``capacity`` yields an empty map, as in
upstream, so ``device.attributes["x"].y`` fails with ``no such key: y``.

Not emulated: the runtime cost limit, two-variable comprehensions, protobuf messages,
timestamps and durations (all rejected at compile time, i.e. fail closed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from kschedx.core.api.quantity import QuantityError, parse_quantity

INT_MIN = -(2**63)
INT_MAX = 2**63 - 1
UINT_MAX = 2**64 - 1


class CelError(Exception):
    """A CEL compile or runtime error (the message is cel-go's wording where known)."""


class CelCompileError(CelError):
    pass


class CelEvalError(CelError):
    pass


# --------------------------------------------------------------------------- values


class UInt(int):
    """CEL's uint: kept apart from int so that ``type()`` and overloads can tell them apart."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CelType:
    name: str

    def __str__(self) -> str:
        return self.name


class CelQuantity:
    """A Kubernetes resource.Quantity as the CEL quantity library sees it."""

    __slots__ = ("value", "text")

    def __init__(self, value: Fraction, text: str = "") -> None:
        self.value = value
        self.text = text

    def __repr__(self) -> str:
        return f"quantity({self.text or str(self.value)!r})"


_SEMVER = re.compile(
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-((?:[0-9A-Za-z-]+)(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


class CelSemver:
    """A semantic version (strict semver 2.0.0, as blang/semver's Parse accepts it)."""

    __slots__ = ("major", "minor", "patch", "pre", "text")

    def __init__(self, text: str) -> None:
        m = _SEMVER.match(text)
        if m is None:
            raise CelEvalError(f"could not parse semver {text!r}")
        pre: list[int | str] = []
        if m.group(4):
            for part in m.group(4).split("."):
                if part.isdigit():
                    if len(part) > 1 and part[0] == "0":
                        raise CelEvalError(f"could not parse semver {text!r}: numeric prerelease with leading zero")
                    pre.append(int(part))
                else:
                    pre.append(part)
        self.major, self.minor, self.patch = int(m.group(1)), int(m.group(2)), int(m.group(3))
        self.pre = tuple(pre)
        self.text = text

    def compare(self, other: CelSemver) -> int:
        a = (self.major, self.minor, self.patch)
        b = (other.major, other.minor, other.patch)
        if a != b:
            return -1 if a < b else 1
        # A version without prerelease ranks above one with a prerelease.
        if not self.pre or not other.pre:
            return (len(other.pre) > 0) - (len(self.pre) > 0)
        for x, y in zip(self.pre, other.pre, strict=False):
            if x == y:
                continue
            if isinstance(x, int) and isinstance(y, int):
                return -1 if x < y else 1
            if isinstance(x, int):
                return -1  # numeric identifiers rank below alphanumeric ones
            if isinstance(y, int):
                return 1
            return -1 if x < y else 1
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __repr__(self) -> str:
        return f"semver({self.text!r})"


class CelOptional:
    __slots__ = ("value", "present")

    def __init__(self, value: Any = None, present: bool = False) -> None:
        self.value = value
        self.present = present


NONE = CelOptional()


class DefaultMap(dict[str, Any]):
    """A map whose unknown keys read as an empty map (DRA's attributes/capacity domains)."""

    __slots__ = ()


_EMPTY: dict[str, Any] = {}


def type_name(v: Any) -> str:
    if v is None:
        return "null_type"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, UInt):
        return "uint"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "double"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, list | tuple):
        return "list"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, CelQuantity):
        return "kubernetes.Quantity"
    if isinstance(v, CelSemver):
        return "kubernetes.Semver"
    if isinstance(v, CelOptional):
        return "optional_type"
    if isinstance(v, CelType):
        return "type"
    return type(v).__name__


def _no_overload(fn: str, *args: Any) -> CelEvalError:
    return CelEvalError(f"no such overload: {fn}({', '.join(type_name(a) for a in args)})")


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _check_int(v: int) -> int:
    if v < INT_MIN or v > INT_MAX:
        raise CelEvalError("integer overflow")
    return v


def _check_uint(v: int) -> UInt:
    if v < 0 or v > UINT_MAX:
        raise CelEvalError("unsigned integer overflow")
    return UInt(v)


def cel_equal(a: Any, b: Any) -> bool:
    """CEL's heterogeneous equality."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_num(a) and _is_num(b):
        return bool(a == b)  # Python compares int/float by value; NaN != NaN
    if isinstance(a, CelQuantity):
        if not isinstance(b, CelQuantity):
            raise _no_overload("_==_", a, b)
        return a.value == b.value
    if isinstance(a, CelSemver):
        if not isinstance(b, CelSemver):
            raise _no_overload("_==_", a, b)
        return a.compare(b) == 0
    if isinstance(a, str | bytes):
        return type(a) is type(b) and a == b
    if isinstance(a, list | tuple):
        if not isinstance(b, list | tuple) or len(a) != len(b):
            return False
        return all(cel_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in a.items():
            found, w = _map_find(b, k)
            if not found or not cel_equal(v, w):
                return False
        return True
    if isinstance(a, CelType):
        return isinstance(b, CelType) and a.name == b.name
    if isinstance(a, CelOptional):
        if not isinstance(b, CelOptional):
            return False
        if not a.present or not b.present:
            return a.present == b.present
        return cel_equal(a.value, b.value)
    return False


def _map_find(m: dict[Any, Any], k: Any) -> tuple[bool, Any]:
    if isinstance(k, bool):
        for key, v in m.items():
            if isinstance(key, bool) and key == k:
                return True, v
        return False, None
    if _is_num(k):
        if isinstance(k, float) and not k.is_integer():
            return False, None
        for key, v in m.items():
            if _is_num(key) and key == k:
                return True, v
        return False, None
    if k in m:
        return True, m[k]
    return False, None


def _compare(op: str, a: Any, b: Any) -> int:
    """-1/0/1 for ordered values of comparable types, else a no-overload error."""
    if _is_num(a) and _is_num(b):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            raise _NaN()
        return int(a > b) - int(a < b)
    if isinstance(a, bool) and isinstance(b, bool) or (
        type(a) is type(b) and isinstance(a, str | bytes)
    ):
        return int(a > b) - int(a < b)
    raise _no_overload(op, a, b)


class _NaN(Exception):
    pass


def _index(container: Any, key: Any) -> Any:
    if isinstance(container, CelOptional):
        if not container.present:
            return NONE
        found, v = _opt_index(container.value, key)
        return CelOptional(v, True) if found else NONE
    if isinstance(container, list | tuple):
        if isinstance(key, bool) or not _is_num(key) or (isinstance(key, float) and not key.is_integer()):
            raise _no_overload("_[_]", container, key)
        i = int(key)
        if i < 0 or i >= len(container):
            raise CelEvalError(f"index out of bounds: {i}")
        return container[i]
    if isinstance(container, dict):
        found, v = _map_find(container, key)
        if found:
            return v
        if isinstance(container, DefaultMap):
            return _EMPTY
        raise CelEvalError(f"no such key: {_fmt_key(key)}")
    raise _no_overload("_[_]", container, key)


def _opt_index(container: Any, key: Any) -> tuple[bool, Any]:
    if isinstance(container, dict):
        found, v = _map_find(container, key)
        if not found and isinstance(container, DefaultMap):
            return True, _EMPTY
        return found, v
    if isinstance(container, list | tuple):
        if _is_num(key) and not isinstance(key, bool) and 0 <= int(key) < len(container):
            return True, container[int(key)]
        return False, None
    raise _no_overload("_[?_]", container, key)


def _fmt_key(k: Any) -> str:
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k)


def _select(obj: Any, field: str) -> Any:
    if isinstance(obj, CelOptional):
        if not obj.present:
            return NONE
        found, v = _opt_index(obj.value, field)
        return CelOptional(v, True) if found else NONE
    if isinstance(obj, dict):
        if field in obj:
            return obj[field]
        if isinstance(obj, DefaultMap):
            return _EMPTY
        raise CelEvalError(f"no such key: {field}")
    raise CelEvalError(f"type '{type_name(obj)}' does not support field selection")


def _has(obj: Any, field: str) -> bool:
    if isinstance(obj, dict):
        return field in obj
    raise CelEvalError(f"invalid type for field selection: {type_name(obj)}")


def _in(elem: Any, container: Any) -> bool:
    if isinstance(container, list | tuple):
        return any(cel_equal(elem, x) for x in container)
    if isinstance(container, dict):
        return _map_find(container, elem)[0]
    raise _no_overload("@in", elem, container)


# --------------------------------------------------------------------------- arithmetic


def _add(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        return _check_int(a + b)
    if type(a) is UInt and type(b) is UInt:
        return _check_uint(a + b)
    if type(a) is float and type(b) is float:
        return a + b
    if type(a) is str and type(b) is str:
        return a + b
    if type(a) is bytes and type(b) is bytes:
        return a + b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return list(a) + list(b)
    raise _no_overload("_+_", a, b)


def _sub(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        return _check_int(a - b)
    if type(a) is UInt and type(b) is UInt:
        return _check_uint(a - b)
    if type(a) is float and type(b) is float:
        return a - b
    raise _no_overload("_-_", a, b)


def _mul(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        return _check_int(a * b)
    if type(a) is UInt and type(b) is UInt:
        return _check_uint(a * b)
    if type(a) is float and type(b) is float:
        return a * b
    raise _no_overload("_*_", a, b)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _div(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int or type(a) is UInt and type(b) is UInt:
        if b == 0:
            raise CelEvalError("division by zero")
        r = _trunc_div(a, b)
        return _check_uint(r) if type(a) is UInt else _check_int(r)
    if type(a) is float and type(b) is float:
        if b == 0:
            return math.copysign(math.inf, a) * math.copysign(1, b) if a != 0 and not math.isnan(a) else math.nan
        return a / b
    raise _no_overload("_/_", a, b)


def _mod(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int or type(a) is UInt and type(b) is UInt:
        if b == 0:
            raise CelEvalError("modulus by zero")
        r = a - _trunc_div(a, b) * b
        return UInt(r) if type(a) is UInt else r
    raise _no_overload("_%_", a, b)


def _neg(a: Any) -> Any:
    if type(a) is int:
        return _check_int(-a)
    if type(a) is float:
        return -a
    raise _no_overload("-_", a)


def _not(a: Any) -> Any:
    if isinstance(a, bool):
        return not a
    raise _no_overload("!_", a)


# --------------------------------------------------------------------------- functions


def _size(v: Any) -> int:
    if isinstance(v, str):
        return len(v)
    if isinstance(v, bytes | list | tuple | dict):
        return len(v)
    raise _no_overload("size", v)


def _to_int(v: Any) -> int:
    if isinstance(v, bool):
        raise _no_overload("int", v)
    if isinstance(v, int):
        return _check_int(int(v))
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v) or v <= -(2.0**63) or v >= 2.0**63:
            raise CelEvalError("integer overflow")
        return int(v)
    if isinstance(v, str):
        try:
            return _check_int(int(v, 10))
        except ValueError:
            raise CelEvalError(f"invalid int literal: {v!r}") from None
    raise _no_overload("int", v)


def _to_uint(v: Any) -> UInt:
    if isinstance(v, bool):
        raise _no_overload("uint", v)
    if isinstance(v, int):
        return _check_uint(int(v))
    if isinstance(v, float):
        if math.isnan(v) or v < 0 or v >= 2.0**64:
            raise CelEvalError("unsigned integer overflow")
        return UInt(int(v))
    if isinstance(v, str):
        try:
            return _check_uint(int(v, 10))
        except ValueError:
            raise CelEvalError(f"invalid uint literal: {v!r}") from None
    raise _no_overload("uint", v)


def _to_double(v: Any) -> float:
    if isinstance(v, bool):
        raise _no_overload("double", v)
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            raise CelEvalError(f"invalid double literal: {v!r}") from None
    raise _no_overload("double", v)


def _fmt_double(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v.is_integer() and abs(v) < 1e21:
        return str(int(v))
    return repr(v)


def _to_string(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return _fmt_double(v)
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise CelEvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if isinstance(v, CelSemver):
        return v.text
    raise _no_overload("string", v)


def _to_bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        if v in ("true", "True", "TRUE", "t", "1"):
            return True
        if v in ("false", "False", "FALSE", "f", "0"):
            return False
        raise CelEvalError(f"type conversion error from 'string' to 'bool': {v!r}")
    raise _no_overload("bool", v)


def _to_bytes(v: Any) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    raise _no_overload("bytes", v)


def _type_of(v: Any) -> CelType:
    return CelType(type_name(v))


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as e:
        raise CelEvalError(f"error parsing regexp: {e}") from None


def _matches(s: Any, pattern: Any) -> bool:
    if not isinstance(s, str) or not isinstance(pattern, str):
        raise _no_overload("matches", s, pattern)
    return _regex(pattern).search(s) is not None


def _parse_quantity(s: Any) -> CelQuantity:
    if not isinstance(s, str):
        raise _no_overload("quantity", s)
    if s != s.strip() or not s:
        raise CelEvalError(
            f"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got {s!r}"
        )
    try:
        return CelQuantity(parse_quantity(s), s)
    except QuantityError as e:
        raise CelEvalError(str(e)) from None


def _is_quantity(s: Any) -> bool:
    if not isinstance(s, str):
        raise _no_overload("isQuantity", s)
    try:
        _parse_quantity(s)
    except CelEvalError:
        return False
    return True


def _parse_semver(s: Any) -> CelSemver:
    if not isinstance(s, str):
        raise _no_overload("semver", s)
    return CelSemver(s)


def _is_semver(s: Any) -> bool:
    if not isinstance(s, str):
        raise _no_overload("isSemver", s)
    try:
        CelSemver(s)
    except CelEvalError:
        return False
    return True


def _q_operand(fn: str, q: CelQuantity, other: Any) -> Fraction:
    if isinstance(other, CelQuantity):
        return other.value
    if type(other) is int:
        return Fraction(other)
    raise _no_overload(fn, q, other)


def _quantity_method(name: str, q: CelQuantity, args: list[Any]) -> Any:
    if name == "sign" and not args:
        return (q.value > 0) - (q.value < 0)
    if name == "isInteger" and not args:
        # Go's Quantity.AsInt64 works when the value is an integer inside int64.
        return q.value.denominator == 1 and INT_MIN <= q.value <= INT_MAX
    if name == "asInteger" and not args:
        if q.value.denominator != 1 or not INT_MIN <= q.value <= INT_MAX:
            raise CelEvalError("cannot convert value to integer")
        return int(q.value)
    if name == "asApproximateFloat" and not args:
        return float(q.value)
    if len(args) == 1:
        other = args[0]
        if name in ("add", "sub"):
            v = _q_operand(name, q, other)
            return CelQuantity(q.value + v if name == "add" else q.value - v)
        if name in ("isGreaterThan", "isLessThan", "compareTo"):
            if not isinstance(other, CelQuantity):
                raise _no_overload(name, q, other)
            c = (q.value > other.value) - (q.value < other.value)
            if name == "compareTo":
                return c
            return c > 0 if name == "isGreaterThan" else c < 0
    raise _no_overload(name, q, *args)


def _semver_method(name: str, v: CelSemver, args: list[Any]) -> Any:
    if not args:
        if name == "major":
            return v.major
        if name == "minor":
            return v.minor
        if name == "patch":
            return v.patch
    if len(args) == 1 and name in ("isGreaterThan", "isLessThan", "compareTo"):
        other = args[0]
        if not isinstance(other, CelSemver):
            raise _no_overload(name, v, other)
        c = v.compare(other)
        if name == "compareTo":
            return c
        return c > 0 if name == "isGreaterThan" else c < 0
    raise _no_overload(name, v, *args)


def _string_method(name: str, s: str, args: list[Any]) -> Any:
    n = len(args)
    if name == "contains" and n == 1 and isinstance(args[0], str):
        return args[0] in s
    if name == "startsWith" and n == 1 and isinstance(args[0], str):
        return s.startswith(args[0])
    if name == "endsWith" and n == 1 and isinstance(args[0], str):
        return s.endswith(args[0])
    if name == "matches" and n == 1:
        return _matches(s, args[0])
    if name == "size" and n == 0:
        return len(s)
    if name == "lowerAscii" and n == 0:
        return "".join(c.lower() if "A" <= c <= "Z" else c for c in s)
    if name == "upperAscii" and n == 0:
        return "".join(c.upper() if "a" <= c <= "z" else c for c in s)
    if name == "trim" and n == 0:
        return s.strip()
    if name == "charAt" and n == 1 and type(args[0]) is int:
        i = args[0]
        if i < 0 or i > len(s):
            raise CelEvalError(f"index out of range: {i}")
        return s[i] if i < len(s) else ""
    if name in ("indexOf", "lastIndexOf") and n in (1, 2) and isinstance(args[0], str):
        if n == 2:
            if type(args[1]) is not int:
                raise _no_overload(name, s, *args)
            start = args[1]
            if start < 0 or start > len(s):
                raise CelEvalError(f"index out of range: {start}")
            return s.find(args[0], start) if name == "indexOf" else s.rfind(args[0], 0, start + len(args[0]))
        return s.find(args[0]) if name == "indexOf" else s.rfind(args[0])
    if name == "replace" and n in (2, 3) and isinstance(args[0], str) and isinstance(args[1], str):
        count = -1
        if n == 3:
            if type(args[2]) is not int:
                raise _no_overload(name, s, *args)
            count = args[2]
        return s.replace(args[0], args[1], count if count >= 0 else -1)
    if name == "split" and n in (1, 2) and isinstance(args[0], str):
        limit = -1
        if n == 2:
            if type(args[1]) is not int:
                raise _no_overload(name, s, *args)
            limit = args[1]
        if limit == 0:
            return []
        if args[0] == "":
            parts = list(s)
            if limit > 0 and len(parts) > limit:
                parts = parts[: limit - 1] + ["".join(parts[limit - 1:])]
            return parts
        return s.split(args[0], limit - 1 if limit > 0 else -1)
    if name == "substring" and n in (1, 2) and all(type(a) is int for a in args):
        start = args[0]
        end = args[1] if n == 2 else len(s)
        if start < 0 or start > len(s) or end < start or end > len(s):
            raise CelEvalError(f"index out of range: {start if start < 0 or start > len(s) else end}")
        return s[start:end]
    raise _no_overload(name, s, *args)


def _list_method(name: str, lst: list[Any], args: list[Any]) -> Any:
    n = len(args)
    if name == "size" and n == 0:
        return len(lst)
    if name == "join" and n in (0, 1):
        sep = args[0] if n else ""
        if not isinstance(sep, str) or not all(isinstance(x, str) for x in lst):
            raise _no_overload(name, lst, *args)
        return sep.join(lst)
    if name == "isSorted" and n == 0:
        return all(_compare("isSorted", lst[i], lst[i + 1]) <= 0 for i in range(len(lst) - 1))
    if name == "sum" and n == 0:
        total: Any = 0
        for i, x in enumerate(lst):
            total = x if i == 0 else _add(total, x)
        return total
    if name in ("min", "max") and n == 0:
        if not lst:
            raise CelEvalError(f"{name} called on empty list")
        best = lst[0]
        for x in lst[1:]:
            c = _compare(name, x, best)
            if (c < 0 and name == "min") or (c > 0 and name == "max"):
                best = x
        return best
    if name in ("indexOf", "lastIndexOf") and n == 1:
        idx = range(len(lst)) if name == "indexOf" else range(len(lst) - 1, -1, -1)
        for i in idx:
            if cel_equal(lst[i], args[0]):
                return i
        return -1
    raise _no_overload(name, lst, *args)


def _optional_method(name: str, o: CelOptional, args: list[Any]) -> Any:
    n = len(args)
    if name == "hasValue" and n == 0:
        return o.present
    if name == "value" and n == 0:
        if not o.present:
            raise CelEvalError("optional.none() dereference")
        return o.value
    if name == "orValue" and n == 1:
        return o.value if o.present else args[0]
    if name == "or" and n == 1:
        if not isinstance(args[0], CelOptional):
            raise _no_overload(name, o, *args)
        return o if o.present else args[0]
    raise _no_overload(name, o, *args)


def _call_method(name: str, target: Any, args: list[Any]) -> Any:
    if isinstance(target, str):
        return _string_method(name, target, args)
    if isinstance(target, CelQuantity):
        return _quantity_method(name, target, args)
    if isinstance(target, CelSemver):
        return _semver_method(name, target, args)
    if isinstance(target, list | tuple):
        return _list_method(name, list(target), args)
    if isinstance(target, CelOptional):
        return _optional_method(name, target, args)
    if name == "size" and not args:
        return _size(target)
    raise _no_overload(name, target, *args)


def _non_zero(v: Any) -> bool:
    if v is None:
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float):
        return v != 0
    if isinstance(v, str | bytes | list | tuple | dict):
        return len(v) > 0
    return True


_GLOBAL_FUNCS: dict[str, tuple[tuple[int, ...], Callable[..., Any]]] = {
    "size": ((1,), _size),
    "int": ((1,), _to_int),
    "uint": ((1,), _to_uint),
    "double": ((1,), _to_double),
    "string": ((1,), _to_string),
    "bool": ((1,), _to_bool),
    "bytes": ((1,), _to_bytes),
    "type": ((1,), _type_of),
    "dyn": ((1,), lambda v: v),
    "matches": ((2,), _matches),
    "quantity": ((1,), _parse_quantity),
    "isQuantity": ((1,), _is_quantity),
    "semver": ((1,), _parse_semver),
    "isSemver": ((1,), _is_semver),
    "optional.of": ((1,), lambda v: CelOptional(v, True)),
    "optional.none": ((0,), lambda: NONE),
    "optional.ofNonZeroValue": ((1,), lambda v: CelOptional(v, True) if _non_zero(v) else NONE),
}

_METHODS = frozenset(
    {
        "contains", "startsWith", "endsWith", "matches", "size", "lowerAscii", "upperAscii", "trim",
        "charAt", "indexOf", "lastIndexOf", "replace", "split", "substring", "join", "isSorted", "sum",
        "min", "max", "sign", "isInteger", "asInteger", "asApproximateFloat", "add", "sub",
        "isGreaterThan", "isLessThan", "compareTo", "major", "minor", "patch", "hasValue", "value",
        "orValue", "or",
    }
)

_TYPE_IDENTS = {
    "int": "int", "uint": "uint", "double": "double", "string": "string", "bool": "bool",
    "bytes": "bytes", "list": "list", "map": "map", "null_type": "null_type", "type": "type",
}

# --------------------------------------------------------------------------- lexer

_RESERVED = frozenset(
    {
        "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop",
        "package", "namespace", "return", "var", "void", "while",
    }
)

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n\f]+|//[^\n]*)
  | (?P<float>(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?))
  | (?P<hex>0[xX][0-9a-fA-F]+[uU]?)
  | (?P<int>[0-9]+[uU]?)
  | (?P<str>(?:[rR][bB]?|[bB][rR]?)?(?:\"\"\"(?:[^\\]|\\.)*?\"\"\"|'''(?:[^\\]|\\.)*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))
  | (?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
  | (?P<op>\.\?|\[\?|==|!=|<=|>=|&&|\|\||[-+*/%!<>?:.,\[\](){}])
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(slots=True)
class Token:
    kind: str
    text: str
    pos: int


def _tokenize(src: str) -> list[Token]:
    out: list[Token] = []
    i = 0
    while i < len(src):
        m = _TOKEN.match(src, i)
        if m is None:
            raise _syntax(src, i, f"token recognition error at: '{src[i]}'")
        kind = m.lastgroup or ""
        if kind != "ws":
            out.append(Token(kind, m.group(), i))
        i = m.end()
    out.append(Token("eof", "", len(src)))
    return out


def _location(src: str, pos: int) -> tuple[int, int, str]:
    line = src.count("\n", 0, pos) + 1
    start = src.rfind("\n", 0, pos) + 1
    end = src.find("\n", pos)
    text = src[start:] if end < 0 else src[start:end]
    return line, pos - start, text


def _issue(src: str, pos: int, msg: str) -> str:
    line, col, text = _location(src, pos)
    return f"ERROR: <input>:{line}:{col + 1}: {msg}\n | {text}\n | {'.' * col}^"


def _syntax(src: str, pos: int, msg: str) -> CelCompileError:
    return CelCompileError("compilation failed: " + _issue(src, pos, f"Syntax error: {msg}"))


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "\\": "\\", "?": "?", '"': '"', "'": "'", "`": "`"}


def _unquote(src: str, tok: Token) -> str | bytes:
    text = tok.text
    prefix = ""
    while text[0] not in "\"'":
        prefix += text[0].lower()
        text = text[1:]
    q = 3 if text[:3] in ('"""', "'''") else 1
    body = text[q:-q]
    raw = "r" in prefix
    is_bytes = "b" in prefix
    if raw:
        return body.encode("utf-8") if is_bytes else body
    chars: list[str] = []
    byts: list[int] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            if is_bytes:
                byts.extend(c.encode("utf-8"))
            else:
                chars.append(c)
            i += 1
            continue
        i += 1
        if i >= len(body):
            raise _syntax(src, tok.pos, "invalid escape sequence")
        e = body[i]
        if e in _ESCAPES:
            if is_bytes:
                byts.extend(_ESCAPES[e].encode())
            else:
                chars.append(_ESCAPES[e])
            i += 1
        elif e in "xX" or e in "uU":
            width = {"x": 2, "X": 2, "u": 4, "U": 8}[e]
            if e in "uU" and is_bytes:
                raise _syntax(src, tok.pos, "unicode escape in bytes literal")
            digits = body[i + 1:i + 1 + width]
            if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise _syntax(src, tok.pos, "invalid escape sequence")
            v = int(digits, 16)
            if is_bytes:
                byts.append(v)
            else:
                if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                    raise _syntax(src, tok.pos, "invalid unicode code point")
                chars.append(chr(v))
            i += 1 + width
        elif e in "0123":
            digits = body[i:i + 3]
            if len(digits) != 3 or not all(d in "01234567" for d in digits):
                raise _syntax(src, tok.pos, "invalid escape sequence")
            v = int(digits, 8)
            if is_bytes:
                byts.append(v)
            else:
                chars.append(chr(v))
            i += 3
        else:
            raise _syntax(src, tok.pos, f"invalid escape sequence '\\{e}'")
    return bytes(byts) if is_bytes else "".join(chars)


# --------------------------------------------------------------------------- AST


@dataclass(slots=True)
class Node:
    kind: str  # lit, ident, select, optselect, index, optindex, call, list, map, cond, and, or, not, neg
    pos: int
    value: Any = None
    args: list[Node] | None = None
    target: Node | None = None
    name: str = ""


class _Parser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.toks = _tokenize(src)
        self.i = 0
        self.depth = 0

    def peek(self) -> Token:
        return self.toks[self.i]

    def next(self) -> Token:
        t = self.toks[self.i]
        self.i += 1
        return t

    def accept(self, text: str) -> bool:
        t = self.toks[self.i]
        if t.kind == "op" and t.text == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> Token:
        t = self.peek()
        if t.kind == "op" and t.text == text:
            self.i += 1
            return t
        raise _syntax(self.src, t.pos, f"mismatched input '{t.text or '<EOF>'}' expecting '{text}'")

    def parse(self) -> Node:
        n = self.expr()
        t = self.peek()
        if t.kind != "eof":
            raise _syntax(self.src, t.pos, f"extraneous input '{t.text}' expecting <EOF>")
        return n

    def expr(self) -> Node:
        self.depth += 1
        if self.depth > 250:
            raise _syntax(self.src, self.peek().pos, "expression recursion limit exceeded")
        cond = self.or_()
        if self.accept("?"):
            pos = self.toks[self.i - 1].pos
            a = self.or_()
            self.expect(":")
            b = self.expr()
            cond = Node("cond", pos, args=[cond, a, b])
        self.depth -= 1
        return cond

    def or_(self) -> Node:
        n = self.and_()
        while self.accept("||"):
            pos = self.toks[self.i - 1].pos
            n = Node("or", pos, args=[n, self.and_()])
        return n

    def and_(self) -> Node:
        n = self.rel()
        while self.accept("&&"):
            pos = self.toks[self.i - 1].pos
            n = Node("and", pos, args=[n, self.rel()])
        return n

    def rel(self) -> Node:
        n = self.add()
        while True:
            t = self.peek()
            if t.kind == "op" and t.text in ("==", "!=", "<", "<=", ">", ">="):
                self.next()
                n = Node("call", t.pos, name=t.text, args=[n, self.add()])
            elif t.kind == "ident" and t.text == "in":
                self.next()
                n = Node("call", t.pos, name="in", args=[n, self.add()])
            else:
                return n

    def add(self) -> Node:
        n = self.mul()
        while True:
            t = self.peek()
            if t.kind == "op" and t.text in ("+", "-"):
                self.next()
                n = Node("call", t.pos, name=t.text, args=[n, self.mul()])
            else:
                return n

    def mul(self) -> Node:
        n = self.unary()
        while True:
            t = self.peek()
            if t.kind == "op" and t.text in ("*", "/", "%"):
                self.next()
                n = Node("call", t.pos, name=t.text, args=[n, self.unary()])
            else:
                return n

    def unary(self) -> Node:
        t = self.peek()
        if t.kind == "op" and t.text == "!":
            self.next()
            return Node("not", t.pos, args=[self.unary()])
        if t.kind == "op" and t.text == "-":
            self.next()
            nxt = self.peek()
            if nxt.kind in ("int", "float", "hex") and not self._followed_by_member():
                self.next()
                return self._number(nxt, negative=True)
            return Node("neg", t.pos, args=[self.unary()])
        return self.member()

    def _followed_by_member(self) -> bool:
        after = self.toks[self.i + 1]
        return after.kind == "op" and after.text in (".", "[", ".?", "[?")

    def member(self) -> Node:
        n = self.primary()
        while True:
            t = self.peek()
            if t.kind != "op":
                return n
            if t.text in (".", ".?"):
                self.next()
                ident = self.next()
                if ident.kind != "ident":
                    raise _syntax(self.src, ident.pos, f"no viable alternative at input '.{ident.text}'")
                if t.text == "." and self.accept("("):
                    args = self.args(")")
                    n = Node("call", ident.pos, name=ident.text, target=n, args=args)
                else:
                    n = Node("select" if t.text == "." else "optselect", t.pos, name=ident.text, target=n)
            elif t.text in ("[", "[?"):
                self.next()
                idx = self.expr()
                self.expect("]")
                n = Node("index" if t.text == "[" else "optindex", t.pos, target=n, args=[idx])
            else:
                return n

    def args(self, close: str) -> list[Node]:
        out: list[Node] = []
        if self.accept(close):
            return out
        while True:
            out.append(self.expr())
            if self.accept(close):
                return out
            self.expect(",")
            if self.accept(close):  # trailing comma
                return out

    def _number(self, t: Token, negative: bool = False) -> Node:
        text = t.text
        if t.kind == "float":
            v = float(text)
            return Node("lit", t.pos, value=-v if negative else v)
        unsigned = text[-1] in "uU"
        if unsigned:
            text = text[:-1]
            if negative:
                raise _syntax(self.src, t.pos, f"invalid uint literal: -{t.text}")
        iv = int(text, 16) if t.kind == "hex" else int(text, 10)
        if negative:
            iv = -iv
        if unsigned:
            if iv > UINT_MAX:
                raise _syntax(self.src, t.pos, f"invalid uint literal: {t.text}")
            return Node("lit", t.pos, value=UInt(iv))
        if iv < INT_MIN or iv > INT_MAX:
            raise _syntax(self.src, t.pos, f"invalid int literal: {t.text}")
        return Node("lit", t.pos, value=iv)

    def primary(self) -> Node:
        t = self.next()
        if t.kind in ("int", "float", "hex"):
            return self._number(t)
        if t.kind == "str":
            return Node("lit", t.pos, value=_unquote(self.src, t))
        if t.kind == "ident":
            if t.text in _RESERVED:
                raise _syntax(self.src, t.pos, f"reserved identifier: {t.text}")
            if t.text in ("true", "false"):
                return Node("lit", t.pos, value=t.text == "true")
            if t.text == "null":
                return Node("lit", t.pos, value=None)
            if self.accept("("):
                return Node("call", t.pos, name=t.text, args=self.args(")"))
            if self.peek().kind == "op" and self.peek().text == "{":
                raise _syntax(self.src, t.pos, "message construction is not supported")
            return Node("ident", t.pos, name=t.text)
        if t.kind == "op":
            if t.text == "(":
                n = self.expr()
                self.expect(")")
                return n
            if t.text == "[":
                return Node("list", t.pos, args=self.args("]"))
            if t.text == "{":
                items: list[Node] = []
                if not self.accept("}"):
                    while True:
                        items.append(self.expr())
                        self.expect(":")
                        items.append(self.expr())
                        if self.accept("}"):
                            break
                        self.expect(",")
                        if self.accept("}"):
                            break
                return Node("map", t.pos, args=items)
            if t.text == ".":
                ident = self.next()
                if ident.kind == "ident":
                    return Node("ident", ident.pos, name=ident.text)
        raise _syntax(self.src, t.pos, f"mismatched input '{t.text or '<EOF>'}' expecting an expression")


# --------------------------------------------------------------------------- compiler

Act = Mapping[str, Any]
Fn = Callable[[Act], Any]


def _qualified(n: Node) -> str | None:
    """The dotted name of a select chain on an identifier (``optional.of``), if any."""
    if n.kind == "ident":
        return n.name
    if n.kind == "select" and n.target is not None:
        base = _qualified(n.target)
        return f"{base}.{n.name}" if base else None
    return None


class _Compiler:
    def __init__(self, src: str, variables: frozenset[str]) -> None:
        self.src = src
        self.variables = variables

    def err(self, n: Node, msg: str) -> CelCompileError:
        return CelCompileError("compilation failed: " + _issue(self.src, n.pos, msg))

    def undeclared(self, n: Node, name: str) -> CelCompileError:
        return self.err(n, f"undeclared reference to '{name}' (in container '')")

    def compile(self, n: Node, scope: frozenset[str]) -> Fn:
        k = n.kind
        if k == "lit":
            v = n.value
            return lambda act: v
        if k == "ident":
            name = n.name
            if name in scope or name in self.variables:
                return lambda act: act[name]
            if name in _TYPE_IDENTS:
                t = CelType(_TYPE_IDENTS[name])
                return lambda act: t
            raise self.undeclared(n, name)
        if k == "select":
            assert n.target is not None
            q = _qualified(n)
            if q is not None and n.target.kind == "ident" and n.target.name not in scope and n.target.name not in self.variables:
                raise self.undeclared(n, q)
            tf = self.compile(n.target, scope)
            field = n.name
            return lambda act: _select(tf(act), field)
        if k == "optselect":
            assert n.target is not None
            tf = self.compile(n.target, scope)
            field = n.name

            def optselect(act: Act) -> Any:
                obj = tf(act)
                if isinstance(obj, CelOptional):
                    if not obj.present:
                        return NONE
                    obj = obj.value
                found, v = _opt_index(obj, field) if isinstance(obj, dict) else (False, None)
                if not isinstance(obj, dict):
                    raise CelEvalError(f"type '{type_name(obj)}' does not support field selection")
                return CelOptional(v, True) if found else NONE

            return optselect
        if k in ("index", "optindex"):
            assert n.target is not None and n.args is not None
            tf = self.compile(n.target, scope)
            kf = self.compile(n.args[0], scope)
            if k == "index":
                return lambda act: _index(tf(act), kf(act))

            def optindex(act: Act) -> Any:
                obj = tf(act)
                if isinstance(obj, CelOptional):
                    if not obj.present:
                        return NONE
                    obj = obj.value
                found, v = _opt_index(obj, kf(act))
                return CelOptional(v, True) if found else NONE

            return optindex
        if k == "list":
            fs = [self.compile(a, scope) for a in n.args or []]
            return lambda act: [f(act) for f in fs]
        if k == "map":
            pairs = n.args or []
            kfs = [self.compile(pairs[i], scope) for i in range(0, len(pairs), 2)]
            vfs = [self.compile(pairs[i], scope) for i in range(1, len(pairs), 2)]

            def mk_map(act: Act) -> dict[Any, Any]:
                out: dict[Any, Any] = {}
                for kf2, vf2 in zip(kfs, vfs, strict=True):
                    key = kf2(act)
                    if not isinstance(key, str | int | bool) or isinstance(key, float):
                        raise CelEvalError(f"unsupported key type: {type_name(key)}")
                    if _map_find(out, key)[0]:
                        raise CelEvalError(f"Failed with repeated key: {_fmt_key(key)}")
                    out[key] = vf2(act)
                return out

            return mk_map
        if k == "cond":
            assert n.args is not None
            cf, af, bf = (self.compile(a, scope) for a in n.args)

            def cond(act: Act) -> Any:
                c = cf(act)
                if not isinstance(c, bool):
                    raise _no_overload("_?_:_", c)
                return af(act) if c else bf(act)

            return cond
        if k in ("and", "or"):
            assert n.args is not None
            lf, rf = (self.compile(a, scope) for a in n.args)
            short = k == "or"  # the value that decides the result on its own
            op = "_||_" if short else "_&&_"

            def logic(act: Act) -> Any:
                lerr: CelEvalError | None = None
                try:
                    lv = lf(act)
                    if lv is short:
                        return short
                    if not isinstance(lv, bool):
                        lerr = _no_overload(op, lv)
                except CelEvalError as e:
                    lerr = e
                rv = rf(act)
                if rv is short:
                    return short
                if not isinstance(rv, bool):
                    raise _no_overload(op, rv)
                if lerr is not None:
                    raise lerr
                return not short

            return logic
        if k == "not":
            assert n.args is not None
            f = self.compile(n.args[0], scope)
            return lambda act: _not(f(act))
        if k == "neg":
            assert n.args is not None
            f = self.compile(n.args[0], scope)
            return lambda act: _neg(f(act))
        if k == "call":
            return self.call(n, scope)
        raise self.err(n, f"unsupported expression {k}")

    def call(self, n: Node, scope: frozenset[str]) -> Fn:
        args = n.args or []
        name = n.name
        if n.target is None:
            binop = _BINARY_OPS.get(name)
            if binop is not None and len(args) == 2:
                lf, rf = self.compile(args[0], scope), self.compile(args[1], scope)
                return lambda act: binop(lf(act), rf(act))
            if name == "has":
                if len(args) != 1 or args[0].kind != "select" or args[0].target is None:
                    raise self.err(n, "invalid argument to has() macro")
                tf = self.compile(args[0].target, scope)
                field = args[0].name
                return lambda act: _has(tf(act), field)
            entry = _GLOBAL_FUNCS.get(name)
            if entry is None:
                raise self.undeclared(n, name)
            return self._global(n, name, entry, args, scope)
        # Namespaced global functions and macros: optional.of(x), cel.bind(v, init, expr).
        q = _qualified(n.target)
        if q is not None and n.target.kind == "ident" and n.target.name not in scope and n.target.name not in self.variables:
            full = f"{q}.{name}"
            if full == "cel.bind":
                if len(args) != 3 or args[0].kind != "ident":
                    raise self.err(n, "cel.bind() variable name must be a simple identifier")
                var = args[0].name
                init = self.compile(args[1], scope)
                body = self.compile(args[2], scope | {var})

                def bind(act: Act) -> Any:
                    return body({**act, var: init(act)})

                return bind
            entry = _GLOBAL_FUNCS.get(full)
            if entry is None:
                raise self.undeclared(n, full)
            return self._global(n, full, entry, args, scope)
        if name in _MACROS:
            return self.macro(n, scope)
        if name not in _METHODS:
            raise self.undeclared(n, name)
        tf = self.compile(n.target, scope)
        afs = [self.compile(a, scope) for a in args]
        return lambda act: _call_method(name, tf(act), [f(act) for f in afs])

    def _global(self, n: Node, name: str, entry: tuple[tuple[int, ...], Callable[..., Any]],
                args: list[Node], scope: frozenset[str]) -> Fn:
        arities, fn = entry
        if len(args) not in arities:
            raise self.err(n, f"found no matching overload for '{name}' applied to {len(args)} argument(s)")
        afs = [self.compile(a, scope) for a in args]
        if len(afs) == 1:
            f0 = afs[0]
            return lambda act: fn(f0(act))
        return lambda act: fn(*[f(act) for f in afs])

    def macro(self, n: Node, scope: frozenset[str]) -> Fn:
        assert n.target is not None
        args = n.args or []
        name = n.name
        if len(args) == 3 and name == "map":
            pass
        elif len(args) != 2:
            raise self.err(n, f"found no matching overload for '{name}' applied to {len(args)} argument(s)")
        if args[0].kind != "ident":
            raise self.err(args[0], "argument must be a simple name")
        var = args[0].name
        rng = self.compile(n.target, scope)
        inner = scope | {var}
        pred = self.compile(args[1], inner)
        xform = self.compile(args[2], inner) if len(args) == 3 else None

        def items(act: Act) -> list[Any]:
            r = rng(act)
            if isinstance(r, list | tuple):
                return list(r)
            if isinstance(r, dict):
                return list(r.keys())
            raise _no_overload(name, r)

        if name in ("all", "exists"):
            decisive = name == "exists"  # value that ends the loop

            def quantifier(act: Act) -> bool:
                err: CelEvalError | None = None
                for x in items(act):
                    try:
                        v = pred({**act, var: x})
                    except CelEvalError as e:
                        err = err or e
                        continue
                    if not isinstance(v, bool):
                        err = err or _no_overload(name, v)
                        continue
                    if v is decisive:
                        return decisive
                if err is not None:
                    raise err
                return not decisive

            return quantifier
        if name == "exists_one":

            def exists_one(act: Act) -> bool:
                count = 0
                for x in items(act):
                    v = pred({**act, var: x})
                    if not isinstance(v, bool):
                        raise _no_overload(name, v)
                    count += v
                return count == 1

            return exists_one
        if name == "filter":

            def filt(act: Act) -> list[Any]:
                out = []
                for x in items(act):
                    v = pred({**act, var: x})
                    if not isinstance(v, bool):
                        raise _no_overload(name, v)
                    if v:
                        out.append(x)
                return out

            return filt
        # map
        if xform is None:
            return lambda act: [pred({**act, var: x}) for x in items(act)]
        tf = xform

        def map3(act: Act) -> list[Any]:
            out = []
            for x in items(act):
                a2 = {**act, var: x}
                v = pred(a2)
                if not isinstance(v, bool):
                    raise _no_overload(name, v)
                if v:
                    out.append(tf(a2))
            return out

        return map3


def _cmp_op(op: str, test: Callable[[int], bool]) -> Callable[[Any, Any], bool]:
    def f(a: Any, b: Any) -> bool:
        try:
            return test(_compare(op, a, b))
        except _NaN:
            return False

    return f


_BINARY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "==": cel_equal,
    "!=": lambda a, b: not cel_equal(a, b),
    "<": _cmp_op("_<_", lambda c: c < 0),
    "<=": _cmp_op("_<=_", lambda c: c <= 0),
    ">": _cmp_op("_>_", lambda c: c > 0),
    ">=": _cmp_op("_>=_", lambda c: c >= 0),
    "in": _in,
    "+": _add,
    "-": _sub,
    "*": _mul,
    "/": _div,
    "%": _mod,
}

_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})


@dataclass(frozen=True, slots=True)
class Program:
    expression: str
    fn: Fn

    def evaluate(self, activation: Act) -> Any:
        try:
            return self.fn(activation)
        except RecursionError:
            raise CelEvalError("expression too deeply nested") from None


def compile_expression(expression: str, variables: frozenset[str] = frozenset({"device"})) -> Program:
    """Parse and compile; raises CelCompileError with cel-go-like text."""
    try:
        ast = _Parser(expression).parse()
    except RecursionError:
        raise CelCompileError("compilation failed: expression too deeply nested") from None
    fn = _Compiler(expression, variables).compile(ast, frozenset())
    return Program(expression, fn)


@lru_cache(maxsize=1024)
def compile_selector(expression: str) -> Program | CelCompileError:
    """A DRA selector, compiled once per process (upstream keeps a small LRU of programs too)."""
    try:
        return compile_expression(expression)
    except CelCompileError as e:
        return e


# --------------------------------------------------------------------------- DRA devices


def _attribute_value(attr: Mapping[str, Any]) -> Any:
    if "int" in attr and attr["int"] is not None:
        return int(attr["int"])
    if "bool" in attr and attr["bool"] is not None:
        return bool(attr["bool"])
    if "string" in attr and attr["string"] is not None:
        return str(attr["string"])
    if "version" in attr and attr["version"] is not None:
        try:
            return CelSemver(str(attr["version"]))
        except CelEvalError as e:
            raise CelEvalError(f"parse semantic version: {e}") from None
    raise CelEvalError("unsupported attribute value")


def _split_qualified(name: str, default_domain: str) -> tuple[str, str]:
    i = name.find("/")
    if i < 0:
        return default_domain, name
    return name[:i], name[i + 1:]


def device_activation(driver: str, device: Mapping[str, Any]) -> dict[str, Any]:
    """The ``device`` variable for one device of a ResourceSlice (raises CelEvalError)."""
    attrs: DefaultMap = DefaultMap()
    for name, attr in (device.get("attributes") or {}).items():
        try:
            v = _attribute_value(attr or {})
        except CelEvalError as e:
            raise CelEvalError(f"attribute {name}: {e}") from None
        domain, ident = _split_qualified(str(name), driver)
        attrs.setdefault(domain, {})[ident] = v
    caps: DefaultMap = DefaultMap()
    for name, cap in (device.get("capacity") or {}).items():
        raw = (cap or {}).get("value")
        try:
            q = CelQuantity(parse_quantity(raw), str(raw))
        except (QuantityError, TypeError) as e:
            raise CelEvalError(f"capacity {name}: {e}") from None
        domain, ident = _split_qualified(str(name), driver)
        caps.setdefault(domain, {})[ident] = q
    return {"device": {"driver": driver, "attributes": attrs, "capacity": caps}}


def enhance_runtime_error(msg: str) -> str:
    if msg.startswith("no such key:"):
        return msg + ". Consider using CEL optional chaining (?), has() macro, or orValue() for optional fields"
    return msg


def device_matches(program: Program, activation: Act) -> bool:
    """Evaluate a selector on one device; a non-bool result is an error, as upstream."""
    v = program.evaluate(activation)
    if not isinstance(v, bool):
        raise CelEvalError(f"CEL result of type {type_name(v)} could not be converted to bool")
    return v
