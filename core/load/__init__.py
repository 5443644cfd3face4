"""Input sources: cluster dumps (YAML, JSON, gzip, ``kind: List``,
``kubectl cluster-info dump``), the incoming manifest and the workloads it holds, the live
cluster (imported lazily, list/get only), API-server defaulting and validation (admission
plugins are :mod:`kschedx.core.admission`).
Everything here produces :mod:`kschedx.core.api` objects.

May import: layer 1 of :mod:`kschedx.core`, ``api`` and itself.
"""
