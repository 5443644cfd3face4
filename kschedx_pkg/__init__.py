"""kschedx: an offline explainer of kube-scheduler v1.35 decisions."""

__version__ = "0.1.0"
