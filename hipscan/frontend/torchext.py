"""Is the project a PyTorch C++/CUDA extension?

Such a project is built for ROCm through PyTorch's own hipify (``torch.utils.hipify``, run by
``torch.utils.cpp_extension`` at build time), not through hipify-perl/clang: names PyTorch's table
maps are renames for it, not findings (DeepSpeed's ``CUBLAS_GEMM_DEFAULT_TENSOR_OP``, which the
HIPIFY tables mark unsupported, becomes ``HIPBLAS_GEMM_DEFAULT``). The evidence is a build script
that uses the extension builder, or sources that include the extension or ATen/c10 CUDA headers.
A line scan: directives and setup scripts are not in the AST.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

BUILD_SCRIPT = re.compile(
    r"^[^#\n]*\b(?:CUDAExtension|BuildExtension|torch\.utils\.cpp_extension|cpp_extension\.load)\b", re.M
)
TORCH_INCLUDE = re.compile(
    r'^\s*#\s*include\s*[<"](?:torch/extension\.h|torch/torch\.h|ATen/[\w/.]+|c10/cuda/[\w/.]+)[>"]', re.M
)
SCRIPT_NAMES = ("setup.py",)


def _read(path: Path, limit: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return ""


def is_torch_extension(
    sources: Iterable[Path], build_files: Iterable[Path] = (), limit: int = 1_000_000
) -> bool:
    """True when a build script uses torch.utils.cpp_extension or a source includes
    <torch/extension.h>, <torch/torch.h>, <ATen/...> or <c10/cuda/...>."""
    for path in build_files:
        if path.name in SCRIPT_NAMES and BUILD_SCRIPT.search(_read(path, limit)):
            return True
    return any(TORCH_INCLUDE.search(_read(path, limit)) for path in sources)
