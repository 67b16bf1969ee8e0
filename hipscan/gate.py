"""The CI gate: decide from a scan whether a change may merge, and say why not.

Two conditions fail the gate: a finding at or above a severity (by default only findings of at
least medium confidence count), and a readiness score below a minimum. A baseline narrows the
findings to the new ones (those it does not know); ``--diff-base`` narrows them to files a git
ref's diff touches. The score stays a property of the whole project.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from hipscan.baseline import BaselineEntry, compare
from hipscan.model import CONFIDENCES, SEVERITIES, Finding, ScanResult

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class GateError(Exception):
    """A problem with the gate's inputs (bad git ref, unreadable baseline): exit code 2."""


@dataclass(frozen=True, slots=True)
class GateOptions:
    fail_on: str | None = "high"  # severity threshold; None disables the severity check
    min_confidence: str = "medium"
    min_score: int | None = None
    baseline: list[BaselineEntry] | None = None
    changed: frozenset[str] | None = None  # scan-root-relative paths; None = every file

    def __post_init__(self) -> None:
        if self.fail_on is not None and self.fail_on not in SEVERITIES:
            raise GateError(f"--fail-on must be one of {', '.join(SEVERITIES)}")
        if self.min_confidence not in CONFIDENCES:
            raise GateError(f"--min-confidence must be one of {', '.join(CONFIDENCES)}")
        if self.min_score is not None and not 0 <= self.min_score <= 100:
            raise GateError("--min-score must be between 0 and 100")


@dataclass(slots=True)
class GateResult:
    reasons: list[str] = field(default_factory=list)
    failing: list[Finding] = field(default_factory=list)  # findings that broke the gate
    considered: int = 0  # findings in scope after --diff-base and the confidence filter
    known: int = 0  # findings the baseline accepted

    @property
    def failed(self) -> bool:
        return bool(self.reasons)

    @property
    def exit_code(self) -> int:
        return EXIT_FAILED if self.failed else EXIT_OK


def evaluate(result: ScanResult, readiness: int, options: GateOptions) -> GateResult:
    """Apply the gate's conditions to a scan.

    With a baseline, findings it already knows are accepted; the severity threshold then
    applies to the new ones only (``--fail-on info`` fails on any new finding).
    """
    out = GateResult()
    conf_min = CONFIDENCES.index(options.min_confidence)
    scope = [
        f
        for f in result.findings
        if CONFIDENCES.index(f.confidence) >= conf_min
        and (options.changed is None or f.path in options.changed)
    ]
    out.considered = len(scope)
    where = " in changed files" if options.changed is not None else ""
    new = ""
    if options.baseline is not None:
        match = compare(scope, options.baseline)
        out.known = len(match.known)
        scope, new = match.new, " new"

    if options.fail_on is not None:
        threshold = SEVERITIES.index(options.fail_on)
        severe = [f for f in scope if SEVERITIES.index(f.severity) >= threshold]
        if severe:
            out.reasons.append(
                f"{len(severe)}{new} finding(s) at or above severity '{options.fail_on}'{where}"
                f" (confidence >= {options.min_confidence})"
                + (f"; {out.known} known finding(s) accepted by the baseline" if new else "")
            )
            out.failing = sorted(severe, key=lambda f: f.sort_key)

    if options.min_score is not None and readiness < options.min_score:
        out.reasons.append(f"readiness score {readiness} is below --min-score {options.min_score}")
    return out


def changed_files(root: Path, ref: str) -> frozenset[str]:
    """Paths (relative to ``root``) that differ between ``ref`` and the working tree's HEAD.

    Uses ``git diff --name-only REF...`` (changes since the merge base, as a pull request sees
    them), run inside ``root``; git reports paths from the repository top, so they are
    re-rooted at the scanned folder and files outside it are dropped.
    """
    root = Path(root).resolve()
    cwd = root if root.is_dir() else root.parent

    def git(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise GateError(f"cannot run git: {e}") from e
        if done.returncode != 0:
            raise GateError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    top = Path(git("rev-parse", "--show-toplevel").strip()).resolve()
    names = git("diff", "--name-only", "-z", f"{ref}...").split("\0")
    out = set()
    for name in filter(None, names):
        full = top / name
        try:
            out.add(PurePosixPath(full.relative_to(cwd)).as_posix())
        except ValueError:
            continue
    return frozenset(out)


def explain(gate: GateResult, limit: int = 20) -> list[str]:
    """Lines for the terminal: the verdict, each reason, the first failing findings."""
    if not gate.failed:
        return [f"hipscan check passed ({gate.considered} finding(s) in scope)"]
    lines = ["hipscan check FAILED:"]
    lines += [f"  - {r}" for r in gate.reasons]
    for f in gate.failing[:limit]:
        lines.append(f"{f.path}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message}")
    if len(gate.failing) > limit:
        lines.append(f"... and {len(gate.failing) - limit} more")
    return lines
