"""CUDA -> HIP translation: token exactness, includes, symbols, launches, markers, output safety."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from hipscan.model import Finding
from hipscan.translate import TranslateError, TranslateOptions, translate_tree
from hipscan.translate.outputs import MANIFEST

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "translate"


def _finding(
    path: str,
    line: int,
    column: int = 1,
    rule: str = "HIP9001",
    severity: str = "high",
    message: str = "something to port",
    fix: str = "do the thing",
) -> Finding:
    return Finding(
        rule=rule,
        name="test-rule",
        category="inline-asm",
        severity=severity,
        confidence="high",
        effort="small",
        path=path,
        line=line,
        column=column,
        message=message,
        fix=fix,
    )


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "src"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _run(root: Path, out: Path, findings=(), **opts):
    files = sorted(p for p in root.rglob("*") if p.is_file())
    return translate_tree(root, files, list(findings), out, TranslateOptions(**opts))


def _body(text: str) -> str:
    """The emitted text without the summary header line (and the implicit include)."""
    return "\n".join(
        line
        for line in text.splitlines()
        if not line.startswith("// HIPSCAN: HIP translation") and "implicit in nvcc builds" not in line
    )


@pytest.fixture()
def basic(tmp_path: Path):
    out = tmp_path / "out"
    results = _run(FIXTURES / "basic", out)
    return {r.source: r for r in results}, out


def test_outputs_mirror_the_tree_and_rename_cu(basic):
    results, out = basic
    assert results["vector_add.cu"].output == "vector_add.hip"
    assert results["include/common.cuh"].output == "include/common.cuh"
    assert results["host_only.cpp"].output == "host_only.cpp"
    assert (out / "vector_add.hip").is_file() and (out / "include/common.cuh").is_file()


def test_comments_and_strings_untouched(basic):
    _, out = basic
    text = (out / "vector_add.hip").read_text()
    assert "// Adds two vectors; cudaMalloc in this comment must stay as written." in text
    assert '"cudaFree(a) is called below"' in text
    assert 'R"(cudaMemcpy\n  stays)"' in text
    assert "/* cudaFree in a block comment */" in text
    assert '"cudaMalloc or friends failed: %s\\n"' in text
    assert "hipFree(a);" in text and "cudaFree(b)" not in text


def test_token_exact_only_identifiers_change(basic):
    results, out = basic
    src = (FIXTURES / "basic" / "vector_add.cu").read_text().splitlines()
    got = _body((out / "vector_add.hip").read_text()).splitlines()
    assert len(src) == len(got)
    back = {hip: cuda for cuda, hip in results["vector_add.cu"].renamed.items()}
    includes = {i.line for i in results["vector_add.cu"].includes}
    for number, (a, b) in enumerate(zip(src, got, strict=True), start=1):
        if number in includes:
            continue
        undone = re.sub(r"HIP_SYMBOL\((\w+)\)", r"\1", b)
        undone = re.sub(r"\b\w+\b", lambda m: back.get(m[0], m[0]), undone)
        assert undone == a, (number, a, b)  # same bytes once the renames are undone


def test_macro_bodies_and_arguments_rewritten(basic):
    _, out = basic
    text = (out / "vector_add.hip").read_text()
    assert "    hipError_t err_ = (call);" in text
    assert "hipGetErrorString(err_));" in text
    assert "CUDA_CHECK(hipMalloc(&a, n * sizeof(float)));" in text
    # the macro's own name is the project's, not CUDA's
    assert "#define CUDA_CHECK(call)" in text


def test_warpsize_kept(basic):
    _, out = basic
    assert "int lane = threadIdx.x % warpSize;" in (out / "vector_add.hip").read_text()


def test_hip_symbol_wraps_the_symbol_argument(basic):
    results, out = basic
    text = (out / "vector_add.hip").read_text()
    assert "hipMemcpyToSymbol(HIP_SYMBOL(scale), host_scale, sizeof(host_scale))" in text
    assert "hipMemcpyFromSymbol(&result, HIP_SYMBOL(counter), sizeof(int))" in text
    assert "hipGetSymbolAddress(&where, HIP_SYMBOL(counter))" in text
    assert results["vector_add.cu"].symbols_wrapped == 3


def test_hip_symbol_inside_macro_definition(tmp_path):
    root = _tree(
        tmp_path,
        {
            "m.cu": "#define UP(sym, src) cudaMemcpyToSymbol(sym, src, sizeof(sym))\n"
            "__constant__ int k;\nvoid f(int* p) { UP(k, p); }\n"
        },
    )
    _run(root, tmp_path / "out")
    text = (tmp_path / "out" / "m.hip").read_text()
    assert "#define UP(sym, src) hipMemcpyToSymbol(HIP_SYMBOL(sym), src, sizeof(sym))" in text


def test_includes_mapped_and_deduplicated(basic):
    results, out = basic
    text = (out / "vector_add.hip").read_text()
    assert text.splitlines().count("#include <hip/hip_runtime.h>") == 1
    assert "#include <cuda.h>" not in text and "#include <cuda_runtime.h>" not in text
    assert "#include <hip/hip_runtime_api.h>" in (out / "host_only.cpp").read_text()
    whys = {i.old: i.why for i in results["vector_add.cu"].includes}
    # the first include already becomes the runtime header: no implicit one on top
    assert whys == {"cuda_runtime.h": "mapped", "cuda.h": "duplicate"}


def test_includes_in_other_branches_are_not_deduplicated(tmp_path):
    root = _tree(
        tmp_path,
        {
            "b.cu": "#ifdef USE_DRIVER\n#include <cuda.h>\n#else\n"
            "#include <cuda_runtime.h>\n#endif\n#include <cuda_runtime_api.h>\n"
        },
    )
    _run(root, tmp_path / "out")
    text = (tmp_path / "out" / "b.hip").read_text()
    assert text.splitlines().count("#include <hip/hip_runtime.h>") == 2  # one per branch
    assert "#include <hip/hip_runtime_api.h>" in text


def test_library_headers_and_names(tmp_path):
    src = (
        "#include <cublas_v2.h>\n#include <curand_kernel.h>\n#include <cub/cub.cuh>\n"
        "#include <thrust/device_vector.h>\n"
        "void f() { cublasHandle_t h; cublasCreate(&h); cub::DeviceReduce::Sum(0, 0, 0, 0, 0); }\n"
    )
    root = _tree(tmp_path, {"l.cu": src})
    _run(root, tmp_path / "hip")
    text = (tmp_path / "hip" / "l.hip").read_text()
    assert "#include <hipblas/hipblas.h>" in text
    assert "#include <hiprand/hiprand_kernel.h>" in text
    assert "#include <hipcub/hipcub.hpp>" in text
    assert "#include <thrust/device_vector.h>" in text
    assert "hipblasHandle_t h; hipblasCreate(&h); hipcub::DeviceReduce::Sum" in text
    _run(root, tmp_path / "roc", roc=True)
    roc = (tmp_path / "roc" / "l.hip").read_text()
    assert "#include <rocblas/rocblas.h>" in roc and "rocblas_handle h; rocblas_create_handle(&h);" in roc


def test_project_names_and_members_are_not_renamed(tmp_path):
    src = (
        "struct Api { int cudaMalloc; };\n"
        "int cudaGetDeviceCount(int* n) { *n = 0; return 0; }\n"
        "int f(Api a) { int n; cudaGetDeviceCount(&n); return a.cudaMalloc + n; }\n"
    )
    root = _tree(tmp_path, {"p.cpp": src})
    _run(root, tmp_path / "out")
    assert _body((tmp_path / "out" / "p.cpp").read_text()) == src.rstrip("\n")


def test_unconverted_names_reported_with_marker(tmp_path):
    results = _run(FIXTURES / "launch", tmp_path / "out")
    r = {x.source: x for x in results}["unsupported.cu"]
    got = {(u.name, u.line, u.column) for u in r.unconverted}
    assert got == {
        ("cudaDeviceFlushGPUDirectRDMAWrites", 7, 3),
        ("cudaFlushGPUDirectRDMAWritesTargetCurrentDevice", 7, 38),
        ("cudaFlushGPUDirectRDMAWritesToOwner", 8, 38),
    }
    text = (tmp_path / "out" / "unsupported.hip").read_text().splitlines()
    line = r.line_map.to_output(7)
    assert text[line - 1].lstrip().startswith("cudaDeviceFlushGPUDirectRDMAWrites(")
    assert text[line - 2].startswith("  // HIPSCAN untranslated: cudaDeviceFlushGPUDirectRDMAWrites")


def test_launches_kept_by_default(tmp_path):
    results = _run(FIXTURES / "launch", tmp_path / "out")
    text = (tmp_path / "out" / "launches.hip").read_text()
    assert "fill<float, 32><<<dim3(4, 1), 32>>>(p, 1.0f);" in text
    assert {x.source: x for x in results}["launches.cu"].launches_kept == 6


def test_hip_launch_kernel_ggl_form(tmp_path):
    results = _run(FIXTURES / "launch", tmp_path / "out", launch_syntax="hip")
    text = (tmp_path / "out" / "launches.hip").read_text()
    # hipify-clang's spelling: grid and block as dim3(...), shared memory and stream 0 by default
    assert (
        "hipLaunchKernelGGL(HIP_KERNEL_NAME(fill<float, 32>), dim3(4, 1), dim3(32), 0, 0, p, 1.0f);" in text
    )
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(fill<float, 64>), dim3(4), dim3(64), 0, 0, p, 2.0f);" in text
    assert "hipLaunchKernelGGL(work::scaled, dim3(1), dim3(32), 0, stream, p, 0.5f);" in text
    assert "hipLaunchKernelGGL(touch, dim3(1), dim3(1), 0, 0);" in text
    assert "#define LAUNCH_TOUCH(grid) hipLaunchKernelGGL(touch, dim3(grid), dim3(1), 0, 0)" in text
    # a launch spread over lines keeps its lines
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(fill<float, 32>), dim3(1),\n" in text
    assert "<<<" not in text and ">>>" not in text
    r = {x.source: x for x in results}["launches.cu"]
    assert r.launches_rewritten == 6 and r.launches_kept == 0
    src = (FIXTURES / "launch" / "launches.cu").read_text()
    assert len(_body(text).splitlines()) == len(src.splitlines())


def test_markers_above_findings_with_indentation_and_line_map(tmp_path):
    root = FIXTURES / "basic"
    findings = [
        _finding(
            "vector_add.cu",
            21,
            28,
            message="lane = threadIdx % warpSize assumes 32",
            fix="use warpSize-aware masks",
        ),
        _finding("vector_add.cu", 11, 7, rule="HIP9002", message="inside a macro"),
    ]
    results = _run(root, tmp_path / "out", findings)
    r = {x.source: x for x in results}["vector_add.cu"]
    lines = (tmp_path / "out" / "vector_add.hip").read_text().splitlines()
    assert lines[0].startswith("// HIPSCAN: HIP translation of vector_add.cu")
    assert "2 marker(s) remain: HIP9001 x1, HIP9002 x1" in lines[0]
    m = {x.rule: x for x in r.markers}
    assert lines[m["HIP9001"].output_line - 1] == (
        "  // HIPSCAN HIP9001: lane = threadIdx % warpSize assumes 32 — use warpSize-aware masks"
    )
    assert lines[m["HIP9001"].output_line].strip() == "int lane = threadIdx.x % warpSize;"
    # a finding inside a macro continuation goes above the #define, where a comment is valid
    assert lines[m["HIP9002"].output_line].startswith("#define CUDA_CHECK(call)")
    assert r.line_map.to_original(m["HIP9001"].output_line + 1) == (21, False)
    assert r.line_map.to_original(m["HIP9001"].output_line) == (21, True)
    assert r.line_map.to_output(21) == m["HIP9001"].output_line + 1


def test_marker_text_never_splices_the_next_line(tmp_path):
    root = _tree(tmp_path, {"s.cu": "void f() {\n  int x = 1;\n}\n"})
    _run(root, tmp_path / "out", [_finding("s.cu", 2, message="ends in a backslash \\", fix="x\\")])
    for line in (tmp_path / "out" / "s.hip").read_text().splitlines():
        assert not line.rstrip().endswith("\\")


def test_project_cu_include_follows_the_rename(tmp_path):
    root = _tree(
        tmp_path,
        {"main.cu": '#include "kernels/k.cu"\n', "kernels/k.cu": "__global__ void k() {}\n"},
    )
    results = _run(root, tmp_path / "out", hip_ext=".hip.cpp")
    assert '#include "kernels/k.hip.cpp"' in (tmp_path / "out" / "main.hip.cpp").read_text()
    assert {r.output for r in results} == {"main.hip.cpp", "kernels/k.hip.cpp"}


def test_idempotent_rerun(tmp_path):
    out = tmp_path / "out"
    first = _run(FIXTURES / "basic", out)
    snapshot = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    mtimes = {p: p.stat().st_mtime_ns for p in snapshot}
    second = _run(FIXTURES / "basic", out)
    assert {r.status for r in first} == {"written"}
    assert {r.status for r in second} == {"unchanged"}
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == snapshot
    assert all(p.stat().st_mtime_ns == mtimes[p] for p in snapshot if p.name != MANIFEST)


def test_refuses_output_inside_the_scanned_tree(tmp_path):
    root = tmp_path / "src"
    shutil.copytree(FIXTURES / "basic", root)
    with pytest.raises(TranslateError, match="inside the scanned tree"):
        _run(root, root / "hip")
    with pytest.raises(TranslateError):
        _run(root, root)
    assert not (root / "hip").exists()


def test_never_touches_files_it_did_not_write(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "vector_add.hip").write_text("mine\n")
    (out / "notes.txt").write_text("keep\n")
    results = {r.source: r for r in _run(FIXTURES / "basic", out)}
    assert results["vector_add.cu"].status.startswith("skipped:")
    assert (out / "vector_add.hip").read_text() == "mine\n"
    assert (out / "notes.txt").read_text() == "keep\n"
    manifest = json.loads((out / MANIFEST).read_text())
    assert "vector_add.hip" not in manifest["files"] and "host_only.cpp" in manifest["files"]


def test_edited_output_needs_force(tmp_path):
    out = tmp_path / "out"
    _run(FIXTURES / "basic", out)
    (out / "host_only.cpp").write_text("edited by hand\n")
    again = {r.source: r for r in _run(FIXTURES / "basic", out)}
    assert again["host_only.cpp"].status.startswith("skipped:")
    assert (out / "host_only.cpp").read_text() == "edited by hand\n"
    forced = {r.source: r for r in _run(FIXTURES / "basic", out, force=True)}
    assert forced["host_only.cpp"].status == "written"
    assert "hipGetDeviceCount" in (out / "host_only.cpp").read_text()


def test_writes_are_atomic(tmp_path, monkeypatch):
    out = tmp_path / "out"
    _run(FIXTURES / "basic", out)
    before = (out / "vector_add.hip").read_bytes()
    (out / MANIFEST).unlink()  # forget everything: nothing may be overwritten now
    shutil.rmtree(out)
    out.mkdir()

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        _run(FIXTURES / "basic", out)
    assert list(out.rglob("*.tmp")) == []
    assert not (out / "vector_add.hip").exists()
    monkeypatch.undo()
    _run(FIXTURES / "basic", out)
    assert (out / "vector_add.hip").read_bytes() == before


def test_report_to_dict(basic):
    results, _ = basic
    d = results["vector_add.cu"].to_dict()
    assert d["output"] == "vector_add.hip"
    assert d["converted"]["cudaMalloc"] == 3 and d["renamed"]["cudaMalloc"] == "hipMalloc"
    assert d["converted_count"] == sum(d["converted"].values())
    assert d["unconverted"] == [] and d["markers"] == []
    json.dumps(d)


def test_non_utf8_source_keeps_its_bytes(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    raw = b'// caf\xe9 cudaMalloc\nvoid f(void** p) { cudaMalloc(p, 4); const char* s = "\xe9t\xe9"; }\n'
    (root / "l.cu").write_bytes(raw)
    _run(root, tmp_path / "out")
    got = (tmp_path / "out" / "l.hip").read_bytes()
    assert got.split(b"\n", 2)[2] == raw.replace(b"{ cudaMalloc", b"{ hipMalloc")


def test_header_guards_and_empty_macros(tmp_path):
    src = "#include <cuda_runtime.h>\n#ifdef __CUDA_RUNTIME_H__\nvoid CUDART_CB cb(cudaStream_t s);\n#endif\n"
    root = _tree(tmp_path, {"g.cu": src})
    _run(root, tmp_path / "out")
    text = (tmp_path / "out" / "g.hip").read_text()
    assert "#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_H\nvoid /*CUDART_CB*/ cb(hipStream_t s);" in text


def test_kernel_pointer_arguments_are_cast_to_const_void(tmp_path):
    out = tmp_path / "out"
    result = {r.source: r for r in _run(FIXTURES / "call_args", out)}["attributes.cu"]
    text = (out / "attributes.hip").read_text()
    assert "hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(scale));" in text
    assert "hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(fill<double>));" in text
    assert "hipFuncGetAttributes(&attr, (const void *)scale);" in text  # already a cast
    assert "hipFuncSetCacheConfig(reinterpret_cast<const void*>(scale), hipFuncCachePreferL1);" in text
    assert "hipFuncSetAttribute(reinterpret_cast<const void*>(fill<float>), " in text
    assert result.args_cast == 4


def test_rtc_options_array_cast_to_hiprtc_parameter_type(tmp_path):
    out = tmp_path / "out"
    result = {r.source: r for r in _run(FIXTURES / "call_args", out)}["rtc.cpp"]
    text = (out / "rtc.cpp").read_text()
    assert "hiprtcCompileProgram(prog, 1, const_cast<const char **>(options));" in text
    assert "hiprtcCompileProgram(prog, 1, (const char **)fixed);" in text
    assert result.args_cast == 1


def test_host_alloc_becomes_host_malloc(tmp_path):
    out = tmp_path / "out"
    result = {r.source: r for r in _run(FIXTURES / "call_args", out)}["attributes.cu"]
    text = (out / "attributes.hip").read_text()
    assert "hipHostMalloc(&pinned, 64 * sizeof(float), hipHostMallocMapped | hipHostMallocPortable);" in text
    assert "hipHostAlloc" not in text
    assert result.renamed["cudaHostAlloc"] == "hipHostMalloc"


def test_cuda_default_arguments_spelled_out_and_overloads_renamed(tmp_path):
    out = tmp_path / "out"
    result = {r.source: r for r in _run(FIXTURES / "call_args", out)}["streams.cu"]
    text = (out / "streams.hip").read_text()
    assert text.count("hipStreamWaitEvent(stream, done, 0);") == 2  # the explicit one unchanged
    assert "hipMalloc3DArray(&volume, &desc, make_hipExtent(8, 8, 8), 0);" in text
    assert "make_hipExtent(8, 8, 2), hipArrayLayered);" in text
    assert "hipStreamGetCaptureInfo(stream, &status, nullptr);" in text
    assert "hipEventCreateWithFlags(&done, hipEventDisableTiming | hipEventInterprocess);" in text
    assert "hipEventCreate(&timed);" in text
    assert result.default_args_added == 3


def test_angled_include_prefers_parent_folders_then_path_order(tmp_path):
    """A sibling sample's private copy of a shared header is not what `<name>` finds."""
    root = _tree(
        tmp_path,
        {
            "Common/helper.h": "#define FROM_COMMON 1\n",
            "Samples/a/helper.h": "#define FROM_A 1\n",
            "Samples/b/main.cu": "#include <helper.h>\n",
            "Samples/a/main.cu": "#include <helper.h>\n",
            "Samples/c/inc/util.h": "#define UTIL 1\n",
            "Samples/util.h": "#define OUTER 1\n",
            "Samples/c/inc/x/main.cu": "#include <util.h>\n",
        },
    )
    results = {r.source: r for r in _run(root, tmp_path / "out")}
    assert results["Samples/b/main.cu"].project_includes == ["Common/helper.h"]
    assert results["Samples/a/main.cu"].project_includes == ["Samples/a/helper.h"]
    assert results["Samples/c/inc/x/main.cu"].project_includes == ["Samples/c/inc/util.h"]


def test_headers_that_need_a_compiler_flag_are_recorded(tmp_path):
    root = _tree(
        tmp_path,
        {
            "par.cuh": "#include <omp.h>\n#include <cstdio>\n",
            "main.cu": '#include "par.cuh"\n__global__ void k() {}\n',
            "plain.cu": "#include <cstdio>\n__global__ void k() {}\n",
        },
    )
    results = {r.source: r for r in _run(root, tmp_path / "out")}
    assert results["par.cuh"].compile_flags == ["-fopenmp"]
    assert results["main.cu"].compile_flags == []  # verify collects it through the include
    assert results["plain.cu"].compile_flags == []


def test_names_the_project_redeclares_are_not_renamed_anywhere(tmp_path):
    # the dynamic-loading pattern: a project header re-declares the driver API as pointers
    root = _tree(
        tmp_path,
        {
            "dynlink.h": "typedef int (*tcuInit)(unsigned);\nextern tcuInit cuInit;\n",
            "main.cpp": '#include "dynlink.h"\nint start() { return cuInit(0); }\n',
            "other.cpp": "#include <cuda.h>\nint go() { return cuInit(0); }\n",
        },
    )
    _run(root, tmp_path / "out")
    assert "cuInit(0)" in (tmp_path / "out" / "main.cpp").read_text()
    assert "extern tcuInit cuInit;" in (tmp_path / "out" / "dynlink.h").read_text()
    assert "hipInit(0)" in (tmp_path / "out" / "other.cpp").read_text()  # not the project's


def test_null_argument_for_a_parameter_hip_lacks_is_dropped(tmp_path):
    src = (
        "#include <cuda.h>\n"
        "size_t smem(int b);\n"
        "void f(CUfunction fn, int *g, int *b) {\n"
        "  cuOccupancyMaxPotentialBlockSize(g, b, fn, 0, 4096, 0);\n"
        "  cuOccupancyMaxPotentialBlockSize(g, b, fn, smem, 0, 0);\n"
        "}\n"
    )
    root = _tree(tmp_path, {"o.cpp": src})
    [result] = _run(root, tmp_path / "out")
    text = (tmp_path / "out" / "o.cpp").read_text()
    assert "hipModuleOccupancyMaxPotentialBlockSize(g, b, fn, 4096, 0);" in text
    assert "hipModuleOccupancyMaxPotentialBlockSize(g, b, fn, smem, 0, 0);" in text  # kept, reported
    assert result.args_dropped == 1


def test_names_defined_by_an_includer_are_not_renamed_in_the_header(tmp_path):
    # the header tests a CUDA include guard the including file's loading layer defines itself
    root = _tree(
        tmp_path,
        {
            "loader.h": "#define __cuda_cuda_h__\nextern int (*cuInit)(unsigned);\n",
            "helper.h": "#ifdef __cuda_cuda_h__\ninline int init() { return cuInit(0); }\n#endif\n",
            "main.cpp": '#include "loader.h"\n#include "helper.h"\nint main() { return init(); }\n',
        },
    )
    _run(root, tmp_path / "out")
    helper = (tmp_path / "out" / "helper.h").read_text()
    assert "#ifdef __cuda_cuda_h__" in helper and "cuInit(0)" in helper


def test_index_arguments_of_min_max_get_cudas_type_and_struct_tags_drop(tmp_path):
    src = (
        "#include <cuda_runtime.h>\n"
        "__global__ void k(unsigned *o, unsigned rem) {\n"
        "  o[0] = min(rem, blockDim.x);\n"
        "  o[1] = max(threadIdx.x, rem) + min(rem, 4u);\n"
        "}\n"
        "struct cudaGraphicsResource;\n"
        "void f(struct cudaGraphicsResource **res) { cudaGraphicsUnregisterResource(*res); }\n"
    )
    root = _tree(tmp_path, {"k.cu": src})
    _run(root, tmp_path / "out")
    text = (tmp_path / "out" / "k.hip").read_text()
    assert "o[0] = min(rem, (unsigned int)(blockDim.x));" in text
    assert "o[1] = max((unsigned int)(threadIdx.x), rem) + min(rem, 4u);" in text
    assert "struct cudaGraphicsResource;" in text  # a forward declaration: left, marked by the scan
    assert "void f(hipGraphicsResource **res) { hipGraphicsUnregisterResource(*res); }" in text


def test_quoted_include_the_compiler_takes_from_the_system_is_not_a_project_file(tmp_path):
    # llm.c ships dev/unistd.h (a Windows stand-in); the root files' "unistd.h" is the system one
    root = _tree(
        tmp_path,
        {
            "dev/unistd.h": "#include <direct.h>\n",
            "train.cu": '#include "unistd.h"\n__global__ void k() {}\n',
        },
    )
    results = {r.source: r for r in _run(root, tmp_path / "out")}
    assert results["train.cu"].project_includes == []
    assert '#include "unistd.h"' in (tmp_path / "out" / "train.hip").read_text()


def test_argument_rewrites_hipify_clang_makes(tmp_path):
    """Signature differences between a CUDA call and its HIP twin, from hipmap.toml (the cases
    HIPIFY's own unit tests check: runtime_functions_12000.cu, device_symbols.cu, ...)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "calls.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "__device__ float table[4][4];\n"
        "template <typename T> __global__ void k(T *p) {}\n"
        "void f(cudaGraph_t g, cudaGraphExec_t *e, cudaGraphNode_t n, float *h, void *fn, void **args) {\n"
        "  cudaGraphInstantiate(e, g, 0ULL);\n"
        "  cudaGraphInstantiate(e, g, NULL, NULL, 0);\n"
        "  cudaMallocHost((void **)&h, 64);\n"
        "  cudaGraphMemcpyNodeSetParamsToSymbol(n, table, h, 64, 0, cudaMemcpyHostToDevice);\n"
        "  cudaLaunchKernel(fn, 1, 1, args, 0, 0);\n"
        "  int v; cudaDeviceGetAttribute(&v, cudaDevAttrPciDomainId, 0);\n"
        "  k<<<1, 2>>>(h);\n"
        "}\n"
    )
    _run(src, tmp_path / "out", launch_syntax="hip")
    text = (tmp_path / "out" / "calls.hip").read_text()
    assert "hipGraphInstantiateWithFlags(e, g, 0ULL);" in text
    assert "hipGraphInstantiate(e, g, NULL, NULL, 0);" in text
    assert "hipHostMalloc((void **)&h, 64, hipHostMallocDefault);" in text
    assert "hipGraphMemcpyNodeSetParamsToSymbol(n, HIP_SYMBOL(table), h," in text
    assert "hipLaunchKernel(reinterpret_cast<const void*>(fn), 1, 1," in text
    assert "hipDeviceAttributePciDomainID" in text
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k), dim3(1), dim3(2), 0, 0, h);" in text
