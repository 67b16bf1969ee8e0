"""Compiler-style text: one ``path:line:col: RULE [severity] message`` per finding, then a summary.

Editors and CI log parsers already understand this shape, so findings become clickable.
"""

from __future__ import annotations

from hipscan.model import ScanResult
from hipscan.report.context import ReportContext, summary
from hipscan.textsafe import escape_controls

MAX_NOTES = 20  # related locations printed per finding (the JSON and SARIF carry them all)


def format_finding(f) -> str:
    """The finding's line, then a compiler-style `note:` line per related location; control
    characters in names are escaped, so each stays one line whatever the file is called."""
    head = escape_controls(f"{f.path}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message}")
    related = getattr(f, "related", ())
    if not related:
        return head
    notes = [
        escape_controls(f"{r.path}:{r.line}:{r.column}: note: {_role(r.role)}") for r in related[:MAX_NOTES]
    ]
    if len(related) > MAX_NOTES:
        notes.append(
            escape_controls(f"{f.path}:{f.line}:{f.column}: note: and {len(related) - MAX_NOTES} more uses")
        )
    return "\n".join([head, *notes])


def _role(role: str) -> str:
    return "defined here" if role == "definition" else f"used here: {role}"


def render_text(result: ScanResult, ctx: ReportContext) -> str:
    lines = [format_finding(f) for f in sorted(result.findings, key=lambda f: f.sort_key)]
    head = "\n".join(lines) + "\n\n" if lines else ""
    return head + render_summary(result, ctx)


def context_lines(effort) -> list[str]:
    """What changes how the estimate reads: a HIP build already there, bundled trees left out."""
    out = []
    builds = [e for e in effort.hip_build if e.kind == "build"]
    arms = [e for e in effort.hip_build if e.kind == "source"]
    if builds:
        more = f" and {len(arms)} file(s) with HIP arms" if arms else ""
        out.append(
            "HIP build path found: "
            + "; ".join(str(e) for e in builds[:3])
            + more
            + ": only what that build still compiles wrongly is priced"
        )
    elif arms:
        out.append(
            f"HIP code paths found in {len(arms)} file(s) (e.g. {arms[0]}): those files are priced "
            "for their findings only"
        )
    for t in effort.vendored:
        out.append(
            f"bundled {t.name} ({t.path}/, {t.files} files): {t.advice}; left out of the scan "
            f"(--include-vendored scans it), {t.hours[1]:g} h"
        )
    return out


def render_summary(result: ScanResult, ctx: ReportContext) -> str:
    """The two closing lines: counts, then readiness and effort."""
    lines: list[str] = []
    s = summary(result, ctx)
    effort = ctx.effort
    days = effort.person_days
    by_sev = ", ".join(f"{n} {sev}" for sev, n in s["by_severity"].items()) or "none"
    failed = {k: v for k, v in s["file_status"].items() if k != "ok"}
    lines.append(
        f"{s['findings']} finding(s) ({by_sev}) from {s['rules']} rule(s) in "
        f"{s['files']} file(s), {s['lines']} lines"
        + (f"; file status: {', '.join(f'{n} {k}' for k, n in failed.items())}" if failed else "")
    )
    lines.append(
        f"readiness {effort.readiness}/100; effort {days.low:.1f}-{days.high:.1f} person-days "
        f"(likely {days.likely:.1f}, PERT mean {days.mean:.1f}); "
        f"{len(effort.blockers)} blocker(s)"
    )
    lines += context_lines(effort)
    return "\n".join(lines) + "\n"
