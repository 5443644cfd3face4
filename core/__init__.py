"""The scheduling engine (installed as ``kschedx.core``).

Nothing in here prints, exits or reads the terminal; failures are raised as the typed
errors in :mod:`kschedx.core.errors`. Data flows one way, and so do the imports: each
layer below may import the layers listed before it, never one after it (a test walks the
imports and fails on an upward import or a circle):

1. ``errors``, ``progress``, ``gcpause``, ``versions``, ``feature_gates_data``: core-wide
   plumbing (typed errors, progress reports, GC pauses, the Kubernetes release model).
2. ``api/``: Kubernetes objects as the scheduler reads them.
3. ``load/``: files, manifests, the live cluster, admission and API validation.
4. ``snapshot``: NodeInfo and the cluster-wide indexes.
5. ``config/``: profiles, defaults, validation.
6. ``framework/``: the plugin interface, the runtime that runs one cycle, the results.
7. ``plugins/``: one module per upstream plugin (imports only ``api``, ``snapshot`` and
   ``framework``, besides layer 1 and each other).
8. ``legacy/``: the kube-scheduler v1.12 pipeline.
9. ``explain/``: the front door and what is built on cycles (what-if, focus, check,
   pending, workloads that already run, comparisons).
"""

KUBERNETES_VERSION = "v1.35"
