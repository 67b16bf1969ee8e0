"""Whole-process wall time of `hipscan translate` and `hipscan scan` on one small file.

    python3 benchmarks/startup.py [--runs 7] [--before PATH_TO_OTHER_CHECKOUT] [FILE]

What a pre-commit hook pays per changed file: interpreter start, imports, rule loading, one
parse, the writes. Each command runs --runs times after one warm-up run (the facts cache and
the precompiled shim are warm, as they are on a developer's machine, and Python's compiled
modules are kept in a temporary PYTHONPYCACHEPREFIX), and the table gives the
median and the fastest. With --before, the same commands run from another checkout of hipscan
(e.g. `git worktree add /tmp/hipscan-main main`) and both rows are printed.
For where the time goes: `python3 -X importtime -m hipscan translate FILE -o DIR` and
`python3 -m cProfile -s cumulative -m hipscan translate FILE -o DIR`.
"""

from __future__ import annotations

import argparse
import os
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


def timed(tree: Path, args: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "hipscan", *args], cwd=tree, env=env, capture_output=True, check=False
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"startup: {' '.join(args)} failed in {tree}: {proc.stderr.decode()[-500:]}")
    return elapsed


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
        rows = []
        for label, tree in trees:
            for name, args in commands(source, Path(tmp) / f"out-{label}").items():
                timed(tree, args, env)  # warm-up: facts cache, precompiled shim, .pyc files
                runs = [timed(tree, args, env) for _ in range(ns.runs)]
                rows.append((name, label, statistics.median(runs), min(runs)))
    print(f"{'command':<26}{'tree':<12}{'median s':>10}{'min s':>8}   ({ns.runs} runs each)")
    for name, label, median, fastest in sorted(rows):
        print(f"{name:<26}{label:<12}{median:>10.2f}{fastest:>8.2f}")


if __name__ == "__main__":
    main()
