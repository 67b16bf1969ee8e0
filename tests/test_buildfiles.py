"""Build-file facts: CMake arms behind a CUDA switch, setup.py helpers and guards."""

from __future__ import annotations

from pathlib import Path

from hipscan.frontend.buildfiles import scan_build_file

CMAKE = """\
if(BUILD_CUDA)
  enable_language(CUDA)
  if(CUDAToolkit_FOUND)
    set(CUDA_SRCS a.cu)
  endif()
elseif(BUILD_MPS)
  enable_language(OBJCXX)
endif()
if(CUDA_SRCS)
  set_property(TARGET t PROPERTY CUDA_ARCHITECTURES 70)
endif()
find_package(CUDAToolkit)
"""


def _facts(tmp_path: Path, name: str, text: str) -> list:
    path = tmp_path / name
    path.write_text(text)
    return scan_build_file(path, name)


def test_cuda_arm_is_one_fact_where_it_closes(tmp_path: Path) -> None:
    facts = _facts(tmp_path, "CMakeLists.txt", CMAKE)
    arms = [f for f in facts if f.kind == "cuda-arm"]
    assert [(f.value, f.loc.line, [r.line for r in f.related]) for f in arms] == [("BUILD_CUDA", 6, [1])]
    # nothing inside the arm, nor in the arm of a variable only it sets; the top-level lookup stays
    assert sorted((f.kind, f.loc.line) for f in facts if f.kind != "cuda-arm") == [("package", 12)]


def test_cuda_arm_with_a_hip_sibling_is_quiet(tmp_path: Path) -> None:
    text = "if(USE_CUDA)\n  enable_language(CUDA)\nelseif(USE_ROCM)\n  enable_language(HIP)\nendif()\n"
    assert _facts(tmp_path, "CMakeLists.txt", text) == []


def test_setup_version_uses_guarded_or_in_nvcc_helpers_are_quiet(tmp_path: Path) -> None:
    text = """\
import torch
def helper(cuda_dir):
    out = run([cuda_dir + "/bin/nvcc", "-V"])
    return torch.version.cuda.split(".")
def tag():
    return torch.version.cuda.replace(".", "")
if torch.version.cuda is not None:
    v = torch.version.cuda.split(".")
"""
    facts = _facts(tmp_path, "setup.py", text)
    assert [(f.kind, f.loc.line) for f in facts] == [("torch-version", 6)]


def test_build_defines_reads_d_flags_and_cmake_definitions(tmp_path):
    from hipscan.frontend.buildfiles import build_defines

    (tmp_path / "setup.py").write_text('if torch.version.hip:\n    flags += ["-DHIPBLAS_USE_HIP_HALF"]\n')
    (tmp_path / "CMakeLists.txt").write_text("add_compile_definitions(USE_GPU)\nadd_definitions(-D WITH_X)\n")
    (tmp_path / "Makefile").write_text("CFLAGS += -O2 --no-DEBUG\n")
    names = build_defines([tmp_path / "setup.py", tmp_path / "CMakeLists.txt", tmp_path / "Makefile"])
    assert names == {"HIPBLAS_USE_HIP_HALF", "USE_GPU", "WITH_X"}


def test_rule_quiet_where_the_build_defines_its_fix(tmp_path):
    from hipscan.api import scan
    from hipscan.config import ScanConfig

    src = "#include <cublas_v2.h>\nvoid f(cublasHandle_t h, const __half *a, __half *c) {\n"
    src += "  cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, a, a, 4, a, 4, a, c, 4);\n}\n"
    (tmp_path / "g.cu").write_text(src)
    rules = {f.rule for f in scan([tmp_path], ScanConfig(jobs=1, use_cache=False)).findings}
    assert "HIP737" in rules
    (tmp_path / "CMakeLists.txt").write_text("add_compile_definitions(HIPBLAS_USE_HIP_HALF)\n")
    rules = {f.rule for f in scan([tmp_path], ScanConfig(jobs=1, use_cache=False)).findings}
    assert "HIP737" not in rules
