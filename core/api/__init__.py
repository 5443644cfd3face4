"""Kubernetes objects as the scheduler reads them: quantities, label and node selectors,
field errors and name checks in apimachinery's words, pod (anti-)affinity terms,
PodInfo/NodeView (requests, tolerations, ports computed once per object), the API defaults
of a pod template, and ClusterObjects (the raw objects of a cluster source by kind).

May import: layer 1 of :mod:`kschedx.core` (errors, versions, ...) and itself.
"""
