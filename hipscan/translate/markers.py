"""``// HIPSCAN`` comment lines: one above every finding, one per untranslatable name, a summary.

Markers are whole comment lines put in front of a line, so the code itself keeps its columns and
the only line-number change is the inserted lines, which :class:`LineMap` records. A marker for a
line inside a macro continuation or a multi-line comment/raw string goes above the construct,
where a comment line is still valid C++.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from hipscan.model import Finding
from hipscan.translate.mapping import HipMap
from hipscan.translate.result import LineMap, Marker, Unconverted
from hipscan.translate.source import SourceLayout

UNTRANSLATED = "untranslated"
ARGUMENTS = "arguments"  # a renamed call whose HIP twin needs an argument only a person can give
DEFAULT_TODO = "port this by hand; the hipscan report explains the rule"


def _one_line(text: str) -> str:
    """A comment-safe single line: no newlines, no trailing backslash (it would splice)."""
    text = re.sub(r"\s+", " ", text).strip()
    return text.rstrip("\\ ").strip()


def marker_text(rule: str, message: str, todo: str) -> str:
    return _one_line(f"// HIPSCAN {rule}: {_one_line(message)} — {_one_line(todo) or DEFAULT_TODO}")


@dataclass(slots=True)
class PlannedMarker:
    rule: str
    line: int  # the line the finding is on
    at: int  # the line the comment goes above
    text: str


def plan_markers(
    layout: SourceLayout,
    findings: list[Finding],
    unconverted: list[Unconverted],
    hipmap: HipMap,
    manual: list[Unconverted] = (),
) -> list[PlannedMarker]:
    planned: list[PlannedMarker] = []
    seen: set[tuple[int, str]] = set()
    by_line: dict[int, list[Finding]] = {}
    for f in sorted(findings, key=lambda f: f.sort_key):
        by_line.setdefault(f.line, []).append(f)
        at = layout.safe_line(f.line)
        text = marker_text(f.rule, f.message, f.fix)
        if (at, text) in seen:
            continue
        seen.add((at, text))
        planned.append(PlannedMarker(f.rule, f.line, at, text))
    lines: dict[int, list[Unconverted]] = {}
    for u in unconverted:
        covered = any(
            u.name in f.message or u.name in f.snippet and f.category == "unmapped-api"
            for f in by_line.get(u.line, [])
        )
        if not covered:
            lines.setdefault(u.line, []).append(u)
    for line, items in sorted(lines.items()):
        names = list(dict.fromkeys(u.name for u in items))
        reasons = {u.reason for u in items}
        roc = [
            f"{hipmap.unsupported[n].roc_name} ({hipmap.unsupported[n].roc_library})"
            for n in names
            if n in hipmap.unsupported and hipmap.unsupported[n].roc_name
        ]
        message = (
            ", ".join(names)
            + (" has" if len(names) == 1 else " have")
            + f" {'; '.join(sorted(reasons))}; left as written"
        )
        todo = (
            f"consider {', '.join(roc)}" if roc else "rewrite with a HIP alternative or keep a CUDA-only path"
        )
        at = layout.safe_line(line)
        text = marker_text(UNTRANSLATED, message, todo)
        if (at, text) not in seen:
            seen.add((at, text))
            planned.append(PlannedMarker(UNTRANSLATED, line, at, text))
    for u in manual:
        at = layout.safe_line(u.line)
        text = marker_text(ARGUMENTS, f"`{u.name}`: {u.reason}", "complete the call's arguments by hand")
        if (at, text) not in seen:
            seen.add((at, text))
            planned.append(PlannedMarker(ARGUMENTS, u.line, at, text))
    return planned


def summary_line(source: str, version: str, planned: list[PlannedMarker]) -> str:
    counts = Counter(p.rule for p in planned)
    if counts:
        parts = ", ".join(f"{rule} x{n}" for rule, n in sorted(counts.items()))
        remaining = f"{sum(counts.values())} marker(s) remain: {parts}"
    else:
        remaining = "no markers remain"
    return _one_line(f"// HIPSCAN: HIP translation of {source} by hipscan {version}; {remaining}")


def insert_markers(
    text: bytes,
    layout: SourceLayout,
    planned: list[PlannedMarker],
    summary: str,
    head: tuple[str, ...] = (),
    head_at: int = 1,
) -> tuple[bytes, LineMap, list[Marker]]:
    """Insert the summary before line 1, ``head`` lines before line ``head_at`` and each marker
    above its line, with that line's indentation."""
    newline = b"\r\n" if b"\r\n" in text[: text.find(b"\n") + 1 or None] else b"\n"
    groups: dict[int, list[bytes]] = {1: [summary.encode("utf-8")]}
    groups.setdefault(max(1, head_at), []).extend(h.encode("utf-8") for h in head)
    for p in sorted(planned, key=lambda p: (p.at, p.line)):
        groups.setdefault(p.at, []).append(layout.indentation(p.at) + p.text.encode("utf-8"))
    lines = text.split(b"\n")
    out: list[bytes] = []
    line_map = LineMap(inserted=[(at, len(g)) for at, g in sorted(groups.items())])
    for number, line in enumerate(lines, start=1):
        for comment in groups.get(number, []):
            out.append(comment + newline)
        out.append(line + (b"\n" if number < len(lines) else b""))
    markers = []
    for p in planned:
        group = groups[p.at]
        offset = group.index(layout.indentation(p.at) + p.text.encode("utf-8"))
        out_line = line_map.to_output(p.at) - len(group) + offset
        markers.append(Marker(p.rule, p.line, out_line, p.text))
    return b"".join(out), line_map, markers
