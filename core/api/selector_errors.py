"""The errors apimachinery's ``labels.NewRequirement`` reports, in its words (v1.35).

The scheduler compiles every label selector and node selector requirement through
``labels.NewRequirement``, which checks the key (``content.IsLabelKey``) and each value
(``content.IsLabelValue``) and returns a ``field.ErrorList`` aggregate. Where upstream shows
that error (InterPodAffinity's "parsing pod: ...", NodeAffinity's preferred terms) kschedx
shows the same text, so these helpers reproduce the messages, field paths and the
aggregate's ``[a, b]`` joining.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache

_KEY_CHAR = "[A-Za-z0-9]"
_KEY_FMT = "(" + _KEY_CHAR + "[-A-Za-z0-9_.]*)?" + _KEY_CHAR
_KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
_VALUE_FMT = "(" + _KEY_FMT + ")?"
_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN_FMT = _DNS_LABEL_FMT + "(\\." + _DNS_LABEL_FMT + ")*"
_DNS_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
# Go's regexp anchors ``^...$`` at the ends of the text only: fullmatch, not match.
_KEY_RE = re.compile(_KEY_FMT)
_VALUE_RE = re.compile(_VALUE_FMT)
_DNS_SUBDOMAIN_RE = re.compile(_DNS_SUBDOMAIN_FMT)
_GO_INT = re.compile(r"[+-]?[0-9]+")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``RegexError``: each example is quoted and followed by a comma and a space, and the
    examples are joined by " or " (so upstream prints two spaces between them)."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = "".join((" or " if i else "") + f"'{e}', " for i, e in enumerate(examples))
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


# apimachinery measures names in bytes (``content``, v1.35) where older helpers still say
# characters (``util/validation``, which the configuration API and v1.33/1.34 use): the
# checks below take the unit their caller's upstream counterpart names.
BYTES, CHARACTERS = "bytes", "characters"


def _too_long(value: str, n: int) -> bool:
    # Go's len() of a string counts bytes, whichever unit the message names.
    return len(value.encode()) > n


def _max_len(n: int, unit: str = BYTES) -> str:
    return f"must be no more than {n} {unit}"


def label_value_errors(value: str, unit: str = BYTES) -> list[str]:
    """``content.IsLabelValue`` (``validation.IsValidLabelValue`` with ``CHARACTERS``)."""
    errs = []
    if _too_long(value, 63):
        errs.append(_max_len(63, unit))
    if not _VALUE_RE.fullmatch(value):
        errs.append(regex_error(_VALUE_MSG, _VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def dns_subdomain_errors(value: str, unit: str = BYTES) -> list[str]:
    """``IsDNS1123Subdomain``."""
    errs = []
    if _too_long(value, 253):
        errs.append(_max_len(253, unit))
    if not _DNS_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_DNS_SUBDOMAIN_MSG, _DNS_SUBDOMAIN_FMT, "example.com"))
    return errs


def label_key_errors(key: str) -> list[str]:
    """``content.IsLabelKey``: an optional DNS-subdomain prefix and a name part."""
    return qualified_name_errors(key)


def qualified_name_errors(key: str, noun: str = "a valid label key", unit: str = BYTES) -> list[str]:
    """An optional DNS-subdomain prefix and a name part: ``content.IsLabelKey`` as it is,
    ``validation.IsQualifiedName`` with ``noun="a qualified name", unit=CHARACTERS``."""
    errs: list[str] = []
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in dns_subdomain_errors(prefix, unit))
    else:
        return [
            noun + " " + regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif _too_long(name, 63):
        errs.append("name part " + _max_len(63, unit))
    if not _KEY_RE.fullmatch(name):
        errs.append("name part " + regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


# Selectors repeat the same few keys and values across thousands of pods: remember which
# ones are valid so that compiling them stays a dictionary lookup.
@lru_cache(maxsize=65536)
def key_ok(key: str) -> bool:
    return not label_key_errors(key)


@lru_cache(maxsize=65536)
def value_ok(value: str) -> bool:
    return not label_value_errors(value)


def go_quote(value: str) -> str:
    """Go's ``%q`` for the strings met here (printable text)."""
    return json.dumps(value, ensure_ascii=False)


def child(path: str, name: str) -> str:
    """``field.Path.Child``: a dot only after a non-empty parent."""
    return f"{path}.{name}" if path else name


def invalid(path: str, bad_value: str, detail: str) -> str:
    """``field.Invalid(...).Error()`` for a value already rendered as Go renders it."""
    return f"{path}: Invalid value: {bad_value}: {detail}"


def values_json(values: Sequence[str] | None) -> str:
    return "null" if values is None else json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))


def requirement_errors(key: str, op: str, values: Sequence[str] | None, path: str = "") -> list[str]:
    """The field errors of ``labels.NewRequirement(key, op, values, field.WithPath(path))``;
    ``op`` is the selection operator ("in", "notin", "=", "exists", "!", "gt", "lt")."""
    errs: list[str] = []
    key_errs = [] if key_ok(key) else label_key_errors(key)
    if key_errs:
        errs.append(invalid(child(path, "key"), go_quote(key), "; ".join(key_errs)))
    vpath = child(path, "values")
    vals = list(values or ())
    if op in ("in", "notin"):
        if not vals:
            errs.append(invalid(vpath, values_json(values), "for 'in', 'notin' operators, values set can't be empty"))
    elif op == "=":
        if len(vals) != 1:
            errs.append(invalid(vpath, values_json(values), "exact-match compatibility requires one single value"))
    elif op in ("exists", "!"):
        if vals:
            errs.append(invalid(vpath, values_json(values), "values set must be empty for exists and does not exist"))
    elif op in ("gt", "lt"):
        if len(vals) != 1:
            errs.append(invalid(vpath, values_json(values), "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(vals):
            if not is_go_int64(v):
                errs.append(invalid(f"{vpath}[{i}]", go_quote(v), "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(vals):
        value_errs = [] if value_ok(v) else label_value_errors(v)
        if value_errs:
            errs.append(invalid(f"{vpath}[{i}][{key}]", go_quote(v), "; ".join(value_errs)))
    return errs


def is_go_int64(text: str) -> bool:
    """``strconv.ParseInt(text, 10, 64)`` succeeds."""
    return bool(_GO_INT.fullmatch(text)) and -(2**63) <= int(text) < 2**63


def aggregate(messages: Sequence[object]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: duplicates dropped, one message as it is,
    several in brackets joined by ", "."""
    seen = list(dict.fromkeys(str(m) for m in messages))
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"
