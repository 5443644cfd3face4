"""KubeSchedulerConfiguration v1: profiles (plugins per extension point, weights, args),
each release's defaults and accepted fields, and validation in kube-scheduler's words.

May import: layer 1 of :mod:`kschedx.core`, ``api``, ``load`` (to read a config file) and
itself.
"""
