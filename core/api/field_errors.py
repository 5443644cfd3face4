"""Field errors worded as the API server words them (apimachinery's util/validation/field).

``FieldError`` renders as ``field: Invalid value: "x": detail`` (or ``Required value``,
``Unsupported value: "x": supported values: "A", "B"``, ...), with the bad value printed the
way Go prints it: strings quoted, numbers and booleans bare, anything else as JSON. The
checks of label keys and values, DNS names and port numbers keep upstream's messages
(apimachinery's validate/content and util/validation), since users search for them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kschedx.core.api.selector_errors import CHARACTERS, dns_subdomain_errors, label_key_errors, label_value_errors, regex_error

# What apimachinery's ErrorType.String() says for each type.
_TYPE_WORDS = {
    "NotFound": "Not found",
    "Required": "Required value",
    "Duplicate": "Duplicate value",
    "Invalid": "Invalid value",
    "NotSupported": "Unsupported value",
    "Forbidden": "Forbidden",
    "TooLong": "Too long",
    "TooMany": "Too many",
}
# Types whose message carries no value.
_NO_VALUE = {"Required", "Forbidden", "TooLong"}


def go_quote(s: str) -> str:
    """A string as Go's %q prints it (close enough for the printable text of a manifest)."""
    return json.dumps(s, ensure_ascii=False)


def go_value(v: Any) -> str:
    """A bad value as field.Error prints it: %q for strings, %v for numbers and booleans,
    JSON for the rest (a nil map or slice is ``null``)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return go_quote(v)
    return json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class FieldError:
    type: str
    field: str
    value: Any = None
    detail: str = ""

    def __str__(self) -> str:
        words = _TYPE_WORDS[self.type]
        body = words if self.type in _NO_VALUE else f"{words}: {go_value(self.value)}"
        if self.detail:
            body += f": {self.detail}"
        return f"{self.field}: {body}" if self.field else body


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError("Invalid", path, value, detail)


def required(path: str, detail: str = "") -> FieldError:
    return FieldError("Required", path, None, detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError("Forbidden", path, None, detail)


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError("Duplicate", path, value)


def not_found(path: str, value: Any, detail: str = "") -> FieldError:
    return FieldError("NotFound", path, value, detail)


def not_supported(path: str, value: Any, supported: Sequence[str]) -> FieldError:
    detail = "supported values: " + ", ".join(go_quote(s) for s in supported) if supported else ""
    return FieldError("NotSupported", path, value, detail)


# --- apimachinery's string checks, with their messages ---------------------------------

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                      "and must start and end with an alphanumeric character")
_DNS1123_LABEL_RE = re.compile(f"^{_DNS1123_LABEL_FMT}$")
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                          "and must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")


def _fullmatch(rx: re.Pattern[str], s: str) -> bool:
    # Go's $ matches only at the very end; Python's also before a final newline.
    return rx.match(s) is not None and "\n" not in s


def is_dns1123_subdomain(value: str, unit: str = CHARACTERS) -> list[str]:
    return dns_subdomain_errors(value, unit)


def is_dns1123_label(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 63:
        errs.append("must be no more than 63 characters")
    if not _fullmatch(_DNS1123_LABEL_RE, value):
        if _fullmatch(_DNS1123_SUBDOMAIN_RE, value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """A label key (content.IsLabelKey): an optional DNS subdomain prefix and '/', then a name."""
    return label_key_errors(value)


def is_label_value(value: str) -> list[str]:
    return label_value_errors(value)


def is_valid_port_num(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else ["must be between 1 and 65535, inclusive"]


def is_valid_port_name(port: str) -> list[str]:
    errs = []
    if len(port) > 15:
        errs.append("must be no more than 15 characters")
    if not re.fullmatch(r"[-a-z0-9]+", port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def json_kind(value: Any) -> str:
    """What encoding/json's UnmarshalTypeError calls a JSON value of the wrong type. (A number
    that an integer field can't hold is ``number 2.5``: the callers that check integers say so.)"""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"  # YAML dates and the like arrive as JSON strings
