"""The scheduling engine: objects, the cluster snapshot, the framework and the plugins.

Nothing in here prints, exits or reads the terminal; failures are raised as the typed
errors in :mod:`kschedx.core.errors`.
"""

KUBERNETES_VERSION = "v1.35"
