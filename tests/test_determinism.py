"""The same tree gives the same reports, byte for byte apart from timing fields, whatever the
cache state and the number of parser processes (cold, warm, --jobs 1, --jobs 2)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hipscan.api import scan
from hipscan.config import ScanConfig
from hipscan.report import ReportContext, render
from hipscan.rules import load_rules

HERE = Path(__file__).resolve().parent
TREES = (HERE.parent / "examples" / "sample-project", HERE.parent / "fixtures" / "frontend" / "project")
# fields that hold timings, and nothing else
TIMINGS = [
    (re.compile(r'"(seconds|parse_seconds)": [0-9.e-]+'), r'"\1": 0'),
    (re.compile(r"scanned in [0-9.]+ s"), "scanned in 0 s"),
]


def _strip(text: str) -> str:
    for pattern, repl in TIMINGS:
        text = pattern.sub(repl, text)
    return text


def reports(root: Path, cache: Path, jobs: int, use_cache: bool = True) -> dict[str, str]:
    rules = load_rules([])
    result = scan([root], ScanConfig(jobs=jobs, cache_dir=str(cache), use_cache=use_cache), rules)
    ctx = ReportContext.for_result(result, rules=rules)
    return {fmt: _strip(render(fmt, result, ctx)) for fmt in ("json", "sarif", "markdown", "html", "text")}


def _racing_includers(root: Path) -> None:
    """Two files include one clean header; the first (slower to parse) has an error of its own.
    Which of them carries the header depends on which finishes first: the header's status must
    not (it used to take its carrier's status)."""
    root.mkdir()
    (root / "shared.cuh").write_text("__device__ inline int twice(int x) { return 2 * x; }\n")
    body = "".join(f"__device__ int f{i}(int x) {{ return twice(x) + {i}; }}\n" for i in range(400))
    (root / "a_slow.cu").write_text(
        '#include "shared.cuh"\n#include "not_installed_library.h"\n'
        + body
        + "__global__ void ka(int *p) { p[threadIdx.x] = __shfl_down_sync(0xffffffff, p[0], 1); }\n"
    )
    (root / "b_fast.cu").write_text(
        '#include "shared.cuh"\n__global__ void kb(int *p) { p[0] = twice(warpSize); }\n'
    )


def _shared_folder_with_a_nearer_twin(root: Path) -> None:
    """progX needs lib/ for util.h; progY needs util.h too, and graph.h, which it has nearer than
    lib/graph.h. Handing progY's parse the folder progX's parse found must not give it lib's."""
    files = {
        "lib/util.h": "#pragma once\n__device__ inline int lane() { return threadIdx.x & 31; }\n",
        "lib/graph.h": "#pragma once\n#ifdef FROM_Y\n"
        "__device__ inline int wsz(int v) { return __shfl_sync(0xffffffff, v, 0); }\n#endif\n",
        "progX/x.cu": '#include "util.h"\n__global__ void kx(int *p) { p[0] = lane(); }\n',
        "progY/y.cu": '#include "util.h"\n#define FROM_Y\n#include "graph.h"\n'
        "__global__ void ky(int *p) { p[0] = g(); }\n",
        "progY/sub/graph.h": "#pragma once\n__device__ inline int g() { return 1; }\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_reports_do_not_depend_on_cache_or_jobs(tmp_path):
    for n, tree in enumerate((*TREES, None, "")):
        root = tmp_path / f"tree{n}"
        if tree == "":
            _shared_folder_with_a_nearer_twin(root)
        elif tree is None:
            _racing_includers(root)
        else:
            shutil.copytree(tree, root)
        cache = tmp_path / "cache"  # one precompiled header; the facts cache starts empty
        runs = {
            "cold, --jobs 2": reports(root, cache, 2),
            "warm, --jobs 2": reports(root, cache, 2),
            "--no-cache, --jobs 1": reports(root, cache, 1, use_cache=False),
            "warm, --jobs 1": reports(root, cache, 1),
        }
        first_name, first = next(iter(runs.items()))
        for name, got in runs.items():
            for fmt, text in got.items():
                assert text == first[fmt], f"{root.name}: {fmt} differs between {first_name} and {name}"


def test_facts_dropped_after_the_rules_change_no_report(tmp_path, monkeypatch):
    """The main process keeps of each file's facts only what the graph, effort model, translation
    and HIP-build evidence read (``api._kept``): a consumer reading a dropped field shows here."""
    import hipscan.api as api

    root = tmp_path / "tree"
    shutil.copytree(TREES[0], root)
    _shared_folder_with_a_nearer_twin(root / "more")
    _racing_includers(root / "race")
    # a header whose only device code is a prototype (the effort model counts it as CUDA)
    (root / "race" / "proto.h").write_text("__device__ int helper(int);\n")
    (root / "race" / "user.cu").write_text('#include "proto.h"\n__global__ void ku(int *p) { p[0] = 1; }\n')
    slim = reports(root, tmp_path / "cache", 2)
    monkeypatch.setattr(api, "_kept", lambda facts: facts)
    assert reports(root, tmp_path / "cache", 2) == slim
