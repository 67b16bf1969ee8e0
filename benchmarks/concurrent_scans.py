"""Several hipscan processes sharing one empty cache folder: do they all find what a lone scan finds?

    python3 benchmarks/concurrent_scans.py [TREE] [--rounds 5] [--scans 3] [--jobs 1]

Each round starts SCANS scans of TREE at the same moment on a fresh, empty cache folder, then one
more scan that reuses what they cached; every result (findings and file statuses of the JSON
report) is compared with a scan that ran alone on its own cache. Prints one row per round.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _start(tree: Path, cache: Path, out: Path, jobs: int) -> subprocess.Popen:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    cmd = [sys.executable, "-m", "hipscan", "scan", str(tree), "--format", "json", "-o", str(out)]
    cmd += ["--no-report", "--jobs", str(jobs)]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def essence(path: Path) -> tuple:
    """What must not depend on other processes: findings and every file's status."""
    doc = json.loads(path.read_text())
    findings = sorted((f["rule"], f["path"], f["line"], f["column"]) for f in doc["findings"])
    files = sorted((f["path"], f["status"], f.get("error_count", 0)) for f in doc["files"])
    return tuple(findings), tuple(files)


def run_round(tree: Path, scans: int, jobs: int, work: Path) -> list[tuple]:
    cache = work / "cache"
    procs = [_start(tree, cache, work / f"out{i}.json", jobs) for i in range(scans)]
    for p in procs:
        _, err = p.communicate()
        if p.returncode not in (0, 1):
            raise SystemExit(f"scan failed ({p.returncode}): {err.decode()[-400:]}")
    after = _start(tree, cache, work / "after.json", jobs)  # reads what the others cached
    after.communicate()
    return [essence(work / f"out{i}.json") for i in range(scans)] + [essence(work / "after.json")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", nargs="?", default=str(ROOT / "examples" / "sample-project"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scans", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    tree = Path(args.tree).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        solo_dir = Path(tmp) / "solo"
        solo_dir.mkdir()
        p = _start(tree, solo_dir / "cache", solo_dir / "out.json", args.jobs)
        p.communicate()
        solo = essence(solo_dir / "out.json")
        print(f"solo scan: {len(solo[0])} findings, {len(solo[1])} files")
        print("| round | scans | seconds | results equal to the solo scan (per scan) |")
        print("|---:|---:|---:|---|")
        bad = 0
        for r in range(1, args.rounds + 1):
            work = Path(tmp) / f"round{r}"
            work.mkdir()
            start = time.perf_counter()
            results = run_round(tree, args.scans, args.jobs, work)
            seconds = time.perf_counter() - start
            same = [res == solo for res in results]
            bad += not all(same)
            lost = [len(set(solo[0]) - set(res[0])) for res in results]
            status = [len(set(res[1]) ^ set(solo[1])) for res in results]
            print(
                f"| {r} | {args.scans} + 1 warm | {seconds:.1f} | {sum(same)}/{len(same)} "
                f"(findings lost: {lost}; file rows differing: {status}) |"
            )
        print(f"rounds with a difference: {bad} of {args.rounds}")


if __name__ == "__main__":
    main()
