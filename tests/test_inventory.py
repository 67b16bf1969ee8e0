"""The feature inventory: recognised from facts by the data table, counted per file and use."""

from __future__ import annotations

from hipscan.facts import (
    AsmFact,
    BuildFact,
    CallFact,
    DeclFact,
    FileFacts,
    IncludeFact,
    LaunchFact,
    Loc,
)
from hipscan.inventory import HIPIFY_VALUES, Inventory, by_hipify, load_features


def loc(path: str, line: int) -> Loc:
    return Loc(path, line, 1)


def test_table_is_valid_and_covers_the_issue_features():
    ids = {f.id for f in load_features()}
    for wanted in ("texture-objects", "cuda-graphs", "nvrtc", "managed-memory", "ipc-peer", "streams-events"):
        assert wanted in ids
    for wanted in ("fp16", "bf16", "fp8", "cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn"):
        assert wanted in ids
    assert all(f.hipify in HIPIFY_VALUES for f in load_features())


def test_counts_files_and_uses_from_facts():
    a, b = FileFacts(path="a.cu"), FileFacts(path="b.cu")
    a.calls = [
        CallFact("cudaGraphLaunch", "cudaGraphLaunch", loc("a.cu", 3), "host", "f"),
        CallFact("cudaMallocManaged", "cudaMallocManaged", loc("a.cu", 4), "host", "f"),
        CallFact("this_grid", "cooperative_groups::this_grid", loc("a.cu", 9), "global", "k"),
        CallFact("cudaMalloc", "cudaMalloc", loc("a.cu", 5), "host", "f"),  # renamed, not a feature
    ]
    a.decls = [DeclFact("h", "__half", loc("a.cu", 7), "global", "var")]
    a.launches = [LaunchFact("child", loc("a.cu", 11), "global", "k")]
    a.asms = [AsmFact("mov.u32 %0, %laneid;", loc("a.cu", 12), "device", "lane")]
    b.calls = [CallFact("cudaGraphLaunch", "cudaGraphLaunch", loc("b.cu", 2), "host", "g")]
    b.includes = [IncludeFact("nvrtc.h", loc("b.cu", 1), True)]
    b.builds = [BuildFact("library", "cublas", loc("CMakeLists.txt", 4), "cmake")]
    inv = Inventory()
    inv.add(a)
    inv.add(b)
    rows = {r.feature.id: r.to_dict() for r in inv.rows()}
    assert rows["cuda-graphs"]["files"] == 2 and rows["cuda-graphs"]["uses"] == 2
    assert rows["cuda-graphs"]["example"] == "a.cu:3"
    for one in (
        "managed-memory",
        "cooperative-groups",
        "fp16",
        "dynamic-parallelism",
        "inline-asm",
        "nvrtc",
        "cublas",
    ):
        assert rows[one]["uses"] == 1, one
    assert "streams-events" not in rows
    assert inv.rows()[0].feature.id == "cuda-graphs"  # most files first
    assert by_hipify(inv.rows())["no"] == 2


def test_reports_list_features_without_effort(tmp_path):
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_report_sample import sample_result

    from hipscan.report import ReportContext, render

    _, result = sample_result(tmp_path)
    result.features = [
        {
            "id": "cuda-graphs",
            "title": "CUDA graphs and stream capture",
            "hipify": "renamed",
            "hip": "hipGraph*",
            "files": 2,
            "uses": 5,
            "example": "a.cu:3",
        },
    ]
    ctx = ReportContext.for_result(result)
    doc = json.loads(render("json", result, ctx))
    assert doc["features"][0]["uses"] == 5 and "effort_hours" not in doc["features"][0]
    assert "| CUDA graphs and stream capture | 2 | 5 | renamed |" in render("markdown", result, ctx)
    html = render("html", result, ctx)
    assert 'id="features"' in html and "CUDA graphs and stream capture" in html
