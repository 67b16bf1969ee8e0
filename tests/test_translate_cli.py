"""`hipscan translate` takes the scan options that change a translation, and places nvcc's
implicit runtime include where hipify-clang does."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from hipscan.cli import main

TEMPLATED = """#ifdef TEMPLATED
template <typename T> __global__ void k(T *p) {}
#else
__global__ void k(float *p) {}
#endif
void f(float *p) { k<<<1, 2>>>(p); }
"""


def _translate(tmp_path: Path, name: str, text: str, *args: str) -> str:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / name).write_text(text)
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    result = CliRunner().invoke(main, ["translate", str(src / name), "-o", str(out), "--no-scan", *args])
    assert result.exit_code == 0, result.output
    produced = out / (name[: -len(".cu")] + ".hip" if name.endswith(".cu") else name)
    return produced.read_text()


def test_defines_reach_the_parse(tmp_path):
    """With -DTEMPLATED the kernel is a template: hipLaunchKernelGGL names it HIP_KERNEL_NAME(k)."""
    plain = _translate(tmp_path, "t.cu", TEMPLATED, "--launch-syntax", "hip")
    templated = _translate(tmp_path, "t.cu", TEMPLATED, "--launch-syntax", "hip", "-D", "TEMPLATED")
    assert "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, p);" in plain
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k), dim3(1), dim3(2), 0, 0, p);" in templated


def test_rocm_version_option(tmp_path):
    """--rocm-version reaches the scan: for 5.2, hipDrvGetErrorString (HIP 5.4) is marked."""
    text = "#include <cuda.h>\nvoid f(CUresult r) { const char *s; cuGetErrorString(r, &s); }\n"
    src = tmp_path / "src"
    src.mkdir()
    (src / "e.cu").write_text(text)
    marked = {}
    for version in ("5.2", "6.2"):
        out = tmp_path / f"out{version}"
        args = ["translate", str(src / "e.cu"), "-o", str(out), "--rocm-version", version]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        emitted = (out / "e.hip").read_text()
        assert "hipDrvGetErrorString(r, &s)" in emitted
        marked[version] = "// HIPSCAN HIP902" in emitted
    assert marked == {"5.2": True, "6.2": False}


def test_bad_rocm_version_is_a_usage_error(tmp_path):
    (tmp_path / "a.cu").write_text("int x;\n")
    result = CliRunner().invoke(
        main, ["translate", str(tmp_path / "a.cu"), "-o", str(tmp_path / "o"), "--rocm-version", "six"]
    )
    assert result.exit_code == 2
    assert "invalid ROCm version" in result.output


def test_runtime_include_after_pragma_once_or_before_first_include(tmp_path):
    lines = _translate(tmp_path, "p.cu", "#pragma once\n#include <stdio.h>\nint x;\n").splitlines()
    at = lines.index("#pragma once")
    assert lines[at + 1].startswith("#include <hip/hip_runtime.h>")
    # a .cpp with kernels is CUDA to nvcc -x cu: it gets the include too, just before <stdio.h>,
    # outside the Windows-only block above it
    cpp = "#ifdef _WIN32\n#include <windows.h>\n#endif\n#include <stdio.h>\n__global__ void k() {}\n"
    lines = _translate(tmp_path, "k.cpp", cpp).splitlines()
    at = lines.index("#include <stdio.h>")
    assert lines[at - 1].startswith("#include <hip/hip_runtime.h>")
    # an include guard's #ifndef (before a #pragma once) takes it right after, as hipify-clang does
    guarded = "#ifndef G_H\n#pragma once\n#define G_H\n#include <stdio.h>\n#endif // G_H\n"
    lines = _translate(tmp_path, "g.cu", guarded).splitlines()
    assert lines[lines.index("#ifndef G_H") + 1].startswith("#include <hip/hip_runtime.h>")
    # a file whose first include becomes the runtime header needs no other
    text = _translate(tmp_path, "r.cu", "#include <cuda_runtime.h>\n#include <vector>\n")
    assert text.count("hip/hip_runtime.h") == 1


def test_cli_start_up_loads_neither_translator_nor_report_code():
    """Start-up time: defining the commands imports no networkx, report or translator code
    (benchmarks/startup.py measures the time; this keeps the imports from creeping back)."""
    import subprocess
    import sys

    code = (
        "import sys, hipscan.cli; "
        "print(sorted(m for m in ('networkx', 'hipscan.report', 'hipscan.translate.tree', "
        "'hipscan.effort') if m in sys.modules))"
    )
    repo = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_call_without_an_exact_rewrite_is_marked(tmp_path):
    text = (
        "#include <cuda_runtime.h>\n"
        "void f(void **pfn, cudaDriverEntryPointQueryResult *q) {\n"
        '  cudaGetDriverEntryPoint("cuInit", pfn, 0, q);\n'
        "}\n"
    )
    lines = _translate(tmp_path, "d.cu", text).splitlines()
    call = next(k for k, line in enumerate(lines) if "hipGetProcAddress(" in line)
    assert lines[call - 1].lstrip().startswith("// HIPSCAN arguments: `cudaGetDriverEntryPoint`")


def test_half2_members_cast_to_half(tmp_path):
    """ROCm 5.2 declares half2's x and y as unsigned short: reads and writes go through half&."""
    text = (
        "#include <cuda_fp16.h>\n"
        "__device__ float f(half2 h, const half2 *c, half2 *p, half v) {\n"
        "  p->y = v;\n"
        "  float a = (float)reinterpret_cast<half&>(h.x);\n"
        "  return (float)h.x + (float)c->y + a;\n"
        "}\n"
    )
    out = _translate(tmp_path, "h.cu", text)
    assert "reinterpret_cast<half&>(p->y) = v;" in out
    assert "(float)reinterpret_cast<half&>(h.x);" in out  # already cast: left alone
    assert (
        "return (float)reinterpret_cast<half&>(h.x) + (float)reinterpret_cast<const half&>(c->y) + a;" in out
    )
