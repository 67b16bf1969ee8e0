"""PyTorch extensions: detected from their build script or includes; torch's renames applied."""

from __future__ import annotations

from hipscan.apitable import load_api_table, load_torch_renames
from hipscan.frontend.torchext import is_torch_extension


def test_detected_from_setup_script_or_includes(tmp_path):
    setup = tmp_path / "setup.py"
    setup.write_text("from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n")
    src = tmp_path / "k.cu"
    src.write_text("#include <cuda_runtime.h>\n")
    assert is_torch_extension([src], [setup])
    assert not is_torch_extension([src], [])
    setup.write_text("# CUDAExtension is what we do not use\nfrom setuptools import setup\n")
    assert not is_torch_extension([src], [setup])
    src.write_text("#include <ATen/cuda/CUDAContext.h>\n")
    assert is_torch_extension([src], [])


def test_torch_renames_fill_only_unmapped_names():
    table = load_api_table()
    renames = load_torch_renames()
    assert renames["CUBLAS_GEMM_DEFAULT_TENSOR_OP"] == "HIPBLAS_GEMM_DEFAULT"
    assert all(not (table.get(n).hip_name or table.get(n).roc_name) for n in renames)
    merged = table.with_renames(renames)
    e = merged.get("CUBLAS_GEMM_DEFAULT_TENSOR_OP")
    assert e.hip_name == "HIPBLAS_GEMM_DEFAULT" and not e.no_hip_or_roc
    assert merged.get("cudaMalloc") == table.get("cudaMalloc")
