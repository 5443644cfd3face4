"""The documentation site: built strictly with MkDocs (no broken link or anchor, no page left
out of the navigation), then opened in headless Chromium over HTTP as a reader opens it: the
home page and a guide render with the navigation to every page, and search finds a guide."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.cdp import Browser, chromium

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def _nav_pages(nav: list[Any]) -> list[tuple[str, str]]:
    """(title, page) of every entry of mkdocs.yml's nav, depth first."""
    out: list[tuple[str, str]] = []
    for entry in nav:
        for title, target in entry.items():
            out += _nav_pages(target) if isinstance(target, list) else [(title, target)]
    return out


NAV = _nav_pages(yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr
    return out


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium()
    with Browser() as b:
        yield b


def test_every_page_is_in_the_navigation_and_built(site: Path) -> None:
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(page for _title, page in NAV) == pages
    for page in pages:
        assert (site / page.replace(".md", ".html")).is_file(), page


def test_the_command_reference_is_a_page_of_the_site(site: Path) -> None:
    html = (site / "reference" / "commands.html").read_text(encoding="utf-8")
    for command in ("explain", "check", "pending", "plugins", "snapshot", "completion"):
        assert f'id="kschedx-{command}"' in html
    assert "--compare-version" in html


def _nav_titles(tab: Any) -> list[str]:
    return list(tab.evaluate("[...document.querySelectorAll('nav.md-nav--primary a.md-nav__link')]"
                             ".map(a => a.textContent.trim())"))


def test_home_page_and_a_guide_render_with_navigation_and_search(served: str, browser: Browser) -> None:
    for page, heading in (("index.html", "kschedx"), ("guides/ci.html", "Checking a release in CI")):
        tab = browser.open(served + page, 1280, 900)
        assert tab.evaluate("document.querySelector('article h1').textContent.trim()").startswith(heading)
        titles = _nav_titles(tab)
        missing = [title for title, _page in NAV if title not in titles]
        assert not missing, f"{page}: not in the navigation: {missing}"
        assert tab.evaluate("document.querySelector('input.md-search__input') !== null")
        # The page's own code blocks and tables are there, styled by the theme.
        assert tab.evaluate("document.querySelectorAll('article pre code, article table').length") > 0
        tab.close()
        assert tab.logs == [], f"{page}: {tab.logs}"


def test_search_finds_the_guide(served: str, browser: Browser) -> None:
    tab = browser.open(served + "index.html?q=gitlab", 1280, 900)
    tab.wait_for("document.querySelectorAll('.md-search-result__item').length > 0")
    links = tab.evaluate("[...document.querySelectorAll('.md-search-result__item a')].map(a => a.pathname)")
    tab.close()
    assert "/guides/ci.html" in links, links
    assert tab.logs == [], tab.logs
