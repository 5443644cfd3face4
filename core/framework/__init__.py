"""The scheduling framework, as upstream's ``framework`` package: the plugin interface
(``interface``: Status, Plugin, CycleState, PluginSet, the FitError text), the runtime that
runs one scheduling cycle of a profile in upstream's order with host selection
(``runtime``), nominated pods, scheduler extenders, and the plain result dataclasses every
renderer reads (``result``). It knows no plugin by name.

May import: layer 1 of :mod:`kschedx.core`, ``api``, ``load``, ``snapshot``, ``config`` and
itself.
"""
