"""Does the per-file effort order follow how much each file changed in real ports? Spearman's rho.

    python3 benchmarks/effort_ranking.py CHECKOUTS LABELS [--only mamba,hypre] [--jobs 2]

CHECKOUTS holds one folder per code base, the CUDA original of a real ROCm port; LABELS holds
``<name>.csv`` per code base (rows ``path,line,end_line,kind,class,...``: ``kind`` = ``edit`` for
lines the port replaced or removed) and ``codebases.toml`` (``scan_args``: the -D options a user
would pass). Both come from the real-port label set (see docs/accuracy.md where it is present).
Nothing is fetched.

Per code base, every file the estimate knows (build files aside) gets its likely hours
(findings + translation) and its changed lines (the sum of its edit labels' line spans; files
without labels changed nothing). Spearman's rho (average ranks for ties) is printed over all
files, over the files the port changed, and with hipify's own renames left out of the changes.
Scans are saved like benchmarks/effort_anchors.py's, so re-running after an effort-model change
takes seconds.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from effort_anchors import scanned  # noqa: E402

from hipscan.config import ScanConfig  # noqa: E402
from hipscan.effort import estimate  # noqa: E402
from hipscan.graph import build_graph  # noqa: E402


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: list[float], y: list[float]) -> float | None:
    """Pearson's correlation of the ranks; None when either side is constant or too short."""
    if len(x) < 3:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if not sxx or not syy:
        return None
    return sxy / (sxx * syy) ** 0.5


def changed_lines(labels: Path) -> tuple[Counter, Counter]:
    """Per file: lines the port edited, and the same without hipify's own renames."""
    every, real = Counter(), Counter()
    with labels.open(newline="") as fh:
        rows = [line for line in fh if line.strip() and not line.lstrip().startswith("#")]
    for row in csv.DictReader(rows):
        if row.get("kind") != "edit":
            continue
        span = int(row["end_line"] or row["line"]) - int(row["line"]) + 1
        every[row["path"]] += span
        if row.get("class") != "rename":
            real[row["path"]] += span
    return every, real


def defines(args: list[str]) -> tuple[str, ...]:
    out, it = [], iter(args)
    for a in it:
        if a == "-D":
            out.append(next(it, ""))
        elif a.startswith("-D"):
            out.append(a[2:])
    return tuple(d for d in out if d)


def fmt(r: float | None) -> str:
    return "n/a" if r is None else f"{r:+.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkouts", type=Path)
    ap.add_argument("labels", type=Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--rescan", action="store_true")
    args = ap.parse_args(argv)
    codebases = tomllib.loads((args.labels / "codebases.toml").read_text("utf-8"))
    only = {n for n in args.only.split(",") if n}
    print(
        "| code base | files | files changed | rho, all files | rho, changed files "
        "| rho without renames | costliest file (h) / most changed file (lines) |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for name in sorted(codebases):
        tree = args.checkouts / name
        labels = args.labels / f"{name}.csv"
        if (only and name not in only) or not tree.is_dir() or not labels.is_file():
            continue
        config = ScanConfig(jobs=args.jobs, defines=defines(codebases[name].get("scan_args", [])))
        result = scanned(tree, config, args.rescan)
        report = estimate(result, build_graph(result))
        build = set(report.build_files)
        files = sorted(p for p in report.files if p not in build)
        every, real = changed_lines(labels)
        hours = [report.files[p].total.likely for p in files]
        edits = [every.get(p, 0) for p in files]
        plain = [real.get(p, 0) for p in files]
        changed = [i for i, e in enumerate(edits) if e]
        rho_all = spearman(hours, edits)
        rho_changed = spearman([hours[i] for i in changed], [edits[i] for i in changed])
        rho_real = spearman(hours, plain)
        top_h = max(files, key=lambda p: report.files[p].total.likely, default="")
        top_e = max(files, key=lambda p: every.get(p, 0), default="")
        print(
            f"| {name} | {len(files)} | {len(changed)} "
            f"| {fmt(rho_all)} | {fmt(rho_changed)} | {fmt(rho_real)} "
            f"| {Path(top_h).name} ({report.files[top_h].total.likely:.1f}) / "
            f"{Path(top_e).name} ({every.get(top_e, 0)}) |"
        )
        unlabelled = sorted(set(every) - set(files))
        if unlabelled:
            print(
                f"|   ({name}: {len(unlabelled)} labelled file(s) the estimate does not know) | | | | | | |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
