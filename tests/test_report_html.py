"""The HTML report: structure, escaping of untrusted text, and a real headless Chromium load.

The browser tests drive Chromium through the DevTools protocol over a pipe (no port, no
network) and assert the page logs no console message or exception and requests nothing but
itself. They skip when no Chromium is installed.

``python tests/test_report_html.py OUT.png [ROOT]`` renders a report (of a scan of ROOT when
``hipscan.api`` is available, else of the sample project) and saves a screenshot of it.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import Project, finding, sample_result  # noqa: E402

from hipscan.model import FileResult, ScanResult  # noqa: E402
from hipscan.report import ReportContext, render  # noqa: E402
from hipscan.report.html import markdown_html  # noqa: E402

EVIL = "</script><script>alert(1)</script>"


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


# ---------------------------------------------------------------------------------------------
# A minimal DevTools-protocol client over --remote-debugging-pipe (fd 3: commands, fd 4: replies)


class Chromium:
    def __init__(self, binary: str, timeout: float = 30.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="hipscan-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:  # runs in the child: commands on fd 3, replies on fd 4
            high_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)  # out of the way of 3 and 4
            high_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-default-apps",
                "--no-first-run",
                "--no-default-browser-check",
                "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}",
                "--window-size=1400,1000",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # fds 3 and 4 are kept too: subprocess closes unlisted fds after preexec_fn runs
            pass_fds=(3, 4, to_child_r, from_child_w),
            preexec_fn=wire,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict:
        for e in self.events:
            if e.get("method") == method:
                return e
        while True:
            e = self._read()
            self.events.append(e)
            if e.get("method") == method:
                return e

    def _read(self) -> dict:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_child], [], [], max(0.0, left))
            if not ready:
                raise TimeoutError("no reply from Chromium")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def load(self, url: str, settle: float = 0.5) -> tuple[str, list[dict]]:
        """Open ``url`` in a fresh tab; return the session id and the events seen while loading."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.events.clear()
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_for("Page.loadEventFired")
        time.sleep(settle)  # let late scripts and requests show up
        self.send("Runtime.evaluate", {"expression": "1"}, session=session)  # drain the pipe
        return session, [e for e in self.events if e.get("sessionId") == session]

    def evaluate(self, session: str, expression: str):
        res = self.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
        )
        if "exceptionDetails" in res:
            raise RuntimeError(res["exceptionDetails"])
        return res["result"].get("value")

    def screenshot(self, session: str, path: Path, width: int = 1400, height: int = 1000) -> None:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        data = self.send("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)
        shutil.rmtree(self.profile, ignore_errors=True)


def problems(events: list[dict], page_url: str) -> list[str]:
    """Console output, uncaught exceptions, log entries, and any request but the page itself."""
    out = []
    for e in events:
        method, params = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled":
            out.append(f"console.{params.get('type')}: {params.get('args')}")
        elif method == "Runtime.exceptionThrown":
            out.append(f"exception: {params.get('exceptionDetails')}")
        elif method == "Log.entryAdded":
            out.append(f"log: {params.get('entry')}")
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if url != page_url:
                out.append(f"request: {url}")
    return out


# ---------------------------------------------------------------------------------------------
# Static checks (no browser)


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts = 0
        self.external = []
        self.ids = []
        self.tags = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "script":
            self.scripts += 1
            if "src" in a:
                self.external.append(a["src"])
        if tag == "link" or (tag in ("img", "iframe", "object", "embed") and "src" in a):
            self.external.append(str(a))
        if "id" in a:
            self.ids.append(a["id"])


def evil_result(root: Path) -> ScanResult:
    """A scan whose path, snippet, message and function all carry a script-injection attempt."""
    evil_path = f"src/{EVIL.replace('/', '_')}.cu"
    text = f'const char* s = "{EVIL}";\n__global__ void k() {{ asm("trap;"); }}\n'
    project = Project(root, {evil_path: text})
    f = finding(
        project,
        "HIP301",
        evil_path,
        "asm(",
        category="inline-asm",
        severity="high",
        message=f"inline PTX {EVIL}",
        function=f"k{EVIL}",
        fix=f"rewrite {EVIL}",
    )
    return ScanResult(root, [FileResult(evil_path, "ok", lines=2)], [f], [], 0.1)


def test_html_is_one_self_contained_file(tmp_path):
    _, result = sample_result(tmp_path)
    page = render("html", result)
    c = _Collector()
    c.feed(page)
    assert c.scripts == 1 and not c.external
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "@import" not in page and "url(http" not in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert len(c.ids) == len(set(c.ids)), "duplicate element ids"
    assert "<svg" in page and page.count('class="node') >= 4  # the dependency picture


def test_html_shows_dashboard_numbers_and_migration_order(tmp_path):
    _, result = sample_result(tmp_path)
    ctx = ReportContext.for_result(result)
    page = render("html", result, ctx)
    assert f'id="readiness-score">{ctx.effort.readiness}<' in page
    days = ctx.effort.person_days
    assert f"{days.low:.1f}–{days.high:.1f}" in page
    # blockers first: the blocker section precedes the findings and names the device launch
    assert page.index('id="blockers"') < page.index('id="findings"')
    blockers = page[page.index('id="blockers"') : page.index('id="graph"')]
    assert "src/tree.cu:4:3" in blockers and "HIP101" in blockers
    order = page[page.index('id="order"') : page.index('id="files"')]
    assert order.index("common/config.h, common/warp.cuh") < order.index("src/tree.cu")
    # the excerpt marks the finding's own line
    assert '<span class="hit"><i>4</i>  child&lt;&lt;&lt;1, 32&gt;&gt;&gt;(x);</span>' in page


def test_untrusted_text_is_escaped_everywhere(tmp_path):
    result = evil_result(tmp_path)
    page = render("html", result)
    assert EVIL not in page
    assert "<script>alert" not in page
    assert page.count("<script>") == 1  # only the report's own
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_rule_documentation_markdown_is_escaped_then_formatted():
    html = markdown_html(f"# Title {EVIL}\n\nUse `a<b>` and **bold**.\n\n```\n{EVIL}\n```\n- x")
    assert EVIL not in html
    assert "<h4>Title &lt;/script&gt;" in html
    assert "<code>a&lt;b&gt;</code>" in html and "<strong>bold</strong>" in html
    assert "<pre><code>&lt;/script&gt;" in html and "<ul><li>x</li></ul>" in html


def test_rule_metadata_from_a_mapping_appears(tmp_path):
    _, result = sample_result(tmp_path)
    rules = {
        "HIP101": {
            "id": "HIP101",
            "title": "Kernel launched from device code",
            "doc_markdown": "## Why\n\nHIP has no dynamic parallelism.",
        }
    }
    page = render("html", result, ReportContext(rules=rules))
    assert "Kernel launched from device code" in page
    assert "HIP has no dynamic parallelism." in page


# ---------------------------------------------------------------------------------------------
# In a real browser


@pytest.fixture(scope="module")
def browser():
    binary = chromium_binary()
    if binary is None:
        pytest.skip("chromium is not installed")
    b = Chromium(binary)
    yield b
    b.close()


def _open(browser: Chromium, page_path: Path):
    url = page_path.resolve().as_uri()
    session, events = browser.load(url)
    return session, problems(events, url)


def test_harness_sees_console_output_and_requests(browser, tmp_path):
    page = tmp_path / "noisy.html"
    page.write_text(
        "<!DOCTYPE html><title>x</title><img src='http://127.0.0.1:9/x.png'>"
        "<script>console.error('boom'); undefinedFunction();</script>"
    )
    _, issues = _open(browser, page)
    assert any(i.startswith("console.error") for i in issues)
    assert any(i.startswith("exception") for i in issues)
    assert any(i == "request: http://127.0.0.1:9/x.png" for i in issues)


def test_report_loads_in_chromium_without_errors_or_requests(browser, tmp_path):
    _, result = sample_result(tmp_path / "proj")
    page = tmp_path / "report.html"
    page.write_text(render("html", result))
    session, issues = _open(browser, page)
    assert issues == []
    assert browser.evaluate(session, "document.getElementById('readiness-score').textContent")
    assert browser.evaluate(session, "document.querySelectorAll('svg .node').length") >= 4
    # the filter and the sort work
    count = browser.evaluate(
        session,
        "var i=document.getElementById('file-with-findings'); i.checked=true;"
        "i.dispatchEvent(new Event('change'));"
        "document.querySelectorAll('#file-table tbody tr:not(.hidden)').length",
    )
    assert count == 4  # CMakeLists.txt, warp.cuh, reduce.cu, tree.cu
    first = browser.evaluate(
        session,
        "var th=document.querySelectorAll('#file-table th')[7]; th.click(); th.click();"
        "document.querySelector('#file-table tbody tr').getAttribute('data-path')",
    )
    assert first == "src/tree.cu"  # most hours first after sorting descending
    shown = browser.evaluate(
        session,
        "var s=document.getElementById('finding-severity'); s.value='4';"
        "s.dispatchEvent(new Event('change'));"
        "document.getElementById('finding-count').textContent",
    )
    assert shown == f"1 of {len(result.findings)} findings"


def test_injected_script_does_not_run_in_chromium(browser, tmp_path):
    result = evil_result(tmp_path / "proj")
    page = tmp_path / "evil.html"
    page.write_text(render("html", result))
    session, issues = _open(browser, page)
    assert issues == []  # alert() would be a console/log entry or dialog; nothing ran
    scripts = browser.evaluate(session, "document.scripts.length")
    assert scripts == 1
    text = browser.evaluate(session, "document.querySelector('.finding summary').textContent")
    assert EVIL in text  # shown to the reader as text


def test_screenshot_shows_the_dashboard(browser, tmp_path):
    _, result = sample_result(tmp_path / "proj")
    page = tmp_path / "report.html"
    page.write_text(render("html", result))
    session, _ = _open(browser, page)
    shot = tmp_path / "shot.png"
    browser.screenshot(session, shot)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    top = browser.evaluate(session, "document.getElementById('dashboard').getBoundingClientRect().top")
    assert 0 <= top < 1000  # the dashboard is in the captured viewport


def main(argv: list[str]) -> int:
    """Save a screenshot of a report: ``OUT.png [ROOT]``."""
    out = Path(argv[0])
    binary = chromium_binary()
    if binary is None:
        print("chromium is not installed", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        if len(argv) > 1:
            from hipscan.api import scan
            from hipscan.config import load_config

            root = Path(argv[1]).resolve()
            result = scan([root], load_config(root, {}))
        else:
            _, result = sample_result(Path(tmp) / "sample")
        page = Path(tmp) / "report.html"
        page.write_text(render("html", result, ReportContext()))
        b = Chromium(binary)
        try:
            session, issues = _open(b, page)
            for issue in issues:
                print(issue, file=sys.stderr)
            b.screenshot(session, out)
        finally:
            b.close()
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
