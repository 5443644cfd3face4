"""The explanation front end: ``front`` (load a manifest or a reference and a cluster,
pick the profile and release, run cycles, replicas, DaemonSets), what-if edits, ``focus``
(the story of one node), ``check`` (a release placed together, or each document alone),
``pending``, pods and workloads that already exist (``existing``, ``rollout``; ``rollout_run``
plays a change to its end), the replica count ``kubectl apply`` and a HorizontalPodAutoscaler
leave (``replicas``), OpportunisticBatching notes, version and config comparisons,
and the report shapes the CLI renders.

May import: every other layer of :mod:`kschedx.core`.
"""
