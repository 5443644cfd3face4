"""What the markdown outputs (``check``, ``pending``, comparisons) share: a table cell and
the title line a CI job summary starts with."""

from __future__ import annotations


def md_cell(text: str) -> str:
    """``text`` as one markdown table cell: pipes escaped, line breaks as spaces."""
    return text.replace("|", "\\|").replace("\n", " ")


def md_title(command: str, kubernetes_version: str | None, source_cell: str | None, counts: str) -> list[str]:
    """The first line of a summary — the command, the Kubernetes version reproduced, the
    cluster source (already made a cell by the caller) and the counts — and a blank line."""
    parts = [f"**kschedx {command}**"]
    if kubernetes_version:
        parts.append(f"Kubernetes {kubernetes_version}")
    if source_cell:
        parts.append(f"cluster: `{source_cell}`")
    parts.append(counts)
    return [" · ".join(parts), ""]
