"""Whole-process wall time of `hipscan translate` and `hipscan scan` on one small file.

    python3 benchmarks/startup.py [--runs 7] [--before PATH_TO_OTHER_CHECKOUT] [FILE]

What a pre-commit hook pays per changed file: interpreter start, imports, rule loading, one
parse, the writes. Each command runs --runs times after one warm-up run (the facts cache and
the precompiled shim are warm, as they are on a developer's machine, and Python's compiled
modules are kept in a temporary PYTHONPYCACHEPREFIX), and the table gives the
median and the fastest wall time and the median CPU time (user + system of the process). With
--before, the same commands run from another checkout of hipscan (e.g. `git worktree add
/tmp/hipscan-main main`), the two trees' runs alternating so a change in the machine's load
reaches both alike, and both rows are printed.
For where the time goes: `python3 -X importtime -m hipscan translate FILE -o DIR` and
`python3 -m cProfile -s cumulative -m hipscan translate FILE -o DIR`.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = """#include <cuda_runtime.h>
__global__ void scale(float *p, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= s;
}
void run(float *p, int n) {
  float *d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, p, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(d, 2.0f, n);
  cudaMemcpy(p, d, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
}
"""


def commands(source: Path, out: Path) -> dict[str, list[str]]:
    return {
        "translate FILE -o DIR": ["translate", str(source), "-o", str(out), "--force"],
        "scan FILE --no-report": ["scan", str(source), "--no-report", "-q"],
    }


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(tree: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one whole run."""
    cpu0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "hipscan", *args], cwd=tree, env=env, capture_output=True, check=False
    )
    elapsed, cpu = time.perf_counter() - t0, _child_cpu() - cpu0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"startup: {' '.join(args)} failed in {tree}: {proc.stderr.decode()[-500:]}")
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, help="CUDA file (default: a small sample)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", type=Path, default=None, help="another hipscan checkout to compare")
    ns = parser.parse_args()
    trees = [("before", ns.before.resolve())] if ns.before else []
    trees.append(("this tree", REPO))
    with tempfile.TemporaryDirectory(prefix="hipscan-startup-") as tmp:
        src_dir = Path(tmp) / "src"
        src_dir.mkdir()
        source = ns.file.resolve() if ns.file else src_dir / "sample.cu"
        if not ns.file:
            source.write_text(SAMPLE)
        # compiled modules kept (as an installed tool has them), outside the source trees
        env = dict(os.environ, XDG_CACHE_HOME=str(Path(tmp) / "cache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for name in commands(source, Path(tmp)):
            plan = [
                (label, tree, commands(source, Path(tmp) / f"out-{label}")[name]) for label, tree in trees
            ]
            for _label, tree, args in plan:
                timed(tree, args, env)  # warm-up: facts cache, rule set, precompiled shim, .pyc files
            for _ in range(ns.runs):  # the trees in turn
                for label, tree, args in plan:
                    runs.setdefault((name, label), []).append(timed(tree, args, env))
    print(
        f"{'command':<26}{'tree':<12}{'median s':>10}{'min s':>8}{'median CPU s':>14}   ({ns.runs} runs each)"
    )
    for (name, label), times in sorted(runs.items()):
        wall = [w for w, _ in times]
        cpu = statistics.median(c for _, c in times)
        print(f"{name:<26}{label:<12}{statistics.median(wall):>10.2f}{min(wall):>8.2f}{cpu:>14.2f}")


if __name__ == "__main__":
    main()
