"""The classic pipeline of kube-scheduler v1.12: priority functions (map/reduce, 0-10)
with weights, selected by the default provider or a v1.12 Policy file.

Filtering reuses the v1.35 filter plugins (see :mod:`kschedx.core.legacy.runner`); the
priority functions are re-implemented with their v1.12 formulas and integer truncation.

May import: every layer of :mod:`kschedx.core` except ``explain``.
"""

ALGORITHM = "legacy-v1.12"
MAX_PRIORITY = 10
