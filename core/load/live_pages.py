"""The live API server's list pages, decoded straight into kschedx's objects.

A page is first split (:func:`split_page`): msgspec reads its continue token and
remainingItemCount and finds each item as a view of the body (``msgspec.Raw``, nothing
decoded), so the next page can be asked for at once. The items are then decoded
(:func:`decode_items`) as the file path decodes a JSON dump (core/load/jsonmap.py): by
msgspec into plain dicts, each given its ``kind`` and ``apiVersion`` back (the API server
leaves them out of list items) and its repeated strings shared while it is fresh
(core/api/objects.py ``share_strings``). The objects equal what ``json.loads`` of the
page gives, item by item.

A body that is not a JSON List is the server's fault (ClusterAccessError, exit 3), said
in the words Go's encoding/json gives kubectl for it, with the URL that answered it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgspec

from kschedx.core.api.field_errors import json_kind
from kschedx.core.api.model import EarlyPodInfos, make_early
from kschedx.core.api.objects import share_strings
from kschedx.core.errors import ClusterAccessError
from kschedx.core.load.dra_versions import OLD_VERSIONS as OLD_DRA_VERSIONS
from kschedx.core.load.dra_versions import to_v1 as dra_to_v1
from kschedx.core.load.live_http import go_json_error
from kschedx.core.load.stored import PageError, StoredDecodeError, decode_raw_items, decode_stored

Dict = dict[str, Any]


class _ListMeta(msgspec.Struct):
    continue_: str | None = msgspec.field(default=None, name="continue")
    remainingItemCount: int | None = None  # noqa: N815 - the API's field name


class _ListPage(msgspec.Struct):
    items: list[msgspec.Raw] | None = None
    metadata: _ListMeta | None = None


_SPLIT = msgspec.json.Decoder(_ListPage)
_DECODE_ITEM = msgspec.json.Decoder().decode


@dataclass
class Page:
    """One page of a list: its items not yet decoded, where the next page starts."""

    items: list[msgspec.Raw]
    token: str
    remaining: int | None
    skipped: int = 0  # Events that did not decode (decode_items)


def json_object(data: bytes, host: str, path: str) -> Dict:
    """A response body that must be a JSON object; anything else is the server's fault
    (exit 3), said with Go's decoder words."""
    try:
        got = json.loads(data)
    except ValueError as e:
        raise ClusterAccessError(f"the server {host} answered GET {path} with a body that is not JSON "
                                 f"({go_json_error(data, e)})") from None
    if not isinstance(got, dict):
        raise ClusterAccessError(f"the server {host} answered GET {path} with JSON that is not an object") from None
    return got


def _go_package(api_version: str) -> str:
    """The Go package name of an API version's types (``v1`` for core/v1, apps/v1, ...)."""
    return api_version.rsplit("/", 1)[-1]


def _not_a_list(data: bytes, host: str, path: str, kind: str, api_version: str) -> ClusterAccessError:
    """What is wrong with a body that msgspec would not split as a List: not JSON, not an
    object (:func:`json_object`), or a field of the wrong JSON type."""
    doc = json_object(data, host, path)
    pkg = _go_package(api_version)
    items, meta = doc.get("items"), doc.get("metadata")
    field, value, go_type = "items", items, f"[]{pkg}.{kind}"
    if items is None or isinstance(items, list):
        field, value, go_type = "metadata", meta, "v1.ListMeta"
        if isinstance(meta, dict):
            # Go names the innermost struct holding the field, then the field's whole path.
            token, count = meta.get("continue"), meta.get("remainingItemCount")
            field, value, go_type = ("metadata.continue", token, "string") if token is not None \
                and not isinstance(token, str) else ("metadata.remainingItemCount", count, "int64")
            what = f"number {count}" if go_type == "int64" and isinstance(count, float) else json_kind(value)
            return ClusterAccessError(f"the server {host} answered GET {path} with a list that does not decode: "
                                      f"json: cannot unmarshal {what} into Go struct field ListMeta.{field} "
                                      f"of type {go_type}")
    return ClusterAccessError(f"the server {host} answered GET {path} with a list that does not decode: "
                              f"json: cannot unmarshal {json_kind(value)} into Go struct field "
                              f"{kind}List.{field} of type {go_type}")


def split_page(data: bytes, host: str, path: str, kind: str, api_version: str) -> Page:
    """The items (undecoded), continue token and remainingItemCount of one list page."""
    try:
        page = _SPLIT.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):
        raise _not_a_list(data, host, path, kind, api_version) from None
    meta = page.metadata
    return Page(page.items or [], (meta.continue_ or "") if meta else "", meta.remainingItemCount if meta else None)


def decode_items(page: Page, host: str, path: str, kind: str, api_version: str,
                 early: EarlyPodInfos | None = None) -> list[Dict]:
    """The page's items as the objects kschedx stores (see the module docstring), each
    decoded into its API type as a dump's are (core/load/stored.py: a value of the wrong type
    is the server's fault, said in Go's words with the URL); a v1.33 server's DRA objects
    converted to resource.k8s.io/v1 as the file path does. ``page.skipped`` says how many
    Events were left out for not decoding (only ``pending`` reads them). With ``early``,
    each pod's PodInfo is made there while the pod is fresh (core/api/model.py ``make_early``)."""
    raws = page.items
    try:
        decoded, skipped = decode_raw_items(raws, kind, api_version)
    except PageError:
        bad = next((r for r in raws if type(_DECODE_ITEM(r)) is not dict), None)
        what = "null" if bad is None or _DECODE_ITEM(bad) is None else json_kind(_DECODE_ITEM(bad))
        raise ClusterAccessError(f"the server {host} answered GET {path} with a list that does not decode: "
                                 f"json: cannot unmarshal {what} into Go struct field "
                                 f"{kind}List.items of type {_go_package(api_version)}.{kind}") from None
    except StoredDecodeError as e:
        raise ClusterAccessError(f"{host}{path}: {e}", hint=False) from None
    out: list[Dict] = []
    for item in decoded:
        if item["apiVersion"] in OLD_DRA_VERSIONS:
            try:
                item = decode_stored(dra_to_v1(item))
            except StoredDecodeError as e:
                raise ClusterAccessError(f"{host}{path}: {e}", hint=False) from None
        share_strings(item)
        if early is not None and item["kind"] == "Pod":
            make_early(early, item)
        out.append(item)
    page.items = []  # the body's views go with the page
    page.skipped = skipped
    return out
