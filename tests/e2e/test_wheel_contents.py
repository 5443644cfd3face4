"""A non-editable install ships the HTML report's templates: the wheel ``pip install .``
builds holds every file of cli/render/templates/ beside the renderer."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_holds_the_html_templates(tmp_path: Path) -> None:
    # Build from a copy, so that the build's own files never land in the checkout.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("kschedx_pkg", "core", "cli"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"),
                           str(src)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("kschedx-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = sorted(p.name for p in (ROOT / "cli" / "render" / "templates").iterdir() if p.is_file())
    assert {"base.html.j2", "report.css", "report.js"} <= set(templates)
    for name in templates:
        assert f"kschedx/cli/render/templates/{name}" in names, name
    assert "kschedx/cli/render/html.py" in names
