"""Baselines: accept today's findings, fail CI only on new ones, however much the code moves.

A finding is identified without its line number: rule, path, the source line's text with
whitespace normalised, and the enclosing function. Two runs agree on that key after lines are
inserted above a finding; when several findings share a key, the nearest line wins. The same
key, plus an occurrence index, gives SARIF's ``partialFingerprints``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hipscan.model import Finding

BASELINE_SCHEMA = 1
_SPACE = re.compile(r"\s+")


class BaselineError(ValueError):
    """An unreadable or malformed baseline file."""


def normalise_snippet(snippet: str) -> str:
    """Whitespace-insensitive form of a source line: re-indenting code is not a new finding."""
    return _SPACE.sub(" ", snippet).strip()


def finding_key(f: Finding) -> tuple[str, str, str, str]:
    return (f.rule, f.path, normalise_snippet(f.snippet), f.function)


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """A stable hash per finding: rule + path + normalised snippet + occurrence index.

    The occurrence index counts earlier findings (in line order) with the same rule, path and
    snippet, so two identical lines in one file keep distinct fingerprints while a line moving
    up or down keeps its own.
    """
    order = sorted(range(len(findings)), key=lambda i: findings[i].sort_key)
    seen: dict[tuple, int] = defaultdict(int)
    out = [""] * len(findings)
    for i in order:
        f = findings[i]
        key = (f.rule, f.path, normalise_snippet(f.snippet))
        n = seen[key]
        seen[key] += 1
        text = "\x1f".join((*key, str(n)))
        out[i] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    return out


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    rule: str
    path: str
    snippet: str  # normalised
    function: str
    line: int
    message: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.rule, self.path, self.snippet, self.function)


def baseline_dict(findings: Iterable[Finding], version: str) -> dict:
    rows = [
        {
            "rule": f.rule,
            "path": f.path,
            "line": f.line,
            "function": f.function,
            "snippet": normalise_snippet(f.snippet),
            "message": f.message,
        }
        for f in sorted(findings, key=lambda f: f.sort_key)
    ]
    return {"tool": "hipscan", "version": version, "baseline": BASELINE_SCHEMA, "findings": rows}


def render_baseline(findings: Iterable[Finding], version: str) -> str:
    return json.dumps(baseline_dict(findings, version), indent=2) + "\n"


def load_baseline(path: Path) -> list[BaselineEntry]:
    try:
        doc = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as e:
        raise BaselineError(f"{path}: cannot read baseline: {e}") from e
    if not isinstance(doc, dict) or doc.get("tool") != "hipscan" or "findings" not in doc:
        raise BaselineError(f"{path}: not a hipscan baseline (write one with `hipscan baseline`)")
    if doc.get("baseline") != BASELINE_SCHEMA:
        raise BaselineError(f"{path}: baseline schema {doc.get('baseline')!r} is not supported")
    try:
        return [
            BaselineEntry(
                rule=str(r["rule"]),
                path=str(r["path"]),
                snippet=normalise_snippet(str(r.get("snippet", ""))),
                function=str(r.get("function", "")),
                line=int(r.get("line", 0)),
                message=str(r.get("message", "")),
            )
            for r in doc["findings"]
        ]
    except (KeyError, TypeError, ValueError) as e:
        raise BaselineError(f"{path}: malformed baseline entry: {e}") from e


@dataclass(frozen=True, slots=True)
class BaselineMatch:
    new: list[Finding]  # not in the baseline: these fail the gate
    known: list[Finding]  # matched a baseline entry
    fixed: list[BaselineEntry]  # baseline entries no finding matched any more


def compare(findings: Iterable[Finding], baseline: Sequence[BaselineEntry]) -> BaselineMatch:
    """Match findings to baseline entries one-to-one: same key, then nearest line."""
    pool: dict[tuple, list[int]] = defaultdict(list)
    for ei, entry in enumerate(baseline):
        pool[entry.key].append(ei)
    current: dict[tuple, list[Finding]] = defaultdict(list)
    for f in sorted(findings, key=lambda f: f.sort_key):
        current[finding_key(f)].append(f)

    new: list[Finding] = []
    known: list[Finding] = []
    used: set[int] = set()  # baseline indices already matched
    for key, group in current.items():
        # All (distance, finding, entry) pairs, closest first; a greedy pass over them is
        # exact enough for the handful of identical lines one key ever has.
        pairs = sorted(
            (abs(f.line - baseline[ei].line), fi, ei)
            for fi, f in enumerate(group)
            for ei in pool.get(key, ())
        )
        matched: set[int] = set()
        for _, fi, ei in pairs:
            if fi not in matched and ei not in used:
                matched.add(fi)
                used.add(ei)
        for fi, f in enumerate(group):
            (known if fi in matched else new).append(f)
    return BaselineMatch(
        new=sorted(new, key=lambda f: f.sort_key),
        known=sorted(known, key=lambda f: f.sort_key),
        fixed=[e for ei, e in enumerate(baseline) if ei not in used],
    )
