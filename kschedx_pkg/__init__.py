"""kschedx: an offline explainer of kube-scheduler 1.33–1.36 decisions."""

__version__ = "0.1.0"
