"""Markdown short enough for a pull-request comment: summary table, worst findings first, capped.

Messages keep their balanced `code` spans; everything else from the scan is made inert (pipes,
HTML, links, emphasis, mentions escaped), so a scanned line cannot break the table or inject
markup into the comment. Locations sit in code spans fenced longer than any backtick run.
"""

from __future__ import annotations

from hipscan.model import ScanResult, severity_rank
from hipscan.report.context import ReportContext, summary

_MAX_CELL = 120


def _plain(text: str) -> str:
    """Markdown-inert text: no HTML, links, emphasis, headings, table pipes or @mentions."""
    for ch in "\\|*_[]#!~":
        text = text.replace(ch, "\\" + ch)
    for ch, entity in (("<", "&lt;"), (">", "&gt;"), ("@", "&#64;")):
        text = text.replace(ch, entity)
    return text


def _cell(text: str) -> str:
    """A table cell from a message: its balanced `code` spans kept, everything else inert."""
    text = " ".join(text.split())
    if len(text) > _MAX_CELL:
        text = text[: _MAX_CELL - 1] + "…"
    parts = text.split("`")
    if len(parts) % 2 == 0:  # unbalanced backticks: no code spans at all
        return _plain(text).replace("`", "\\`")
    return "".join(
        _plain(p) if i % 2 == 0 else f"`{p.replace('|', chr(92) + '|')}`" for i, p in enumerate(parts)
    )


def _code(text: str) -> str:
    """A code span that holds any text: a fence longer than the longest backtick run inside."""
    text = " ".join(text.split())[:_MAX_CELL].replace("|", "\\|")
    if not text:
        return ""
    longest = cur = 0
    for ch in text:
        cur = cur + 1 if ch == "`" else 0
        longest = max(longest, cur)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


COMPONENTS_SHOWN = 8
RULES_SHOWN = 6


def _planning(effort, ctx: ReportContext) -> list[str]:
    """Where the work is (costliest components) and what is hard (rules by hours), a few rows each."""
    out: list[str] = []
    hpd = effort.hours_per_day
    for e in [e for e in effort.hip_build if e.kind == "build"][:1]:
        out.append(
            f"HIP build path found: {_code(f'{e.path}:{e.line}')} ({_cell(e.what)}): "
            "only what it still compiles wrongly is priced."
        )
    for t in effort.vendored[:3]:
        out.append(f"Bundled {_cell(t.name)} ({_code(t.path + '/')}): {_cell(t.advice)}.")
    if out:
        out.append("")
    plan = ctx.plan
    if len(plan.components) > 1:
        out += [
            f"| {plan.kind} | findings | blockers | readiness | person-days | costliest rule |",
            "|---|---:|---:|---:|---|---|",
        ]
        for c in plan.components[:COMPONENTS_SHOWN]:
            top = f"{c.rules[0].rule} ×{c.rules[0].count}" if c.rules else ""
            out.append(
                f"| {_code(c.name)} | {c.findings} | {c.blockers} | {c.readiness} "
                f"| {c.hours.likely / hpd:.1f} ({c.hours.low / hpd:.1f}–{c.hours.high / hpd:.1f}) | {top} |"
            )
        if len(plan.components) > COMPONENTS_SHOWN:
            out.append(f"\n…{len(plan.components) - COMPONENTS_SHOWN} more components in the HTML report.")
        out.append("")
    if plan.hard_rules:
        rules = [
            f"{_cell(g.rule)} {_cell(g.title)} ×{g.count} ({g.hours.likely:.0f} h)"
            for g in plan.hard_rules[:RULES_SHOWN]
        ]
        out += ["Costliest rules: " + "; ".join(rules), ""]
    return out


def render_markdown(result: ScanResult, ctx: ReportContext) -> str:
    s = summary(result, ctx)
    effort = ctx.effort
    days = effort.person_days
    out = ["## hipscan: ROCm/HIP portability", ""]
    out += [
        "| readiness | findings | blockers | effort (person-days) | files |",
        "|---:|---:|---:|---|---:|",
        f"| **{effort.readiness}/100** | {s['findings']} | {len(effort.blockers)} "
        f"| {days.low:.1f}–{days.high:.1f} (likely {days.likely:.1f}) | {s['files']} |",
        "",
    ]
    out += _planning(effort, ctx)
    if s["by_severity"]:
        out.append("By severity: " + ", ".join(f"{n} {sev}" for sev, n in s["by_severity"].items()))
        cats = list(s["by_category"].items())
        more = f", +{len(cats) - 8} more" if len(cats) > 8 else ""
        out.append("By category: " + ", ".join(f"{n} {c}" for c, n in cats[:8]) + more)
        out.append("")

    ranked = sorted(
        result.findings,
        key=lambda f: (-severity_rank(f.severity), f.path, f.line, f.column, f.rule),
    )
    limit = max(0, ctx.markdown_limit)
    if ranked:
        out += [
            "| severity | rule | location | message |",
            "|---|---|---|---|",
        ]
        for f in ranked[:limit]:
            out.append(
                f"| {f.severity} | {_cell(f.rule)} | {_code(f'{f.path}:{f.line}:{f.column}')} "
                f"| {_cell(f.message)} |"
            )
        if len(ranked) > limit:
            out.append("")
            out.append(f"…and {len(ranked) - limit} more. Full list: `hipscan scan --format html`.")
    else:
        out.append("No portability findings.")
    out += _features(result)
    bad = {k: v for k, v in s["file_status"].items() if k != "ok"}
    if bad:
        out += ["", "File status: " + ", ".join(f"{n} {_cell(k)}" for k, n in bad.items())]
    return "\n".join(out) + "\n"


_MAX_FEATURES = 40


def _features(result: ScanResult) -> list[str]:
    """The feature inventory: what the code uses, with what hipify does with it (no effort)."""
    if not result.features:
        return []
    out = [
        "",
        "<details><summary>CUDA features in use</summary>",
        "",
        "| feature | files | uses | hipify | on ROCm |",
        "|---|---:|---:|---|---|",
    ]
    for f in result.features[:_MAX_FEATURES]:
        out.append(
            f"| {_cell(f['title'])} | {f['files']} | {f['uses']} | {_cell(f['hipify'])} | {_cell(f['hip'])} |"
        )
    out += ["", "</details>"]
    return out
