"""Facts from build files: CMake, Make, setup.py and compile_commands.json.

These are not C++, so libclang cannot read them; a line-oriented scan with regular expressions is
the right tool here. Each fact keeps the line and column where it was written.

Real ports leave a CUDA back end that already sits behind a switch as it was and add a sibling
arm for ROCm (``hipscan/data/build_arms.toml``), so in CMake the scan follows if()/elseif()/endif()
arms: constructs inside a CUDA switch's arm are not facts, and the arm itself is one fact
(``cuda-arm``) at the line that closes it, where the HIP arm goes. In setup.py, a CUDA_HOME test
inside a helper function is not where the build is chosen, and a guarded ``torch.version.cuda``
is not a use that fails on ROCm.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from hipscan.facts import BuildFact, Loc, RelatedLoc

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


@lru_cache(maxsize=1)
def _arm_table() -> dict[str, dict[str, str]]:
    """build_arms.toml, read once: the patterns of CUDA and HIP arms per build tool."""
    text = resources.files("hipscan.data").joinpath("build_arms.toml").read_text("utf-8")
    return tomllib.loads(text)


def _switch_name() -> str:
    """The shape of a project's CUDA switch name, for option()."""
    return _arm_table()["cmake"]["switch_name"]


# (kind, pattern) per build tool; the value is group "v" when present, else the whole match.
CMAKE = [
    ("language", re.compile(r"enable_language\s*\(\s*(?P<v>CUDA)\b", re.I)),
    ("language", re.compile(r"\b(?i:project)\s*\([^)]*\b(?P<v>CUDA)\b")),  # with or without LANGUAGES
    ("language", re.compile(r"\bLANGUAGE\s+(?P<v>CUDA)\b")),  # a source file property
    # the CUDA language's own settings (nvcc's flags, standard, compiler): CMAKE_HIP_* twins
    (
        "language-variable",
        re.compile(
            r"\b(?P<v>CMAKE_CUDA_(?:FLAGS(?:_[A-Z]+|_\$\{\w+\})?|STANDARD(?:_REQUIRED)?|EXTENSIONS"
            r"|COMPILER(?:_LAUNCHER)?|HOST_COMPILER|RUNTIME_LIBRARY))\b"
        ),
    ),
    ("architecture", re.compile(r"\b(?P<v>(?:CMAKE_)?CUDA_ARCHITECTURES)\b")),
    (
        "package",
        re.compile(
            r"find_package\s*\(\s*(?P<v>CUDAToolkit|CUDA|CUDNN|cuDNN|TensorRT|NCCL|OptiX|CUTLASS|NvidiaCutlass|Thrust|CUB|nvshmem|NVSHMEM)\b",
            re.I,
        ),
    ),
    ("library", re.compile(r"\bCUDA::(?P<v>\w+)")),
    # the Video Codec SDK's driver libraries, named bare (they are no CUDA:: targets)
    ("library", re.compile(r"(?<![\w:/.-])(?P<v>nvcuvid|nvidia-encode)(?![\w.-])")),
    # the project's switch for its CUDA build: option(USE_CUDA ...), option(GGML_CUBLAS ...); not
    # tuning options of the CUDA back end (GGML_CUDA_F16, ...), which a ROCm port keeps and reuses
    ("option", re.compile(r"\b(?i:option)\s*\(\s*(?P<v>" + _switch_name() + r")(?=[\s)])")),
    # toolkit paths and library lists from the CUDA package lookup, used outside it
    (
        "variable",
        re.compile(
            r"\$\{(?P<v>CUDAToolkit_(?:INCLUDE_DIRS|LIBRARY_DIR|LIBRARY_ROOT|BIN_DIR|TARGET_DIR)"
            r"|CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES|CUDA_INCLUDE_DIRS|CUDA_LIBRARIES|CUDA_TOOLKIT_ROOT_DIR)\}"
        ),
    ),
    # a .cu source in a source list (CMake compiles it as CUDA), FindCUDA's target macros
    ("source", re.compile(r"(?<![\w$/{-])(?P<v>[\w./${}-]+\.cu)(?=[\s)\"]|$)")),
    ("source", re.compile(r"\b(?P<v>cuda_add_(?:library|executable))\s*\(", re.I)),
    # .cu sources collected by a glob (ggml's file(GLOB GGML_SOURCES_CUDA "*.cu"))
    (
        "source",
        re.compile(r"\bfile\s*\(\s*GLOB(?:_RECURSE)?\s+\w+[^)]*?(?P<v>[\w./${}*-]*\*\.cu)(?=[\s)\"])", re.I),
    ),
    # CUDA_RESOLVE_DEVICE_SYMBOLS only asks for a device-link step; it does not turn on -rdc
    ("flag", re.compile(r"(?P<v>CUDA_SEPARABLE_COMPILATION)\s+(?:ON|TRUE|1)", re.I)),
]
# A line that is about nvcc: short options such as `-dc` or `-G` mean something else to other
# tools (`gzip -dc`), so they count only on such a line.
NVCC_LINE = re.compile(
    r"nvcc|cuda|\bCU_?FLAGS\b|\.cu\b|-lineinfo|-Xcompiler|-Xptxas|--use_fast_math|-gencode|-arch[= ]sm_", re.I
)
# nvcc's short relocatable-code options: --device-c is -dc's long form (cholla's Makefile: `$(NVCC)
# ... --device-c`); -dlink is nvcc's separate device-link step (QUICK's Makefile), which hip-clang
# folds into the -fgpu-rdc link
NVCC_RDC_SHORT = re.compile(r"(?<![\w-])(?P<v>-dc|--device-c|-dlink|--device-link)(?![\w=-])")
FLAGS = [
    (
        "flag",
        re.compile(r"(?<![\w-])(?P<v>-rdc(?:=true)?|--relocatable-device-code(?:=true)?)(?![\w-])"),
    ),
    ("flag", NVCC_RDC_SHORT, NVCC_LINE),
    ("flag", re.compile(r"(?<![\w-])(?P<v>-G|--device-debug)(?![\w=-])"), NVCC_LINE),
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
            r"--default-stream[= ]per-thread|-maxrregcount|-ccbin|--compiler-bindir|--compiler-options|"
            r"-restrict|--restrict)"
            r"(?![\w-])"
        ),
    ),
    (
        "library",
        re.compile(
            r"(?<![\w-])-l(?P<v>cudadevrt|cudart_static|cudart|cuda|cublasLt|cublas|cufft|curand|cusparse|cusolver|cudnn|nccl|nvrtc|nvToolsExt|nvtx3|nvinfer\w*|nvjpeg|npp\w*|cufile|nvshmem\w*|nvidia-ml|cutensor|optix|nvcuvid|nvidia-encode)\b"
        ),
    ),
]
# nvcc named as the compiler (`NVCC ?= nvcc`, `$(CUDA_PATH)/bin/nvcc`, `nvcc -c ...`), or run
# through the variable configure substitutes (UCC's Makefile.am: `$(NVCC) -c $< ...`)
MAKE = [
    ("compiler", re.compile(r"(?<![\w.-])(?P<v>nvcc)(?![\w.-])|(?P<w>\$[({]NVCC[)}])")),
    # .cu sources a Makefile lists or builds by pattern (`source = Main.cu io.cu`, `%.o: %.cu`,
    # `$(source:.cu=.o)`): they go to nvcc, and a HIP build must compile them with hipcc -x hip
    ("source", re.compile(r"(?<![\w./$(-])(?P<v>[\w./%-]+\.cu)(?=[\s)\\:=]|$)")),
    ("source", re.compile(r"(?P<v>:\.cu=)")),
]
# an architecture composed from a variable (`-arch=sm_$(SM_VERSION)`, XSBench's Makefile)
ARCH_VARIABLE = re.compile(
    r"(?<![\w-])(?P<v>(?:-arch|--gpu-architecture|-code|--gpu-code)[= ](?:sm|compute)_\$[({](?P<var>\w+)[)}])"
)
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
    # torch.version.cuda is None on a ROCm build of PyTorch (guarded uses are dropped below)
    ("torch-version", re.compile(r"\b(?P<v>torch\.version\.cuda)\b(?!\s*=[^=])")),
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


@lru_cache(maxsize=1)
def _arm_patterns() -> dict[str, dict[str, re.Pattern[str]]]:
    return {tool: {k: re.compile(v) for k, v in t.items()} for tool, t in _arm_table().items()}


_MESSAGE = re.compile(r"^\s*message\s*\(", re.I)
CMAKE_BLOCK = re.compile(r"^\s*(?P<cmd>if|elseif|else|endif)\s*\((?P<cond>.*)", re.I)


@dataclass
class _Arm:
    """One arm of a CMake if() chain: its condition, first line, and whether it builds CUDA only."""

    cond: str
    line: int
    switch: bool  # the condition names the project's CUDA switch
    cuda_only: bool  # a switch, or a variable only a CUDA arm sets
    closed_at: int = 0
    not_switch: bool = False  # the condition negates the CUDA switch: the path a HIP build takes
    acts: bool = False  # holds a statement besides message(): it changes the build


@dataclass
class _Chain:
    arms: list[_Arm] = field(default_factory=list)


def _arm(cond: str, line: int, cuda_vars: set[str], pats: dict[str, re.Pattern[str]]) -> _Arm:
    cond = cond.rsplit(")", 1)[0].strip() if ")" in cond else cond.strip()
    negated = bool(pats["negation"].search(cond))
    switch = not negated and bool(pats["cuda_switch"].search(cond))
    derived = not negated and any(re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", cond) for v in cuda_vars)
    return _Arm(cond, line, switch, switch or derived, not_switch=bool(pats["negated_switch"].search(cond)))


def _cmake_arms(text: str, rel: str, facts: list[BuildFact]) -> list[BuildFact]:
    """Drop the facts inside CUDA-only arms; add one `cuda-arm` fact per outermost CUDA switch
    arm whose chain has no HIP arm, at the line that closes it (where the sibling arm goes)."""
    pats = _arm_patterns()["cmake"]
    stack: list[_Chain] = []
    cuda_vars: set[str] = set()
    inside: set[int] = set()  # lines inside a CUDA-only arm (its if() line included)
    arms_out: list[BuildFact] = []

    def in_cuda() -> bool:
        return any(c.arms[-1].cuda_only for c in stack)

    message_depth = 0  # open parentheses of a message() call spread over lines
    for lineno, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        m = CMAKE_BLOCK.match(code)
        cmd = m.group("cmd").lower() if m else ""
        if message_depth or _MESSAGE.match(code):
            message_depth = max(0, message_depth + code.count("(") - code.count(")"))
        elif code.strip() and cmd in ("", "if") and stack:
            stack[-1].arms[-1].acts = True
        if cmd == "if":
            stack.append(_Chain([_arm(m.group("cond"), lineno, cuda_vars, pats)]))
        elif cmd in ("elseif", "else") and stack:
            stack[-1].arms[-1].closed_at = lineno
            cond = m.group("cond") if cmd == "elseif" else ""
            stack[-1].arms.append(
                _arm(cond, lineno, cuda_vars, pats) if cond else _Arm("", lineno, False, False)
            )
        elif cmd == "endif" and stack:
            chain = stack.pop()
            chain.arms[-1].closed_at = lineno
            has_hip = any(pats["hip_switch"].search(a.cond) for a in chain.arms)
            if not has_hip and not in_cuda():
                for a in chain.arms:
                    if a.not_switch and a.acts:  # reported at the test: the line a port widens
                        arms_out.append(
                            BuildFact("not-cuda-arm", " ".join(a.cond.split()), Loc(rel, a.line, 1), "cmake")
                        )
                    if a.switch:
                        arms_out.append(
                            BuildFact(
                                kind="cuda-arm",
                                value=a.cond,
                                loc=Loc(rel, a.closed_at, 1),
                                tool="cmake",
                                related=(RelatedLoc(rel, a.line, 1, "CUDA arm"),),
                            )
                        )
            continue
        if in_cuda():
            inside.add(lineno)
            if a := pats["assignment"].match(code):
                cuda_vars.add(a.group("name"))
    return [f for f in facts if f.loc.line not in inside] + arms_out


# GNU Make's conditionals, and automake's `if NAME` / `if !NAME` (Makefile.am: UCC's `if HAVE_CUDA`)
MAKE_BLOCK = re.compile(
    r"^\s*(?:else\s+)?(?P<cmd>ifeq|ifneq|ifdef|ifndef|if)\s+(?P<cond>.*)|^\s*(?P<end>else|endif)\b"
)


def _make_on(cmd: str, cond: str, pats: dict[str, re.Pattern[str]]) -> bool:
    """The conditional switches the CUDA build on: `ifeq ($(CUDA), true)`, `ifdef USE_CUDA`,
    `ifneq ($(CUDA),)`; not `ifndef`, nor a comparison with an off value."""
    if not pats["switch_name"].search(cond):
        return False
    if cmd == "if":  # automake: `if HAVE_CUDA`, negated as `if !HAVE_CUDA`
        return not cond.strip().startswith("!")
    if cmd in ("ifdef", "ifndef"):
        return cmd == "ifdef"
    m = re.match(r"\(\s*(?P<a>[^,]*),(?P<b>.*)\)\s*$", cond.strip())
    if m is None:
        return False
    a, b = m.group("a"), m.group("b")
    value = b if pats["switch_name"].search(a) else a
    off = bool(pats["off_value"].match(value))
    return off if cmd == "ifneq" else not off


@dataclass
class _MakeArm:
    """An open Make conditional: where it starts, and what its arms have shown so far."""

    line: int
    cond: str
    on: bool  # it switches the CUDA build on
    hip: bool  # it, or a later `else ifeq`, tests a HIP/ROCm/GPU switch
    builds: bool = False  # its CUDA arm assigns or defines a rule
    in_else: bool = False


def _make_arms(text: str, rel: str) -> list[BuildFact]:
    """One `cuda-arm` fact per outermost Make conditional on the CUDA switch that builds something
    and whose chain has no HIP/GPU arm, at its condition (where a port widens the gate), with the
    `endif` (where a twin goes) related."""
    pats = _arm_patterns()["make"]
    stack: list[_MakeArm] = []
    out: list[BuildFact] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        m = MAKE_BLOCK.match(code)
        if m and m.group("cmd") and not code.lstrip().startswith("else"):
            cond = m.group("cond")
            on = _make_on(m.group("cmd"), cond, pats)
            stack.append(_MakeArm(lineno, cond, on, bool(pats["hip_switch"].search(cond))))
        elif m and stack and (m.group("end") == "else" or m.group("cmd")):
            top = stack[-1]
            top.hip = top.hip or bool(m.group("cond") and pats["hip_switch"].search(m.group("cond")))
            top.in_else = True
        elif m and m.group("end") == "endif" and stack:
            top = stack.pop()
            outer = any(t.on and not t.in_else for t in stack)
            if top.on and top.builds and not top.hip and not outer:
                end = RelatedLoc(rel, lineno, 1, "end of the CUDA arm")
                out.append(BuildFact("cuda-arm", top.cond.strip(), Loc(rel, top.line, 1), "make", (end,)))
            if stack and top.builds:
                stack[-1].builds = True
            if stack and stack[-1].in_else and top.hip:
                stack[-1].hip = True  # automake's `else` / `if BUILD_HIP_BACKEND`: a HIP twin
        elif stack and not stack[-1].in_else and pats["builds"].search(code):
            stack[-1].builds = True
    return out


@lru_cache(maxsize=1)
def _hip_build_cmake() -> list[re.Pattern[str]]:
    """The CMake signs of a HIP build (hip_build.toml, shared with the effort model)."""
    text = resources.files("hipscan.data").joinpath("hip_build.toml").read_text("utf-8")
    return [re.compile(v) for v in tomllib.loads(text)["cmake"].values()]


def _cmake_hip_aware(text: str) -> bool:
    """The file already builds for HIP: the HIP language or package, or an option()/if() on a HIP
    switch (ggml's option(GGML_HIPBLAS), mscclpp's elseif(USE_ROCM))."""
    hip_switch = _arm_patterns()["cmake"]["hip_switch"]
    for line in text.splitlines():
        code = line.split("#", 1)[0]
        if any(p.search(code) for p in _hip_build_cmake()):
            return True
        m = CMAKE_BLOCK.match(code) or re.match(r"\s*(?P<cmd>option)\s*\((?P<cond>\s*\w+)", code, re.I)
        if m and m.group("cmd").lower() != "else" and hip_switch.search(m.group("cond")):
            return True
    return False


# What a file that already builds for HIP has done: its CUDA arms have their HIP twin somewhere,
# its switch a HIP sibling, its .cu sources a language for the HIP build.
HIP_AWARE_CMAKE_DROPS = frozenset({"cuda-arm", "not-cuda-arm", "option", "source"})


def _python_blocks(text: str) -> tuple[dict[int, int], dict[int, list[str]]]:
    """For each line inside a `def` body, the line of its outermost def; for each line, the block
    headers (`if ...:`) around it."""
    in_def: dict[int, int] = {}
    headers: dict[int, list[str]] = {}
    stack: list[tuple[int, str, int]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped.strip():
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        headers[lineno] = [h for _, h, _ in stack]
        defs = [n for _, h, n in stack if h.lstrip().startswith(("def ", "async def "))]
        if defs:
            in_def[lineno] = defs[0]
        if stripped.endswith(":"):
            stack.append((indent, stripped, lineno))
    return in_def, headers


def _setup_filter(text: str, facts: list[BuildFact]) -> list[BuildFact]:
    """A CUDA_HOME test inside a helper function does not choose the build; a torch.version.cuda
    use under a test on it (or with the test on its line) is the guarded CUDA path, and one inside
    a helper that runs nvcc is CUDA-only: the port acts where the helper is called (apex's
    check_cuda_torch_binary_vs_bare_metal, mamba's get_cuda_bare_metal_version)."""
    pats = _arm_patterns()["setuptools"]
    guard, nvcc = pats["version_guard"], pats["cuda_helper"]
    lines = text.splitlines()
    in_def, headers = _python_blocks(text)
    helpers = {d for n, d in in_def.items() if nvcc.search(lines[n - 1].split("#", 1)[0])}
    out = []
    for f in facts:
        n = f.loc.line
        if f.kind == "package" and f.value == "CUDA_HOME" and n in in_def:
            continue
        if f.kind == "torch-version" and (
            in_def.get(n) in helpers
            or guard.search(lines[n - 1])
            or any(guard.search(h) for h in headers.get(n, ()))
        ):
            continue
        out.append(f)
    return out


# A macro a build file defines: `-DNAME` in a flag list or command line, or CMake's
# add_compile_definitions(NAME ...) / add_definitions(-DNAME).
_BUILD_DEFINE = re.compile(r"(?<![\w-])-D\s*([A-Za-z_]\w*)|\badd_compile_definitions\s*\(\s*([A-Za-z_]\w*)")


def build_defines(paths: list[Path]) -> frozenset[str]:
    """The macros the project's build files define anywhere: a rule whose fix is such a define
    (HIPBLAS_USE_HIP_HALF) is quiet where the build already has it. The files are only read."""
    names: set[str] = set()
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for m in _BUILD_DEFINE.finditer(text):
            names.add(m.group(1) or m.group(2))
    return frozenset(names)


def scan_build_file(path: Path, rel: str) -> list[BuildFact]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    name = path.name
    if name == "compile_commands.json":
        return _scan_lines(text, rel, "compile_commands", FLAGS)
    if name == "setup.py":
        facts = _setup_filter(text, _scan_lines(text, rel, "setuptools", SETUP + FLAGS))
        if HIP_AWARE_SETUP.search(text):  # the script already chooses a ROCm build itself
            facts = [f for f in facts if f.value not in ("CUDA_HOME", "torch.version.cuda")]
        return facts
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        genex = _arm_patterns()["cmake"]["cuda_only_genex"]
        cmake_text = genex.sub(lambda m: " " * len(m.group()), text)
        facts = _scan_lines(cmake_text, rel, "cmake", CMAKE + FLAGS) + _cuda_genexes(cmake_text, rel)
        facts = _cmake_arms(cmake_text, rel, facts)
        if not any(f.kind == "language" for f in facts):
            # CMAKE_CUDA_* set where no CUDA language is enabled configure nothing (cuda-samples'
            # simpleCUBLAS: `project(... LANGUAGES CXX)`, its flags inert); a module that sets
            # them for the language its caller enables is not told apart from that here
            facts = [f for f in facts if f.kind != "language-variable"]
        if _cmake_hip_aware(cmake_text):
            facts = [f for f in facts if f.kind not in HIP_AWARE_CMAKE_DROPS]
        return facts
    facts = _scan_lines(text, rel, "make", FLAGS + MAKE) + _make_arms(text, rel)
    if _nvcc_only_make(text):
        # hipcc compiles .cu files as HIP: where nvcc builds everything, switching the compiler
        # (reported where nvcc is named) is the port, and the .cu lists and rules stay
        facts = [f for f in facts if f.kind != "source"]
        # ... and its relocatable-code options count on the nvcc commands that do not name it
        # (`$(CC) $(CFLAGS) -dc $< -o $@` with `CC = nvcc`, HeCBench's fresnel) and in the
        # variables those commands read. Not -G there: hipcc takes it with a warning, and
        # XSBench's and RSBench's ports kept their `CFLAGS += -g -G` debug flags
        seen = {(f.loc.line, f.loc.column, f.value) for f in facts}
        lines = _nvcc_command_lines(text)
        facts += [
            f
            for f in _scan_lines(text, rel, "make", [("flag", NVCC_RDC_SHORT)])
            if f.loc.line in lines and (f.loc.line, f.loc.column, f.value) not in seen
        ]
    return facts + _variable_architectures(text, rel, "make")


_MAKE_ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)\s*(?:\?|:|::|\+)?=\s*(.*)$")
_MAKE_VAR = re.compile(r"^\$[({]([A-Za-z_]\w*)[)}]$")
_COMPILER = re.compile(
    r"(^|/)(nvcc|hipcc|g\+\+|gcc|c\+\+|cc|clang\+\+|clang|icpx|icx|icpc|mpic\+\+|mpicxx|mpicc|CC)$"
)
_HOST_SOURCE = re.compile(r"[\w./%-]+\.(c|cc|cpp|cxx|C)(?![\w.])")


def _make_lines(text: str) -> list[tuple[list[int], str]]:
    """A Makefile's logical lines (a `\\` continuation joined) with the line numbers each spans."""
    logical: list[tuple[list[int], str]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if logical and logical[-1][1].endswith("\\"):
            logical[-1] = (logical[-1][0] + [lineno], logical[-1][1][:-1] + " " + line)
        else:
            logical.append(([lineno], line))
    return logical


def _make_assignments(logical: list[tuple[list[int], str]]) -> dict[str, tuple[list[int], str]]:
    """Each variable's last assigned value, and the lines of all its assignments."""
    assigns: dict[str, tuple[list[int], str]] = {}
    for numbers, line in logical:
        m = _MAKE_ASSIGN.match(line.split("#", 1)[0])
        if m and not line.startswith("\t"):
            previous = assigns.get(m.group(1), ([], ""))[0]
            assigns[m.group(1)] = (previous + numbers, m.group(2).strip())
    return assigns


def _recipe_program(line: str, assigns: dict[str, tuple[list[int], str]]) -> str:
    """The program a recipe line runs, through the variables that name it (`$(CC)` with
    `CC = nvcc`); "" for a line that is no recipe command."""
    words = line.split("#", 1)[0].strip().lstrip("@-").split()
    if not line.startswith("\t") or not words:
        return ""
    word, seen = words[0], 0
    while (m := _MAKE_VAR.match(word)) and seen < 4:
        word, seen = (assigns.get(m.group(1), ([], ""))[1].split() or [""])[0], seen + 1
    return word


def _nvcc_only_make(text: str) -> bool:
    """A plain Makefile whose every compile command is nvcc (named, or through a variable set to
    it: `CC = nvcc` / `$(CC) ...`) and that lists no host C/C++ source: a HIP build of it is the
    same Makefile with hipcc, which takes the .cu files as they are (HeCBench's, XSBench's).
    Read line by line like the rest of this module: make has no AST to ask."""
    if "_SOURCES" in text or re.search(r"^\s*-?s?include\s", text, re.M):
        return False  # automake (libtool compiles the rest), or rules in another makefile
    logical = _make_lines(text)
    assigns = _make_assignments(logical)
    compilers: set[str] = set()
    for _numbers, line in logical:
        if not line.startswith("\t"):
            if _HOST_SOURCE.search(line.split("#", 1)[0]):
                return False
            continue
        word = _recipe_program(line, assigns)
        if _COMPILER.search(word):
            compilers.add(word.rsplit("/", 1)[-1])
    return compilers == {"nvcc"}


def _nvcc_command_lines(text: str) -> set[int]:
    """Lines of the recipe commands whose compiler is nvcc (named, or a variable set to it) and
    of the assignments to the variables those commands expand; a continued line counts whole."""
    logical = _make_lines(text)
    assigns = _make_assignments(logical)
    out: set[int] = set()
    for numbers, line in logical:
        if _recipe_program(line, assigns).rsplit("/", 1)[-1] != "nvcc":
            continue
        out.update(numbers)
        for name in re.findall(r"\$[({]([A-Za-z_]\w*)[)}]", line):
            out.update(assigns.get(name, ([], ""))[0])
    return out


def _cuda_genexes(text: str, rel: str) -> list[BuildFact]:
    """One `cuda-genex` fact per run of consecutive lines holding `$<$<BOOL:${CUDA switch}>:...>`:
    what only a CUDA build compiles, where a port widens the switch (the run is one edit)."""
    pats = _arm_patterns()["cmake"]
    out: list[BuildFact] = []
    last = -2
    for lineno, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0]
        names = [m.group("name") for m in pats["cuda_genex"].finditer(code)]
        names = [n for n in names if pats["cuda_switch"].fullmatch(n) and not pats["hip_switch"].search(n)]
        if not names:
            continue
        if lineno != last + 1:
            out.append(BuildFact("cuda-genex", names[0], Loc(rel, lineno, code.index(names[0]) + 1), "cmake"))
        last = lineno
    return out


def _variable_architectures(text: str, rel: str, tool: str) -> list[BuildFact]:
    """`-arch=sm_$(SM_VERSION)`: an NVIDIA architecture whose number a variable holds, with the
    line that sets the variable (where a port drops or replaces it) as a related place."""
    lines = text.splitlines()
    out = []
    for lineno, line in enumerate(lines, 1):
        code = line.split("#", 1)[0]
        for m in ARCH_VARIABLE.finditer(code):
            var = m.group("var")
            setter = re.compile(rf"^\s*(?:export\s+)?{re.escape(var)}\s*(?:[:?+]|::)?=")
            where = next((n for n, t in enumerate(lines, 1) if setter.match(t)), 0)
            related = (RelatedLoc(rel, where, 1, "value set here"),) if where else ()
            out.append(
                BuildFact("architecture", m.group("v"), Loc(rel, lineno, m.start("v") + 1), tool, related)
            )
    return out


# -- compile_commands.json: per-file flags for the parse (filtered: see flags.py) ------------------
from hipscan.frontend.flags import load_compile_commands  # noqa: E402,F401 - re-exported
