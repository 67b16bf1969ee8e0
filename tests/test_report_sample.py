"""A small CUDA project on disk with hand-built facts and findings, shared by the report tests.

The facts are what the front end would extract: locations are computed from the source text
itself (``Project.loc``), so excerpts, fingerprints and graph edges all agree with the files.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hipscan.facts import (
    BuildFact,
    CallFact,
    FileFacts,
    FunctionFact,
    IncludeFact,
    LaunchFact,
    Loc,
)
from hipscan.model import FileResult, Finding, ScanResult

SOURCES = {
    "common/warp.cuh": """\
#pragma once
#include "config.h"
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
""",
    "common/config.h": """\
#pragma once
#include "warp.cuh"
#define BLOCK 256
""",
    "src/reduce.cu": """\
#include "../common/warp.cuh"
__global__ void reduce(const float* in, float* out) {
  float v = warp_sum(in[threadIdx.x]);
  unsigned lane; asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (lane == 0) out[blockIdx.x] = v;
}
void run_reduce(const float* in, float* out, int n) {
  reduce<<<n / BLOCK, BLOCK>>>(in, out);
}
""",
    "src/tree.cu": """\
#include "../common/warp.cuh"
__global__ void child(float* x) { x[threadIdx.x] = warp_sum(x[threadIdx.x]); }
__global__ void parent(float* x) {
  child<<<1, 32>>>(x);
}
int main() {
  parent<<<1, 1>>>(nullptr);
  return 0;
}
""",
    "src/plain.cpp": """\
int add(int a, int b) { return a + b; }
""",
    "CMakeLists.txt": """\
project(sample LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 80)
""",
}


class Project:
    def __init__(self, root: Path, sources: dict[str, str] = SOURCES):
        self.root = root
        self.sources = dict(sources)
        for rel, text in self.sources.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def loc(self, path: str, needle: str, nth: int = 0) -> Loc:
        text = self.sources[path]
        at = -1
        for _ in range(nth + 1):
            at = text.index(needle, at + 1)
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        return Loc(path, line, col)

    def line(self, path: str, n: int) -> str:
        return self.sources[path].splitlines()[n - 1].strip()

    def end(self, path: str, needle: str) -> int:
        return self.loc(path, needle).line


def finding(project: Project, rule: str, path: str, needle: str, **kw) -> Finding:
    loc = project.loc(path, needle, kw.pop("nth", 0))
    base = dict(
        rule=rule,
        name=kw.pop("name", rule.lower()),
        category="warp-size",
        severity="medium",
        confidence="high",
        effort="medium",
        path=path,
        line=loc.line,
        column=loc.column,
        message=f"{rule} at {needle}",
        snippet=project.line(path, loc.line),
    )
    base.update(kw)
    return Finding(**base)


def sample_result(root: Path) -> tuple[Project, ScanResult]:
    p = Project(root)
    warp_fn = FunctionFact("warp_sum", "warp_sum", p.loc("common/warp.cuh", "warp_sum"), 6, "device")
    reduce_fn = FunctionFact("reduce", "reduce", p.loc("src/reduce.cu", "reduce"), 6, "global")
    run_fn = FunctionFact("run_reduce", "run_reduce", p.loc("src/reduce.cu", "run_reduce"), 9, "host")
    child_fn = FunctionFact("child", "child", p.loc("src/tree.cu", "child"), 2, "global")
    parent_fn = FunctionFact("parent", "parent", p.loc("src/tree.cu", "parent"), 5, "global")
    main_fn = FunctionFact("main", "main", p.loc("src/tree.cu", "main"), 9, "host")
    add_fn = FunctionFact("add", "add", p.loc("src/plain.cpp", "add"), 1, "host")

    header_includes = [
        IncludeFact("config.h", p.loc("common/warp.cuh", "config.h"), False, "common/config.h"),
        IncludeFact("warp.cuh", p.loc("common/config.h", "warp.cuh"), False, "common/warp.cuh"),
    ]
    shfl = CallFact(
        "__shfl_down_sync",
        "__shfl_down_sync",
        p.loc("common/warp.cuh", "__shfl_down_sync"),
        "device",
        "warp_sum",
    )
    reduce_facts = FileFacts(
        path="src/reduce.cu",
        lines=9,
        files=["src/reduce.cu", "common/warp.cuh", "common/config.h"],
        functions=[warp_fn, reduce_fn, run_fn],
        includes=[
            IncludeFact("../common/warp.cuh", p.loc("src/reduce.cu", "../common"), False, "common/warp.cuh"),
            *header_includes,
        ],
        calls=[
            shfl,
            CallFact("warp_sum", "warp_sum", p.loc("src/reduce.cu", "warp_sum"), "global", "reduce"),
        ],
        launches=[LaunchFact("reduce", p.loc("src/reduce.cu", "reduce<<<"), "host", "run_reduce")],
    )
    tree_facts = FileFacts(
        path="src/tree.cu",
        lines=9,
        files=["src/tree.cu", "common/warp.cuh", "common/config.h"],
        functions=[warp_fn, child_fn, parent_fn, main_fn],
        includes=[
            IncludeFact("../common/warp.cuh", p.loc("src/tree.cu", "../common"), False, "common/warp.cuh"),
            *header_includes,
        ],
        calls=[
            shfl,
            CallFact("warp_sum", "warp_sum", p.loc("src/tree.cu", "warp_sum"), "global", "child"),
        ],
        launches=[
            LaunchFact("child", p.loc("src/tree.cu", "child<<<"), "global", "parent"),
            LaunchFact("parent", p.loc("src/tree.cu", "parent<<<"), "host", "main"),
        ],
    )
    plain_facts = FileFacts(path="src/plain.cpp", lines=1, functions=[add_fn])
    cmake_facts = FileFacts(
        path="CMakeLists.txt",
        lines=2,
        builds=[
            BuildFact("language", "CUDA", p.loc("CMakeLists.txt", "CUDA"), "cmake"),
            BuildFact("architecture", "80", p.loc("CMakeLists.txt", "CMAKE_CUDA_ARCH"), "cmake"),
        ],
    )
    findings = [
        finding(p, "HIP201", "common/warp.cuh", "16", function="warp_sum", name="warp-width-literal"),
        finding(
            p,
            "HIP202",
            "common/warp.cuh",
            "0xffffffff",
            function="warp_sum",
            category="warp-sync",
            severity="high",
            effort="small",
            name="full-warp-mask",
            fix="Use a 64-bit mask or __activemask().",
        ),
        finding(
            p,
            "HIP301",
            "src/reduce.cu",
            "asm(",
            function="reduce",
            category="inline-asm",
            severity="high",
            effort="large",
            name="inline-ptx",
        ),
        finding(
            p,
            "HIP101",
            "src/tree.cu",
            "child<<<",
            function="parent",
            category="dynamic-parallelism",
            severity="blocker",
            effort="rewrite",
            name="device-side-launch",
        ),
        finding(
            p,
            "HIP901",
            "CMakeLists.txt",
            "CUDA",
            category="build-system",
            severity="low",
            effort="trivial",
            confidence="medium",
            name="cmake-cuda-language",
        ),
    ]
    files = [FileResult(path, "ok", lines=text.count("\n")) for path, text in sorted(p.sources.items())]
    result = ScanResult(
        root=root,
        files=files,
        findings=findings,
        facts=[reduce_facts, tree_facts, plain_facts, cmake_facts],
        seconds=0.25,
    )
    return p, result


def moved(result: ScanResult, path: str, by: int) -> ScanResult:
    """The same result with every finding in ``path`` shifted down ``by`` lines."""
    findings = [replace(f, line=f.line + by) if f.path == path else f for f in result.findings]
    return ScanResult(result.root, result.files, findings, result.facts, result.seconds)


# ---------------------------------------------------------------------------------------------
# Tests of the text report (the simplest writer) on the sample.

from hipscan.report import ReportContext, render  # noqa: E402
from hipscan.report.text import render_text  # noqa: E402


def test_text_report_is_compiler_style_and_sorted(tmp_path):
    p, result = sample_result(tmp_path)
    out = render("text", result)
    lines = out.splitlines()
    loc = p.loc("common/warp.cuh", "16")
    assert (
        lines[0] == f"CMakeLists.txt:1:{p.loc('CMakeLists.txt', 'CUDA').column}: HIP901 [low] HIP901 at CUDA"
    )
    assert f"common/warp.cuh:{loc.line}:{loc.column}: HIP201 [medium] HIP201 at 16" in lines
    first_five = lines[:5]
    assert first_five == sorted(first_five, key=lambda s: (s.split(":")[0], int(s.split(":")[1])))
    assert lines[5] == ""
    assert lines[6].startswith("5 finding(s) (1 blocker, 2 high, 1 medium, 1 low) from 5 rule(s)")
    assert "readiness" in lines[7] and "1 blocker(s)" in lines[7]


def test_text_report_without_findings(tmp_path):
    _, result = sample_result(tmp_path)
    result.findings = []
    out = render_text(result, ReportContext().ensure(result))
    assert out.splitlines()[0].startswith("0 finding(s) (none)")
    assert "0 blocker(s)" in out
