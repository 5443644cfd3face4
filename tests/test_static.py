"""The code checks the project promises: ruff over the tree and mypy --strict over core/."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*cmd: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})})


def test_ruff_is_clean() -> None:
    res = _run(sys.executable, "-m", "ruff", "check", ".")
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_strict_on_the_engine() -> None:
    res = _run("bash", str(ROOT / ".ci" / "typecheck"), env={"PYTHON": sys.executable})
    assert res.returncode == 0, res.stdout + res.stderr
