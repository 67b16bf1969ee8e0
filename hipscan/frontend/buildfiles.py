"""Facts from build files: CMake, Make, setup.py and compile_commands.json.

These are not C++, so libclang cannot read them; a line-oriented scan with regular expressions is
the right tool here. Each fact keeps the line and column where it was written.
"""

from __future__ import annotations

import re
from pathlib import Path

from hipscan.facts import BuildFact, Loc

# (kind, pattern) per build tool; the value is group "v" when present, else the whole match.
CMAKE = [
    ("language", re.compile(r"enable_language\s*\(\s*(?P<v>CUDA)\b", re.I)),
    ("language", re.compile(r"\b(?i:project)\s*\([^)]*\b(?P<v>CUDA)\b")),  # with or without LANGUAGES
    ("language", re.compile(r"\bLANGUAGE\s+(?P<v>CUDA)\b")),  # a source file property
    ("architecture", re.compile(r"\b(?P<v>(?:CMAKE_)?CUDA_ARCHITECTURES)\b")),
    (
        "package",
        re.compile(
            r"find_package\s*\(\s*(?P<v>CUDAToolkit|CUDA|CUDNN|cuDNN|TensorRT|NCCL|OptiX|CUTLASS|NvidiaCutlass|Thrust|CUB|nvshmem|NVSHMEM)\b",
            re.I,
        ),
    ),
    ("library", re.compile(r"\bCUDA::(?P<v>\w+)")),
    # the project's switch for its CUDA build: option(USE_CUDA ...), option(GGML_CUDA ...)
    ("option", re.compile(r"\boption\s*\(\s*(?P<v>\w*CUDA\w*)\b", re.I)),
    # a .cu source in a source list (CMake compiles it as CUDA), FindCUDA's target macros
    ("source", re.compile(r"(?<![\w$/{-])(?P<v>[\w./${}-]+\.cu)(?=[\s)\"]|$)")),
    ("source", re.compile(r"\b(?P<v>cuda_add_(?:library|executable))\s*\(", re.I)),
    # CUDA_RESOLVE_DEVICE_SYMBOLS only asks for a device-link step; it does not turn on -rdc
    ("flag", re.compile(r"(?P<v>CUDA_SEPARABLE_COMPILATION)\s+(?:ON|TRUE|1)", re.I)),
]
# A line that is about nvcc: short options such as `-dc` or `-G` mean something else to other
# tools (`gzip -dc`), so they count only on such a line.
NVCC_LINE = re.compile(
    r"nvcc|cuda|\bCU_?FLAGS\b|\.cu\b|-lineinfo|-Xcompiler|-Xptxas|--use_fast_math|-gencode|-arch[= ]sm_", re.I
)
FLAGS = [
    (
        "flag",
        re.compile(r"(?<![\w-])(?P<v>-rdc(?:=true)?|--relocatable-device-code(?:=true)?)(?![\w-])"),
    ),
    # --device-c is -dc's long form (cholla's Makefile: `$(NVCC) ... --device-c`)
    ("flag", re.compile(r"(?<![\w-])(?P<v>-dc|--device-c|-G|--device-debug)(?![\w=-])"), NVCC_LINE),
    ("flag", re.compile(r"(?<![\w-])(?P<v>--?x\s+cu)\b")),  # nvcc's language switch
    (
        "architecture",
        re.compile(
            r"(?<![\w-])(?P<v>(?:-arch|--gpu-architecture|-code|--gpu-code)[= ](?:sm|compute)_\d+[a-z]?"
            r"|arch=compute_\d+[a-z]?)"
        ),
    ),
    # an architecture held in a variable (`ARCH = sm_60`, used as `-arch=$(ARCH)`)
    ("architecture", re.compile(r"(?<![\w-])(?P<v>(?:sm|compute)_\d{2,3}[a-z]?)\b")),
    (
        "flag",
        re.compile(
            r"(?<![\w-])(?P<v>--use_fast_math|-use_fast_math|--expt-relaxed-constexpr|"
            r"--expt-extended-lambda|--extended-lambda|-Xptxas|-Xcompiler|--ptxas-options|-lineinfo|"
            r"--default-stream[= ]per-thread|-maxrregcount|-ccbin|--compiler-bindir|-restrict|--restrict)"
            r"(?![\w-])"
        ),
    ),
    (
        "library",
        re.compile(
            r"(?<![\w-])-l(?P<v>cudadevrt|cudart_static|cudart|cuda|cublasLt|cublas|cufft|curand|cusparse|cusolver|cudnn|nccl|nvrtc|nvToolsExt|nvtx3|nvinfer\w*|nvjpeg|npp\w*|cufile|nvshmem\w*|nvidia-ml|cutensor|optix)\b"
        ),
    ),
]
# nvcc named as the compiler (`NVCC ?= nvcc`, `$(CUDA_PATH)/bin/nvcc`, `nvcc -c ...`)
MAKE = [("compiler", re.compile(r"(?<![\w.-])(?P<v>nvcc)(?![\w.-])"))]
SETUP = [
    ("extension", re.compile(r"\b(?P<v>CUDAExtension|BuildExtension)\b")),
    # CUDA_HOME where it is tested (`CUDA_HOME is not None`, `if CUDA_HOME`), not imported
    ("package", re.compile(r"\b(?P<v>CUDA_HOME)\s*(?:is\b|==|!=)|\b(?:if|and|or|not)\s+(?P<w>CUDA_HOME)\b")),
    (
        "library",
        re.compile(
            r"['\"](?P<v>cudadevrt|cublasLt|cublas|cufft|curand|cusparse|cusolver|cudnn|nccl|nvrtc|nvToolsExt|cutensor|nvjpeg)['\"]"
        ),
    ),
]


HIP_AWARE_SETUP = re.compile(r"\bROCM_HOME\b|\bHIP_HOME\b|torch\.version\.hip\b")


def _scan_lines(text: str, rel: str, tool: str, patterns: list) -> list[BuildFact]:
    out: list[BuildFact] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0] if tool in ("cmake", "make", "setuptools") else line
        for kind, pattern, *context in patterns:
            if context and not context[0].search(code):
                continue
            for m in pattern.finditer(code):
                group = next((g for g in ("v", "w") if m.groupdict().get(g)), None)
                value = m.group(group) if group else m.group(0)
                start = m.start(group) if group else m.start()
                out.append(BuildFact(kind=kind, value=value, loc=Loc(rel, lineno, start + 1), tool=tool))
    return out


def scan_build_file(path: Path, rel: str) -> list[BuildFact]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    name = path.name
    if name == "compile_commands.json":
        return _scan_lines(text, rel, "compile_commands", FLAGS)
    if name == "setup.py":
        facts = _scan_lines(text, rel, "setuptools", SETUP + FLAGS)
        if HIP_AWARE_SETUP.search(text):  # the script already chooses a ROCm build itself
            facts = [f for f in facts if f.value != "CUDA_HOME"]
        return facts
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return _scan_lines(text, rel, "cmake", CMAKE + FLAGS)
    return _scan_lines(text, rel, "make", FLAGS + MAKE)


# -- compile_commands.json: per-file flags for the parse (filtered: see flags.py) ------------------
from hipscan.frontend.flags import load_compile_commands  # noqa: E402,F401 - re-exported
