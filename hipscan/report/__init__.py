"""Report writers, one module per format, all ``render_<fmt>(result, ctx) -> str``.

``render(fmt, result, ctx)`` picks the writer; ``write_report`` puts the text on disk atomically
(a temporary file in the same folder, then ``os.replace``), so a CI job never reads half a file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from hipscan.model import ScanResult
from hipscan.report.context import ReportContext, RuleMeta, summary

FORMATS = ("text", "json", "sarif", "markdown", "html")


def _writer(fmt: str) -> Callable[[ScanResult, ReportContext], str]:
    if fmt == "text":
        from hipscan.report.text import render_text as w
    elif fmt == "json":
        from hipscan.report.json_report import render_json as w
    elif fmt == "sarif":
        from hipscan.report.sarif import render_sarif as w
    elif fmt == "markdown":
        from hipscan.report.markdown import render_markdown as w
    elif fmt == "html":
        from hipscan.report.html import render_html as w
    else:
        raise ValueError(f"unknown report format {fmt!r} (choose from {', '.join(FORMATS)})")
    return w


def render(fmt: str, result: ScanResult, ctx: ReportContext | None = None) -> str:
    ctx = (ctx or ReportContext()).ensure(result)
    return _writer(fmt)(result, ctx)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so readers see the old file or the whole new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; a report is an ordinary file
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_report(fmt: str, result: ScanResult, path: Path, ctx: ReportContext | None = None) -> str:
    text = render(fmt, result, ctx)
    write_atomic(path, text)
    return text


__all__ = [
    "FORMATS",
    "ReportContext",
    "RuleMeta",
    "render",
    "summary",
    "write_atomic",
    "write_report",
]
