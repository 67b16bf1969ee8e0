"""Several hipscan processes on one empty cache folder find what a scan alone finds.

Three scans start at the same moment on an empty cache (they race to build the precompiled
header and to write the same facts entries), then a fourth reads what they cached; every result
must equal a scan that ran alone. Rounds: HIPSCAN_CONCURRENCY_ROUNDS (default 2; the figures in
the issue notes come from ``benchmarks/concurrent_scans.py``, which runs more).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = int(os.environ.get("HIPSCAN_CONCURRENCY_ROUNDS", "2"))


def _tree(tmp: Path) -> Path:
    """Small, but every file needs the precompiled standard headers (uint8_t, std::vector)."""
    root = tmp / "tree"
    shutil.copytree(ROOT / "examples" / "sample-project", root)
    (root / "src" / "types.cu").write_text(
        "#include <cstdint>\n#include <vector>\n"
        "__global__ void k(uint8_t *p) { p[threadIdx.x] = __shfl_down_sync(0xffffffff, p[0], 1); }\n"
        "void host(std::vector<uint8_t> &v) { k<<<1, 32>>>(v.data()); }\n"
    )
    return root


def _start(tree: Path, cache: Path, out: Path) -> subprocess.Popen:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    cmd = [sys.executable, "-m", "hipscan", "scan", str(tree), "--format", "json", "-o", str(out)]
    return subprocess.Popen(
        cmd + ["--no-report", "--jobs", "1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _essence(out: Path) -> tuple:
    doc = json.loads(out.read_text())
    findings = sorted((f["rule"], f["path"], f["line"], f["column"]) for f in doc["findings"])
    files = sorted((f["path"], f["status"], f["error_count"]) for f in doc["files"])
    return findings, files


def _finish(p: subprocess.Popen) -> None:
    _, err = p.communicate(timeout=240)
    assert p.returncode == 0, err.decode()


def test_three_scans_at_once_on_an_empty_cache_match_a_lone_scan(tmp_path):
    tree = _tree(tmp_path)
    solo = _start(tree, tmp_path / "solo-cache", tmp_path / "solo.json")
    _finish(solo)
    expected = _essence(tmp_path / "solo.json")
    assert any(f[0] == "HIP301" or f[1] == "src/types.cu" for f in expected[0])
    for r in range(ROUNDS):
        cache = tmp_path / f"cache{r}"
        outs = [tmp_path / f"r{r}-{i}.json" for i in range(3)]
        procs = [_start(tree, cache, out) for out in outs]
        for p in procs:
            _finish(p)
        warm = tmp_path / f"r{r}-warm.json"
        _finish(_start(tree, cache, warm))
        for out in [*outs, warm]:
            assert _essence(out) == expected, f"round {r + 1}: {out.name} differs from the lone scan"
        pch = list((cache / "hipscan" / "pch").glob("shim-*.pch"))
        assert len(pch) == 1 and not list((cache / "hipscan").rglob("*.tmp"))
