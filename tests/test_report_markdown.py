"""The Markdown PR comment: summary table, worst findings first, capped, injection-proof."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import sample_result  # noqa: E402

from hipscan.report import ReportContext, render  # noqa: E402


def test_summary_and_order(tmp_path):
    _, result = sample_result(tmp_path)
    ctx = ReportContext.for_result(result)
    md = render("markdown", result, ctx)
    assert md.startswith("## hipscan: ROCm/HIP portability\n")
    assert f"| **{ctx.effort.readiness}/100** | 5 | 1 |" in md
    rows = [line for line in md.splitlines() if line.startswith("| ") and "`" in line]
    severities = ("blocker", "high", "medium", "low", "info")
    rows = [r for r in rows if r.split("|")[1].strip() in severities]  # not the component rows
    assert [r.split("|")[1].strip() for r in rows] == ["blocker", "high", "high", "medium", "low"]


def test_capped_for_a_pr_comment(tmp_path):
    _, result = sample_result(tmp_path)
    base = result.findings[0]
    result.findings = [replace(base, line=base.line + k) for k in range(300)]
    md = render("markdown", result, ReportContext(markdown_limit=10))
    assert sum(1 for line in md.splitlines() if line.startswith("| medium")) == 10
    assert "…and 290 more" in md
    assert len(md) < 5000


def test_source_text_cannot_break_the_table(tmp_path):
    _, result = sample_result(tmp_path)
    f = result.findings[0]
    result.findings = [
        replace(
            f,
            message="a | b <img src=x onerror=alert(1)> `x|y` **y** @team [l](http://e.invalid)",
            path="we`ird|p.cu",
        )
    ]
    md = render("markdown", result)
    row = next(line for line in md.splitlines() if line.startswith("| medium"))
    assert row.count(" | ") == 3  # still four cells
    assert "<img" not in md and "&lt;img" in md
    assert "`x\\|y`" in row  # a balanced code span is kept, its pipe escaped
    assert "\\*\\*y\\*\\*" in row and "&#64;team" in row and "\\[l\\](http" in row
    assert "``we`ird\\|p.cu:" in row  # the backtick sits inside a longer fence


def test_unbalanced_backticks_are_escaped(tmp_path):
    _, result = sample_result(tmp_path)
    result.findings = [replace(result.findings[0], message="odd ` tick | pipe")]
    row = next(line for line in render("markdown", result).splitlines() if line.startswith("| medium"))
    assert "odd \\` tick \\| pipe" in row and row.count(" | ") == 3
