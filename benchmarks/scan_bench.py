"""Time a full scan of a directory in each parse mode and print a table.

    python3 benchmarks/scan_bench.py DIR [--jobs 2] [--modes shim,toolkit] [--repeat 1]

Cold scans run with --no-cache; --rescan adds a second, cached scan of the unchanged tree.
Each scan runs as its own process (`python -m hipscan scan DIR --format json`), so the figures
include start-up, worker processes and report writing: what a user waits for. Peak memory is
the largest resident set of the scan process and its parser workers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_once(directory: Path, mode: str, jobs: int, cache: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "scan.json"
        cmd = [
            sys.executable,
            "-m",
            "hipscan",
            "scan",
            str(directory),
            "--format",
            "json",
            "-o",
            str(out),
            "--no-report",
            "--no-progress",
            "--mode",
            mode,
            "--jobs",
            str(jobs),
        ]
        if not cache:
            cmd.append("--no-cache")
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - start
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if proc.returncode not in (0, 1) or not out.exists():
            return {"mode": mode, "error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
        doc = json.loads(out.read_text())
    files = doc["files"]
    parsed = [f for f in files if f["status"] in ("ok", "parse-errors")]
    times = [f["parse_seconds"] for f in parsed if f["parse_seconds"]]
    return {
        "mode": mode + (" (re-scan)" if cache else ""),
        "files": len(parsed),
        "lines": sum(f["lines"] for f in parsed),
        "parse_errors": sum(1 for f in files if f["status"] == "parse-errors"),
        "seconds": wall,
        "files_per_s": len(parsed) / wall if wall else 0.0,
        "median_ms": 1000 * statistics.median(times) if times else 0.0,
        "peak_mib": max(peak_kib, before) / 1024,
        "findings": len(doc["findings"]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("directory", type=Path)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--modes", default="shim,toolkit")
    ap.add_argument("--repeat", type=int, default=1, help="runs per mode; the median wall time is shown")
    ap.add_argument(
        "--rescan",
        action="store_true",
        help="also time a re-scan of the unchanged tree (facts cache)",
    )
    args = ap.parse_args()
    rows = []
    plans = [(m, False) for m in args.modes.split(",")]
    if args.rescan:
        plans += [(m, True) for m in args.modes.split(",")]
    for mode, cache in plans:
        if cache:
            run_once(args.directory, mode, args.jobs, cache=True)  # fill the cache
        runs = [run_once(args.directory, mode, args.jobs, cache) for _ in range(args.repeat)]
        ok = [r for r in runs if "error" not in r]
        if not ok:
            rows.append(runs[0])
            continue
        row = dict(ok[0])
        row["seconds"] = statistics.median(r["seconds"] for r in ok)
        row["files_per_s"] = row["files"] / row["seconds"]
        rows.append(row)
    header = (
        f"{'mode':<18} {'files':>6} {'lines':>8} {'errors':>6} {'seconds':>8} {'files/s':>8} "
        f"{'median ms':>9} {'peak MiB':>8} {'findings':>8}"
    )
    print(f"{args.directory} (--jobs {args.jobs})")
    print(header)
    for r in rows:
        if "error" in r:
            print(f"{r['mode']:<18} error: {r['error']}")
            continue
        print(
            f"{r['mode']:<18} {r['files']:>6} {r['lines']:>8} {r['parse_errors']:>6} {r['seconds']:>8.2f} "
            f"{r['files_per_s']:>8.1f} {r['median_ms']:>9.1f} {r['peak_mib']:>8.0f} {r['findings']:>8}"
        )


if __name__ == "__main__":
    main()
