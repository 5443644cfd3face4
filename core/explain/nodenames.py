"""Node names as users type them: tables at 80 columns drop the domain every node name
shares (``.eu-west-1.compute.internal``), so a user copies ``ip-10-0-1-17`` from the table
and passes it to ``--node`` or ``--cordon``. A name is accepted when it names exactly one
node, whole or up to a dot; an unknown name gets the closest names as suggestions.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from kschedx.core.errors import InputError

# Suggestions after "did you mean": the closest few, as kubectl's "did you mean" lists.
MAX_SUGGESTIONS = 3


def resolve_node_name(name: str, names: Iterable[str], flag: str) -> str:
    """The node ``name`` stands for: itself when a node has that name, else the one node
    whose name starts with ``name`` followed by a dot. Raises InputError naming ``flag``
    when no node or several match."""
    known = names if isinstance(names, (set, frozenset, dict)) else list(names)
    if name in known:
        return name
    head = name + "."
    matches = sorted(n for n in known if n.startswith(head))
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(matches[:MAX_SUGGESTIONS]) + (f" (+{len(matches) - MAX_SUGGESTIONS} more)"
                                                        if len(matches) > MAX_SUGGESTIONS else "")
        raise InputError(f"{flag} {name}: names {len(matches)} nodes ({shown}); give the whole name")
    near = closest_names(name, known)
    hint = f" — did you mean {' or '.join(near) if len(near) < 3 else ', '.join(near)}?" if near else ""
    raise InputError(f"{flag} {name}: no node of that name in the cluster{hint}")


def closest_names(name: str, names: Iterable[str]) -> list[str]:
    """Up to MAX_SUGGESTIONS node names closest to ``name``, compared whole and with their
    domain dropped (so a short name finds its long node), best first."""
    by_short: dict[str, str] = {}
    candidates: list[str] = []
    for n in names:
        candidates.append(n)
        short = n.split(".", 1)[0]
        if short != n and short not in by_short:
            by_short[short] = n
            candidates.append(short)
    out: list[str] = []
    for match in difflib.get_close_matches(name, candidates, n=MAX_SUGGESTIONS * 2, cutoff=0.6):
        full = by_short.get(match, match)
        if full not in out:
            out.append(full)
    return out[:MAX_SUGGESTIONS]
