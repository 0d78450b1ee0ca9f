"""The HTML report in a real browser: Debian's headless chromium, driven by chromedriver.

The page is loaded from a file:// URL with networking disabled, screenshotted,
and its summary numbers, chart and sortable table are read back from the live
DOM and compared with the JSON report. chromedriver speaks the W3C WebDriver
protocol (JSON over HTTP), so a few urllib calls drive it without selenium.
"""
from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from hipport.cli import main

PROJECT = ROOT / "fixtures" / "projects" / "report"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
BROWSER_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1280,2000",
]

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver; make test does it)",
)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The fixture project's report as HTML and as JSON, from one analysis each."""
    out = tmp_path_factory.mktemp("report")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(PROJECT)
        for fmt, name in (("html", "report.html"), ("json", "report.json")):
            result = CliRunner().invoke(main, ["report", "src", "--hip-version", "5.2", "--format", fmt,
                                               "-o", str(out / name)], catch_exceptions=False)
            assert result.exit_code == 0, result.output
    return out / "report.html", json.loads((out / "report.json").read_text())


class WebDriver:
    """Just enough of the W3C WebDriver protocol: a session, navigation, scripts, screenshots."""

    def __init__(self, profile: Path) -> None:
        self.port = _free_port()
        self.process = subprocess.Popen([CHROMEDRIVER, f"--port={self.port}"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                if self._call("GET", "/status")["value"]["ready"]:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)
        options = {"binary": CHROMIUM, "args": [*BROWSER_FLAGS, f"--user-data-dir={profile}"]}
        capabilities = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}}
        self.session = self._call("POST", "/session", capabilities)["value"]["sessionId"]

    def get(self, url: str) -> None:
        self._call("POST", f"/session/{self.session}/url", {"url": url})

    def run(self, script: str, *args):
        return self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})["value"]

    def screenshot(self) -> bytes:
        return base64.b64decode(self._call("GET", f"/session/{self.session}/screenshot")["value"])

    def quit(self) -> None:
        try:
            self._call("DELETE", f"/session/{self.session}")
        finally:
            self.process.terminate()
            self.process.wait(timeout=10)

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = WebDriver(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


def test_page_loads_offline_and_screenshots(browser, pages, tmp_path):
    html, _ = pages
    browser.get(html.as_uri())
    assert browser.run("return document.title").startswith("hipport porting report: HIP 5.2")
    # nothing but the file itself was loaded: no fonts, scripts or images from anywhere
    resources = browser.run("return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources == []
    png = browser.screenshot()
    assert png.startswith(b"\x89PNG") and len(png) > 20_000
    (tmp_path / "report.png").write_bytes(png)


def test_summary_numbers_in_the_dom_equal_the_json(browser, pages):
    html, report = pages
    browser.get(html.as_uri())
    shown = browser.run(
        "const out = {};"
        "document.querySelectorAll('dd[id^=summary-]').forEach(d => out[d.id.slice(8)] = [d.dataset.value, d.textContent]);"
        "return out;")
    s = report["summary"]
    expected = {
        "files": s["files"], "references": s["references"], "ported": s["ported_automatically"],
        "unsupported": s["unsupported"], "unmapped": s["unmapped"], "needs-newer-hip": s["needs_newer_hip"],
        "launches": s["launches"], "errors": s["findings_by_severity"]["error"],
        "warnings": s["findings_by_severity"]["warning"], "info": s["findings_by_severity"]["info"],
        "work": s["estimated_minutes"],
        # the verdicts: needs-library files port automatically too, with a library to install
        "fails": s["verdicts"]["fails"], "review": s["verdicts"]["review"],
        "ports": s["verdicts"]["ports"] + s["verdicts"]["needs-library"],
    }
    for key, value in expected.items():
        assert shown[key][0] == str(value), key
        assert shown[key][1] == (str(value) if key != "work" else "about 3.5 h"), key
    assert float(shown["percent"][0]) == s["ported_percent"]
    assert shown["percent"][1] == f"{s['ported_percent']:.1f}%"
    assert browser.run("return document.getElementById('hip-version').textContent") == report["options"]["hip_version"]


def test_chart_bars_equal_findings_by_library(browser, pages):
    html, report = pages
    browser.get(html.as_uri())
    bars = browser.run(
        "return Array.from(document.querySelectorAll('svg g.bar')).map(g => ["
        "g.dataset.library, Array.from(g.querySelectorAll('rect')).map(r => [r.getAttribute('class'), +r.dataset.count]),"
        "g.getBBox().width])")
    expected = report["summary"]["findings_by_library"]
    assert [b[0] for b in bars] == list(expected)
    for library, segments, width in bars:
        assert dict(segments) == {sev: n for sev, n in expected[library].items() if n}
        assert width > 0  # the browser actually laid the bar out


def test_files_table_sorts_by_a_clicked_column(browser, pages):
    html, report = pages
    browser.get(html.as_uri())
    column = "return Array.from(document.querySelectorAll('#files-table tbody tr')).map(r => r.cells[0].textContent)"
    # worst first until a column is clicked: what will not build, then what needs review, by the work
    assert browser.run(column) == ["src/l2_window.cu", "src/graph_debug.cu", "src/stream_device.cu",
                                   "src/cuda_check.cuh", "src/gemm.cpp", "src/saxpy.cu"]
    assert browser.run("return document.querySelectorAll('#files-table thead th')[1].getAttribute('aria-sort')") \
        == "descending"
    click_errors = "document.querySelectorAll('#files-table thead th')[5].querySelector('button').click()"
    errors = {e["path"]: sum(f["severity"] == "error" for f in e["findings"]) for e in report["files"]}
    browser.run(click_errors)
    ascending = browser.run(column)
    assert [errors[p] for p in ascending] == sorted(errors.values())
    browser.run(click_errors)
    descending = browser.run(column)
    assert [errors[p] for p in descending] == sorted(errors.values(), reverse=True)
    assert descending[0] == "src/l2_window.cu"
    assert browser.run("return document.querySelectorAll('#files-table thead th')[5].getAttribute('aria-sort')") \
        == "descending"


def test_a_finding_shows_its_source_line_and_help(browser, pages):
    html, _ = pages
    browser.get(html.as_uri())
    article = browser.run(
        "const a = document.getElementById('finding-3-3');"
        "return [a.querySelector('mark').textContent, a.querySelector('.target').textContent,"
        " a.querySelector('.help').textContent, a.querySelectorAll('pre.source .ln').length]")
    mark, line, help_text, context_lines = article
    assert mark == "cudaCtxResetPersistingL2Cache"
    assert line.strip() == "CUDA_CHECK(cudaCtxResetPersistingL2Cache());"
    assert help_text.startswith("HIP has no counterpart")
    assert context_lines == 4  # two lines before, the line, one after (the file ends)


def test_a_long_path_does_not_overflow_the_page(browser, tmp_path):
    """A file table of deep paths wraps them: nothing sticks out of the page's column."""
    deep = tmp_path / "src" / ("a_rather_long_directory_name_" * 4) / ("deeper_still_" * 6)
    deep.mkdir(parents=True)
    (deep / ("kernel_with_a_very_long_name_" * 3 + ".cu")).write_text(
        "#include <cuda_runtime.h>\nvoid f() { cudaStreamSetAttribute(0, 0, 0); }\n")
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(tmp_path / "src"), "--format", "html", "-o", str(page)])
    assert result.exit_code == 0, result.output
    browser.get(page.as_uri())
    main_box, table_box = browser.run(
        "const m = document.querySelector('main').getBoundingClientRect();"
        "const t = document.getElementById('files-table').getBoundingClientRect();"
        "return [[m.left, m.right], [t.left, t.right]];")
    assert main_box[0] <= table_box[0] and table_box[1] <= main_box[1]
