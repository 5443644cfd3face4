"""A plugin that returns Error ends the real scheduling cycle; kschedx still explains every node.

Upstream (v1.35.4 pkg/scheduler/framework/runtime/framework.go) turns any Filter status that is
neither Success nor a rejection into an Error wrapped as ``running "PLUGIN" filter plugin: ...``
(``RunFilterPlugins``); ``findNodesThatPassFilters`` (schedule_one.go) cancels the parallel filter
run at the first such error and ``schedulePod`` returns it: no FitError, no PostFilter, no scores;
the pod goes back to the queue with a backoff, and the FailedScheduling event carries the message.
kschedx evaluates the remaining nodes anyway (their verdicts explain the cluster) and says, in
every output format, that the scheduler would have stopped.
"""

from __future__ import annotations


def filter_error_message(plugin: str, message: str) -> str:
    """``RunFilterPlugins``' wrapping of a Filter plugin's error."""
    return f'running "{plugin}" filter plugin: {message}'


def add_pod_error_message(plugin: str, message: str, verb: str = "AddPod") -> str:
    """``RunPreFilterExtensionAddPod`` / ``RemovePod``'s wrapping (nominated pods, preemption)."""
    return f'running {verb} on PreFilter plugin "{plugin}": {message}'


def cycle_error_warning(error: str) -> str:
    """The warning every output carries when a plugin's Error ended the cycle (PreFilter, PreScore, Score)."""
    return (
        f"a plugin returned Error: the real scheduler would stop this cycle with the error {error!r} "
        "(the pod is retried after a backoff and its FailedScheduling event carries this message)"
    )


def filter_error_warning(error: str, nodes: list[str]) -> str:
    """The warning every output carries when a Filter plugin returned Error on ``nodes``."""
    where = f"on {nodes[0]}" if len(nodes) == 1 else (
        f"on {len(nodes)} nodes ({', '.join(nodes)}); the real scheduler stops at whichever its parallel "
        "filters reach first, kschedx reports the first by name"
    )
    return (
        f"a Filter plugin returned Error {where}: the real scheduler would stop this cycle with the error "
        f"{error!r} (no FitError, no preemption, no scores; the pod is retried after a backoff and its "
        "FailedScheduling event carries this message); the other nodes' verdicts are shown for the "
        "explanation only"
    )
