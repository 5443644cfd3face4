"""The scheduling engine (installed as ``kschedx.core``).

Nothing in here prints, exits or reads the terminal; failures are raised as the typed
errors in :mod:`kschedx.core.errors`. Data flows one way, and so do the imports: each
layer below may import the layers listed before it, never one after it (a test walks the
imports and fails on an upward import or a circle):

1. ``errors``, ``progress``, ``gcpause``, ``versions``, ``feature_gates_data``: core-wide
   plumbing (typed errors, progress reports, GC pauses, the Kubernetes release model).
2. ``api/``: Kubernetes objects as the scheduler reads them.
3. ``load/``: files, manifests, the live cluster, API defaulting and validation.
4. ``admission/``: the API server's admission plugins for pods and claims (one module
   per plugin, run in upstream's order; one ``Admission`` per run keeps quota usage).
5. ``snapshot``: NodeInfo and the cluster-wide indexes.
6. ``config/``: profiles, defaults, validation.
7. ``framework/``: the plugin interface, the runtime that runs one cycle, the results.
8. ``plugins/``: one module per upstream plugin (imports only ``api``, ``snapshot`` and
   ``framework``, besides layer 1 and each other).
9. ``legacy/``: the kube-scheduler v1.12 pipeline.
10. ``explain/``: the front door and what is built on cycles (what-if, focus, check,
    pending, workloads that already run, comparisons).
"""

KUBERNETES_VERSION = "v1.35"
