"""Precision and recall of the rules on a labelled corpus.

Run ``python -m hipscan.rules.evaluate DIR``.

A corpus file marks each line that must produce a finding with a trailing ``// expect: HIP101``
(``# expect:`` in build files; several ids comma-separated). Every finding on an unmarked line is
a false positive; every marker without its finding is a false negative. Results are grouped by
the corpus's first-level folder (one per category).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from hipscan.config import ScanConfig

# `// expect: HIP351` at a line's end, or `/* expect: HIP354 */ \` on a line a backslash continues
MARKER = re.compile(r"(?://|#|/\*)\s*expect:\s*([A-Z0-9_, ]+?)\s*(?:\*/\s*\\)?$")
CORPUS_SUFFIXES = {
    ".cu",
    ".cuh",
    ".h",
    ".hpp",
    ".cpp",
    ".cc",
    ".c",
    ".txt",
    ".cmake",
    ".py",
    ".json",
}

Key = tuple[str, int, str]  # (path relative to the corpus root, line, rule id)


def expected_findings(root: Path) -> set[Key]:
    """The (file, line, rule) triples the markers of every corpus file ask for."""
    out: set[Key] = set()
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.name == "README.md":
            continue
        if path.suffix not in CORPUS_SUFFIXES and not path.name.startswith("Makefile"):
            continue
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            m = MARKER.search(line)
            if m:
                for rule in m.group(1).split(","):
                    if rule.strip():
                        out.add((rel, lineno, rule.strip()))
    return out


# Fixtures for rules that depend on the target ROCm release sit in folders named for it and are
# scanned with that --rocm-version (e.g. cooperative-groups/rocm5.2/); the rest with the default.
VERSION_FOLDER = "rocm"
# Fixtures whose rules look at the whole project (a PyTorch extension is hipified by torch's
# table) sit in folders named project-* and are each scanned as a project of their own.
PROJECT_FOLDER = "project-"


def actual_findings(root: Path, config: ScanConfig | None = None) -> tuple[set[Key], list[str]]:
    """What the real front end and rule engine report on the corpus, and files that failed."""
    from dataclasses import replace

    from hipscan.api import scan

    config = config or ScanConfig(jobs=1)
    config = replace(config, select=("HIP",))  # every rule, those off by default too
    versioned = sorted(p for p in root.rglob(f"{VERSION_FOLDER}*") if p.is_dir())
    projects = sorted(p for p in root.rglob(f"{PROJECT_FOLDER}*") if p.is_dir())
    own = (f"{VERSION_FOLDER}*", f"{PROJECT_FOLDER}*")
    runs = [(root, replace(config, extra_exclude=config.extra_exclude + own))]
    for folder in versioned:
        version = tuple(int(x) for x in folder.name[len(VERSION_FOLDER) :].split("."))
        runs.append((folder, replace(config, rocm_version=version)))
    runs += [(folder, config) for folder in projects]
    found: set[Key] = set()
    failed: list[str] = []
    for path, cfg in runs:
        prefix = path.relative_to(root).as_posix()
        result = scan([path], cfg, keep_facts=False)

        def rel(p: str, prefix: str = prefix) -> str:
            return f"{prefix}/{p}" if prefix != "." else p

        failed += [
            f"{rel(f.path)}: {f.status}" for f in result.files if f.status.startswith(("error", "skip"))
        ]
        found |= {(rel(f.path), f.line, f.rule) for f in result.findings}
    return found, failed


@dataclass
class Score:
    tp: int = 0
    fp: list[Key] = field(default_factory=list)
    fn: list[Key] = field(default_factory=list)

    @property
    def precision(self) -> float:
        found = self.tp + len(self.fp)
        return self.tp / found if found else 1.0

    @property
    def recall(self) -> float:
        wanted = self.tp + len(self.fn)
        return self.tp / wanted if wanted else 1.0


def score(expected: set[Key], actual: set[Key]) -> dict[str, Score]:
    """Per first-level folder: true positives, false positives and false negatives."""
    by: dict[str, Score] = defaultdict(Score)
    for key in expected | actual:
        group = key[0].split("/", 1)[0] if "/" in key[0] else "."
        s = by[group]
        if key in expected and key in actual:
            s.tp += 1
        elif key in actual:
            s.fp.append(key)
        else:
            s.fn.append(key)
    return dict(sorted(by.items()))


def render(scores: dict[str, Score], verbose: bool = False) -> str:
    lines = [f"{'category':32} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>9} {'recall':>7}"]
    total = Score()
    for group, s in scores.items():
        lines.append(f"{group:32} {s.tp:4d} {len(s.fp):4d} {len(s.fn):4d} {s.precision:9.2f} {s.recall:7.2f}")
        total.tp += s.tp
        total.fp += s.fp
        total.fn += s.fn
        if verbose:
            lines += [f"    FP {p}:{line} {rule}" for p, line, rule in sorted(s.fp)]
            lines += [f"    FN {p}:{line} {rule}" for p, line, rule in sorted(s.fn)]
    lines.append(
        f"{'total':32} {total.tp:4d} {len(total.fp):4d} {len(total.fn):4d} "
        f"{total.precision:9.2f} {total.recall:7.2f}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hipscan.rules.evaluate", description=__doc__)
    parser.add_argument("corpus", type=Path, nargs="?", default=Path("fixtures/rules"))
    parser.add_argument("-v", "--verbose", action="store_true", help="list every FP and FN")
    parser.add_argument("--jobs", type=int, default=0)
    args = parser.parse_args(argv)
    root = args.corpus.resolve()
    if not root.is_dir():
        parser.error(f"{args.corpus}: not a directory")
    actual, failed = actual_findings(root, ScanConfig(jobs=args.jobs))
    scores = score(expected_findings(root), actual)
    print(render(scores, args.verbose))
    for line in failed:
        print(f"not scanned: {line}", file=sys.stderr)
    return 0 if not failed and all(not s.fp and not s.fn for s in scores.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
