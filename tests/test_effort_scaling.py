"""Costs that scale with the project: bundled trees apart, an existing HIP build, deprecations by
ROCm release, optional features, the build port by build file."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_report_sample import sample_result  # noqa: E402

from hipscan.api import scan  # noqa: E402
from hipscan.config import ScanConfig  # noqa: E402
from hipscan.effort import estimate, load_profile  # noqa: E402
from hipscan.facts import BranchFact, BuildFact, Loc  # noqa: E402
from hipscan.hipbuild import HipEvidence  # noqa: E402
from hipscan.vendored import find_vendored  # noqa: E402

KERNEL = '__global__ void k(int* x) { asm volatile("exit;"); x[threadIdx.x] = 0; }\n'
# a bundled CUB copy, as QUDA v0.8.0 ships one under include/cub (namespace macros in cub.cuh)
CUB = "#define CUB_NS_PREFIX namespace quda {\nnamespace cub {\n" + KERNEL + "}\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def config(tmp_path: Path, **kw) -> ScanConfig:
    return ScanConfig(jobs=1, **kw)  # the default cache: its precompiled header is built once


def test_bundled_trees_by_folder_submodule_and_content(tmp_path):
    root = write(
        tmp_path / "p",
        {
            "src/a.cu": KERNEL,
            "include/cub/cub.cuh": CUB,  # by content (and its folder name)
            "third_party/foo/x.cu": KERNEL,  # by folder
            "deps/bar/y.cu": KERNEL,  # by .gitmodules
            "vendors/hip.h": "#define X 1\n",  # a project's own HIP header: not bundled
            ".gitmodules": '[submodule "bar"]\n\tpath = deps/bar\n\turl = x\n',
        },
    )
    files = sorted(p for p in root.rglob("*") if p.is_file())
    trees = {t.path: t for t in find_vendored(root, files)}
    assert set(trees) == {"include/cub", "third_party/foo", "deps/bar"}
    assert trees["include/cub"].library == "CUB" and "hipCUB" in trees["include/cub"].advice
    assert trees["third_party/foo"].library == "" and trees["deps/bar"].how == "git submodule"


def test_project_wrappers_in_an_external_folder_are_project_code(tmp_path):
    # TiledArray keeps its own wrappers of external libraries in src/TiledArray/external/: they
    # include the project's headers, so they are scanned; a library copied beside them is bundled
    root = write(
        tmp_path / "p",
        {
            "src/Proj/fwd.h": "#pragma once\n",
            "src/Proj/external/device.h": "#include <Proj/fwd.h>\n#include <cuda_runtime.h>\n",
            "src/Proj/external/agner/vec.h": "#define V 1\n",
            "lib/external/blob.h": "#include <cstdio>\n#include <thing/other.h>\n",
        },
    )
    files = sorted(p for p in root.rglob("*") if p.is_file())
    trees = {t.path for t in find_vendored(root, files)}
    assert trees == {"src/Proj/external/agner", "lib/external"}


def test_cuda_sources_alone_in_an_external_folder_are_project_code(tmp_path):
    # ecTrans's external/fourier/*.cu: the project's own cuFFT wrappers, nothing else in the folder;
    # a folder of the same shape with its licence, or under third_party/, is a bundled copy
    root = write(
        tmp_path / "p",
        {
            "algor/external/fourier/create_plan_fftc.cu": KERNEL,
            "algor/external/fourier/execute_plan_fftc.cu": KERNEL,
            "lib/external/fft/plan.cu": KERNEL,
            "lib/external/fft/LICENSE": "MIT\n",
            "third_party/kernels/k.cu": KERNEL,
        },
    )
    files = sorted(p for p in root.rglob("*") if p.is_file())
    trees = {t.path for t in find_vendored(root, files)}
    assert trees == {"lib/external/fft", "third_party/kernels"}


def test_bundled_code_is_priced_once_not_ported(tmp_path):
    root = write(
        tmp_path / "p",
        {"src/a.cu": '#include "../include/cub/cub.cuh"\n' + KERNEL, "include/cub/cub.cuh": CUB},
    )
    result = scan([root], config(tmp_path))
    assert {f.path for f in result.findings} == {"src/a.cu"}
    assert [t.name for t in result.vendored] == ["CUB"] and result.vendored[0].findings >= 1
    report = estimate(result)
    assert report.bundled.likely == result.vendored[0].hours[1]
    assert all(not p.startswith("include/cub") for p in report.files)
    whole = scan([root], config(tmp_path, include_vendored=True))
    assert "include/cub/cub.cuh" in {f.path for f in whole.findings} and not whole.vendored


def test_hip_build_path_prices_only_what_is_left(tmp_path):
    root = write(
        tmp_path / "p",
        {
            "CMakeLists.txt": "project(x LANGUAGES CXX HIP)\nenable_language(CUDA)\n",
            "src/a.cu": "#ifdef __HIP_PLATFORM_AMD__\n#include <hip/hip_runtime.h>\n#endif\n"
            "__global__ void k(int* x) { x[threadIdx.x] = 1; }\n",
        },
    )
    result = scan([root], config(tmp_path))
    kinds = {(e.kind, e.what) for e in result.hip_build}
    assert ("build", "HIP language") in kinds and ("source", "#ifdef __HIP_PLATFORM_AMD__") in kinds
    report = estimate(result)
    assert report.translation.likely == 0
    assert report.build.likely == load_profile().build_hip_check.likely
    shared = [f for f in result.findings if f.category != "build-system"]
    assert not shared and report.readiness >= 90
    assert report.manual.likely == 0  # the CUDA build's own flags are not the port's work
    from hipscan.report import ReportContext, render

    ctx = ReportContext.for_result(result)
    for fmt in ("text", "markdown", "html"):
        assert "HIP build path found" in render(fmt, result, ctx), fmt
    doc = json.loads(render("json", result, ctx))
    assert doc["summary"]["effort"]["hip_build"][0]["what"] == "HIP language"


def test_texture_references_are_a_rename_while_hip_has_them(tmp_path):
    _, result = sample_result(tmp_path)
    f = replace(result.findings[0], rule="HIP111", category="texture-reference", effort="medium")
    result.findings = [f]
    p = load_profile()
    fe = estimate(result, rocm_version=(6, 4)).findings[0]
    assert fe.hours.likely == pytest.approx(p.hours["trivial"].likely * fe.factor)
    # after a release that removes them (a profile naming an API HIP removed), the rule's class
    gone = replace(p, deprecated={"texture-reference": ("trivial", "cudaProfilerInitialize")})
    from hipscan.apitable import load_api_table

    removed = load_api_table().entries["cudaProfilerInitialize"].hip_removed
    if removed:  # the table records the release that removed it
        late = tuple(int(x) for x in removed.split("."))
        fe = estimate(result, profile=gone, rocm_version=late).findings[0]
        assert fe.hours.likely == pytest.approx(p.hours["medium"].likely * fe.factor)


def test_library_behind_an_optional_switch_costs_less(tmp_path):
    _, result = sample_result(tmp_path)
    f = replace(result.findings[0], rule="HIP701", category="library", effort="large", confidence="high")
    result.findings = [f]
    plain = estimate(result).findings[0].hours.likely
    ff = result.facts[0]
    ff.branches.append(BranchFact(Loc(f.path, 1, 1), f.line + 5, (("ifdef", "USE_CUDNN"),), 1))
    report = estimate(result)
    assert report.findings[0].hours.likely == pytest.approx(plain * load_profile().optional_factor)
    assert report.adjusted == {"optional feature": 1}


def test_file_that_is_cuda_only_through_an_optional_library_is_translated_at_its_discount(tmp_path):
    """Caffe's cuDNN layers: a C++ file whose only CUDA-side code is cuDNN under USE_CUDNN."""
    layer = "void setup(cudnnHandle_t *h) {\n  cudnnCreate(h);\n}\n"
    files = {
        "plain_layer.cpp": "#include <cudnn.h>\n" + layer,
        "cudnn_layer.cpp": "#ifdef USE_CUDNN\n#include <cudnn.h>\n" + layer + "#endif\n",
    }
    result = scan([write(tmp_path, files)], config(tmp_path, defines=("USE_CUDNN",)))
    rules = {(f.path, f.rule) for f in result.findings}
    assert {("plain_layer.cpp", "HIP724"), ("cudnn_layer.cpp", "HIP724")} <= rules
    per_file = {p: e.translation.likely for p, e in estimate(result).files.items()}
    factor = load_profile().optional_factor
    assert per_file["cudnn_layer.cpp"] == pytest.approx(per_file["plain_layer.cpp"] * factor, rel=0.2)


def test_build_port_scales_with_build_files_and_libraries(tmp_path):
    _, result = sample_result(tmp_path)
    p = load_profile()
    one = estimate(result).build
    ff = result.facts[0]
    ff.builds.append(BuildFact("library", "cublas", Loc("src/Makefile", 3, 1), "make"))
    two = estimate(result)
    extra = two.build.likely - one.likely
    assert extra == pytest.approx(p.build_tool["make"].likely + p.build_per_library.likely)
    assert "src/Makefile" in two.build_parts
    result.hip_build = [HipEvidence("CMakeLists.txt", 1, "build", "HIP language")]
    assert estimate(result).build.likely == p.build_hip_check.likely


def test_cli_reports_bundled_trees_once_and_scans_them_when_asked(tmp_path):
    from click.testing import CliRunner

    from hipscan.cli import main

    root = write(
        tmp_path / "p",
        {"src/a.cu": '#include "../include/cub/cub.cuh"\n' + KERNEL, "include/cub/cub.cuh": CUB},
    )
    common = ["scan", str(root), "--no-report", "--jobs", "1", "--no-cache"]
    r = CliRunner().invoke(main, common, catch_exceptions=False)
    assert "bundled CUB (include/cub/, 1 files): use hipCUB" in r.stdout
    assert "include/cub/cub.cuh:" not in r.stdout
    r = CliRunner().invoke(main, [*common, "--include-vendored"], catch_exceptions=False)
    assert "include/cub/cub.cuh:" in r.stdout and "bundled CUB" not in r.stdout


def test_components_follow_cmake_targets(tmp_path):
    from hipscan.planning import assign

    root = write(
        tmp_path / "p",
        {
            "CMakeLists.txt": "add_library(core STATIC src/a.cu src/b.cu)\n"
            "cuda_add_executable(app app/main.cu)\n",
            "src/a.cu": KERNEL,
            "src/b.cu": KERNEL.replace("void k", "void k2"),
            "src/shared.cuh": "__device__ int f() { return 1; }\n",
            "app/main.cu": KERNEL.replace("void k", "void k3"),
        },
    )
    result = scan([root], config(tmp_path))
    kind, comp = assign(result, estimate(result))
    assert kind == "cmake-target"
    assert comp["src/a.cu"] == comp["src/shared.cuh"] == "core" and comp["app/main.cu"] == "app"
