"""The JSON report: the design.md contract, effort numbers, graph summary, determinism."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import sample_result  # noqa: E402

from hipscan import __version__  # noqa: E402
from hipscan.report import ReportContext, render, write_report  # noqa: E402


def test_contract(tmp_path):
    _, result = sample_result(tmp_path)
    doc = json.loads(render("json", result))
    assert list(doc)[:7] == ["tool", "version", "schema", "root", "files", "findings", "summary"]
    assert doc["tool"] == "hipscan" and doc["version"] == __version__ and doc["schema"] == 1
    assert [f["path"] for f in doc["files"]] == sorted(f.path for f in result.files)
    assert {f["status"] for f in doc["files"]} == {"ok"}
    for f in doc["findings"]:
        for key in ("rule", "category", "severity", "path", "line", "column", "message", "effort"):
            assert key in f
        assert set(f["effort_hours"]) == {"low", "likely", "high", "mean"}
        assert len(f["fingerprint"]) == 32
    keys = [(f["path"], f["line"], f["column"]) for f in doc["findings"]]
    assert keys == sorted(keys)


def test_summary_has_effort_and_graph(tmp_path):
    _, result = sample_result(tmp_path)
    ctx = ReportContext.for_result(result)
    s = json.loads(render("json", result, ctx))["summary"]
    assert s["findings"] == 5 and s["by_severity"] == {
        "blocker": 1,
        "high": 2,
        "medium": 1,
        "low": 1,
    }
    assert s["readiness"] == ctx.effort.readiness
    effort = s["effort"]
    assert effort["person_days"]["likely"] == round(ctx.effort.person_days.likely, 2)
    assert effort["blockers"] == [
        {
            "rule": "HIP101",
            "path": "src/tree.cu",
            "line": 4,
            "column": 3,
            "message": "HIP101 at child<<<",
        }
    ]
    assert [p["files"] for p in effort["migration_order"]][1] == [
        "common/config.h",
        "common/warp.cuh",
    ]
    assert s["graph"]["device_side_launchers"] == ["parent"]


def test_translations_are_included_when_given(tmp_path):
    _, result = sample_result(tmp_path)

    class T:
        def to_dict(self):
            return {"source": "src/reduce.cu", "converted": {"cudaMalloc": 2}, "markers": 1}

    doc = json.loads(render("json", result, ReportContext(translations=[T()])))
    assert doc["translations"] == [T().to_dict()]


def test_deterministic_and_atomic_write(tmp_path):
    _, result = sample_result(tmp_path / "p")
    out = tmp_path / "out" / "report.json"
    first = write_report("json", result, out)
    assert out.read_text() == first == render("json", result)
    assert [p.name for p in out.parent.iterdir()] == ["report.json"]  # no temp file left
    assert oct(out.stat().st_mode & 0o777) != "0o600"
