"""The HTML reports in a real browser: headless Chromium (Debian's ``chromium``) opens each
report from a ``file://`` path, its script runs without a console message, and the
screenshot is a picture, not a blank page — in light and dark mode; printing gives a PDF.

One browser serves every page of a worker (tests/e2e/cdp.py: the DevTools protocol on a
pipe), where a browser per page and per screenshot took a minute. CI installs Chromium
(``.ci/run``); there, a missing browser fails the test rather than skipping it.
``KSCHEDX_SCREENSHOT_DIR=DIR`` keeps the screenshots (the documentation's picture comes from
this run).
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.html_reports import Report
from tests.e2e.cdp import Browser, chromium

WINDOW = (1000, 1300)
NAMES = ["explain", "unschedulable", "replicas", "focus", "preemption", "dra", "daemonset", "hostile", "check", "pending",
         "pending-dump", "pending-hostile"]


# --------------------------------------------------------------------------- PNG


def png_rows(data: bytes, max_rows: int) -> tuple[int, int, int, list[bytes]]:
    """Width, height, bytes per pixel and the first ``max_rows`` unfiltered rows of an
    8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, bytearray()
    width = height = depth = colour = interlace = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    rows_wanted = min(height, max_rows)
    raw = zlib.decompressobj().decompress(bytes(idat), rows_wanted * (stride + 1))
    prev = bytearray(stride)
    rows: list[bytes] = []
    for r in range(rows_wanted):
        kind = raw[r * (stride + 1)]
        line = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def colours(rows: list[bytes], bpp: int) -> dict[tuple[int, ...], int]:
    seen: dict[tuple[int, ...], int] = {}
    for line in rows:
        for i in range(0, len(line), bpp):
            px = tuple(line[i:i + 3])
            seen[px] = seen.get(px, 0) + 1
    return seen


# --------------------------------------------------------------------------- tests


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as b:
        yield b


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict[str, tuple[Report, Path]]:
    chromium()  # fail (CI) or skip early, before making the reports
    tmp = tmp_path_factory.mktemp("browser")
    out: dict[str, tuple[Report, Path]] = {}
    # The reports tests/cli/test_html_report.py checks (made once per process, tests/conftest.py).
    reports: dict[str, Report] = request.getfixturevalue("html_reports")
    for name, report in reports.items():
        path = tmp / f"{name}.html"
        path.write_text(report.html, encoding="utf-8")
        out[name] = (report, path)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_report_opens_runs_its_script_and_is_not_blank(pages: dict[str, tuple[Report, Path]], name: str,
                                                       browser: Browser, tmp_path: Path) -> None:
    _, page = pages[name]
    assert page.resolve().as_uri().startswith("file://")
    tab = browser.open(page.resolve().as_uri(), *WINDOW)
    dom = tab.dom()
    # The script ran to its end (it marks the page) and showed the filter boxes it drives.
    assert 'data-kschedx="ready"' in dom
    if 'data-filter="' in page.read_text(encoding="utf-8"):
        assert re.search(r'<input type="search" placeholder', dom)
    png = tmp_path / f"{name}.png"
    png.write_bytes(tab.screenshot())
    tab.close()
    # The page logs nothing: no console message, no uncaught exception, no blocked load (CSP).
    assert tab.logs == [], tab.logs
    width, height, bpp, rows = png_rows(png.read_bytes(), max_rows=420)
    assert (width, height) == WINDOW
    seen = colours(rows, bpp)
    background, bg_count = max(seen.items(), key=lambda kv: kv[1])
    total = sum(seen.values())
    assert background == (255, 255, 255)  # light mode by default
    assert len(seen) >= 20, f"{len(seen)} colours: a blank page?"
    assert total - bg_count >= total * 0.03, "almost nothing but background"
    keep = os.environ.get("KSCHEDX_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(keep) / f"html-report-{name}.png")


def test_dark_mode(pages: dict[str, tuple[Report, Path]], browser: Browser) -> None:
    _, page = pages["explain"]
    tab = browser.open(page.resolve().as_uri(), *WINDOW, dark=True)
    png = tab.screenshot()
    tab.close()
    assert tab.logs == [], tab.logs
    _, _, bpp, rows = png_rows(png, max_rows=300)
    seen = colours(rows, bpp)
    background = max(seen.items(), key=lambda kv: kv[1])[0]
    assert sum(background) < 3 * 60, background
    assert len(seen) >= 20


def print_pages(browser: Browser, page: Path) -> tuple[int, int]:
    """The number of pages and the size of the PDF Chromium prints of ``page``."""
    tab = browser.open(page.resolve().as_uri(), *WINDOW)
    data = tab.pdf()
    tab.close()
    assert tab.logs == [], tab.logs
    assert data.startswith(b"%PDF")
    return len(re.findall(rb"/Type\s*/Page[^s]", data)), len(data)


def test_printing_opens_the_collapsed_sections_with_or_without_javascript(pages: dict[str, tuple[Report, Path]],
                                                                          browser: Browser, tmp_path: Path) -> None:
    report, page = pages["check"]
    with_script, size = print_pages(browser, page)
    assert with_script >= 2
    # The same page without its script: the print stylesheet alone opens the node tables.
    bare = tmp_path / "check-without-script.html"
    bare.write_text(re.sub(r"<script>.*?</script>", "", report.html, flags=re.S), encoding="utf-8")
    assert print_pages(browser, bare)[0] == with_script
    # ... which are a good part of the printout: with them closed, much less is printed.
    closed = tmp_path / "check-closed.html"
    closed.write_text(re.sub(r"<script>.*?</script>", "", report.html, flags=re.S)
                      .replace("details::details-content{content-visibility:visible}", ""), encoding="utf-8")
    assert print_pages(browser, closed)[1] < size * 0.8
