"""Walk one translation unit's AST (project files only) and turn it into facts."""

from __future__ import annotations

import bisect
import ctypes
import dataclasses
import os
import re
from collections.abc import Callable
from pathlib import Path

import clang.cindex as ci

from hipscan.facts import (
    STRING_MARK,
    AsmFact,
    AssignFact,
    BranchFact,
    CallFact,
    DeclFact,
    DiagnosticFact,
    DirectiveFact,
    FileFacts,
    FunctionFact,
    FunctionRefFact,
    IdentFact,
    IncludeFact,
    LaunchFact,
    LiteralFact,
    Loc,
    MemberRefFact,
    OutValueFact,
    RelatedLoc,
    StringFact,
)
from hipscan.frontend import outvalues, smnumber
from hipscan.frontend import shared as shared_sizes
from hipscan.frontend.clang import (
    COMPARE_OPS,
    CONFIG_FUNCTIONS,
    FUNCTION_KINDS,
    VALUE_WRAPPERS,
    binary_operator,
    expansion_offset,
    file_location_ptr,
    file_name,
    first_overload,
    increments,
    same_node,
)
from hipscan.frontend.tokens import (
    CONDITIONALS,
    DEVICE_PASS_MACROS,
    IDENT,
    KEYWORD,
    LITERAL,
    PUNCT,
    FileTokens,
    tokenize,
)
from hipscan.frontend.uniform import block_step, guards_barrier, lockstep_fold, selects_uniform
from hipscan.frontend.warpflow import Flow
from hipscan.platforms import hip_build

K = ci.CursorKind
_lib = ci.conf.lib
_lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
_lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
_lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
_lib.clang_EvalResult_getKind.restype = ctypes.c_int
_lib.clang_EvalResult_getAsUnsigned.argtypes = [ctypes.c_void_p]
_lib.clang_EvalResult_getAsUnsigned.restype = ctypes.c_ulonglong
_lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]

DECLARING_KINDS = frozenset(
    {
        K.FUNCTION_DECL,
        K.FUNCTION_TEMPLATE,
        K.VAR_DECL,
        K.TYPEDEF_DECL,
        K.TYPE_ALIAS_DECL,
        K.STRUCT_DECL,
        K.CLASS_DECL,
        K.UNION_DECL,
        K.ENUM_DECL,
        K.CLASS_TEMPLATE,
        K.MACRO_DEFINITION,
    }
)
PREPROCESSING_KINDS = frozenset({500, 501, 502, 503})  # directive, macro definition/expansion, include
_lib.clang_Location_isInSystemHeader.argtypes = [ci.SourceLocation]
_lib.clang_Location_isInSystemHeader.restype = ctypes.c_int
_UNEXPOSED_EXPR = K.UNEXPOSED_EXPR.value
_MACRO_DEFINITION = K.MACRO_DEFINITION.value
_COMPOUND_STMT = K.COMPOUND_STMT.value
# a directive other than #pragma: blanking a body holding one would change the header's branches
_DIRECTIVE = re.compile(rb"^[ \t]*#", re.M)
_CALL_EXPR = K.CALL_EXPR.value
_ENUM_CONSTANT_DECL = K.ENUM_CONSTANT_DECL.value
_ASM_STMT = K.ASM_STMT.value
_INTEGER_LITERAL = K.INTEGER_LITERAL.value
_MEMBER_REF_EXPR = K.MEMBER_REF_EXPR.value
_LAMBDA_EXPR = K.LAMBDA_EXPR.value
_DECL_REF_EXPR = K.DECL_REF_EXPR.value
# names of the CUDA runtime, driver and library APIs (not language builtins such as warpSize):
# what a vendor layer's alias macro may stand for
_API_NAME = re.compile(r"^(cu|CU|nvrtc|NVRTC|nccl|NCCL|nvtx|nvml)[A-Za-z0-9]")
# the prefixes a vendor layer pastes onto API names (`cuda##x`, `cublas##x`, `CU##x`)
_PASTED_PREFIX = re.compile(r"cuda|cu|CU|CUDA|cublas|cusparse|cusolver|cufft|curand|nvrtc")
_ARRAY_SUBSCRIPT_EXPR = K.ARRAY_SUBSCRIPT_EXPR.value
_TEMPLATE_REF = K.TEMPLATE_REF.value
_INIT_LIST_EXPR = K.INIT_LIST_EXPR.value
_COMPOUND_ASSIGN = K.COMPOUND_ASSIGNMENT_OPERATOR.value
_BINARY = K.BINARY_OPERATOR.value
_UNARY = K.UNARY_OPERATOR.value
_WRAPPER_EXPRS = frozenset({K.UNEXPOSED_EXPR.value, K.PAREN_EXPR.value})
_ASM_KEYWORDS = frozenset({"asm", "__asm__", "__asm"})
_CXX_UNARY_EXPR = K.CXX_UNARY_EXPR.value
# CUDA's vector types (and cuComplex, a float2/double2): aggregates in CUDA, classes with
# constructors in HIP (HIP_vector_type)
_VECTOR_TYPE = re.compile(r"^(?:struct )?(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]$")
BINOP_KINDS = frozenset({K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR})
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
CALLABLE_KINDS = frozenset(
    {
        K.FUNCTION_DECL,
        K.CXX_METHOD,
        K.FUNCTION_TEMPLATE,
        K.CONVERSION_FUNCTION,
        K.VAR_DECL,
        K.FIELD_DECL,
        K.PARM_DECL,
    }
)  # fmt: skip  (the last three: function pointers)
# calls whose argument types are recorded (as for method calls): runtime APIs that take a kernel,
# which CUDA accepts as a function and HIP only as `const void *`
# calls whose argument 0 is a lane mask, and calls whose result is one (mask typedefs)
_SYNC = (
    "__shfl_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
    "__shfl_xor_sync",
    "__any_sync",
    "__all_sync",
    "__uni_sync",
    "__match_any_sync",
    "__match_all_sync",
    "__syncwarp",
)
MASK_ARGUMENT_CALLEES = frozenset((*_SYNC, "__ballot_sync", "__popc", "__ffs", "__clz", "__brev", "__fns"))
# the intrinsics whose first argument is the lane mask
MASK_FIRST_CALLEES = frozenset((*_SYNC, "__ballot_sync"))
# a short header function calling one of them keeps its body in every parse (not blanked)
_SYNC_CALL = re.compile(rb"\b(?:" + b"|".join(n.encode() for n in sorted(MASK_FIRST_CALLEES)) + rb")\s*\(")
_WRAPPER_BODY = 600
MASK_RESULT_CALLEES = frozenset(
    ("__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__lanemask_lt")
)
_MASK_CANONICAL = (ci.TypeKind.UINT, ci.TypeKind.INT)
_WIDE_SPELLING = re.compile(r"64|long|size_t|float|double|\*")
TYPED_ARGUMENT_CALLEES = frozenset(
    {
        "cudaFuncSetAttribute",
        "cudaFuncSetCacheConfig",
        "cudaFuncSetSharedMemConfig",
        "cudaFuncGetAttributes",
        "cudaLaunchKernel",
        "atomicAdd",  # which overload: HIP has none for __half, __half2 or the bf16 types
        "sincos",  # HIP's device sincos/sincospi take double only (no float overload)
        "sincospi",
    }
)
# calls whose overload depends on the argument's type before any conversion: HIP declares
# `__ffs`/`__ffsll` for the signed and the unsigned type each, CUDA for the signed one only, so an
# argument of another integer type (`uint64_t` is `unsigned long`) converts to either: ambiguous
WRITTEN_ARGUMENT_CALLEES = frozenset({"__ffs", "__ffsll"})
DECL_KINDS = {
    K.VAR_DECL: "var",
    K.FIELD_DECL: "field",
    K.PARM_DECL: "param",
    K.TYPEDEF_DECL: "typedef",
    K.TYPE_ALIAS_DECL: "typedef",
    K.TEMPLATE_NON_TYPE_PARAMETER: "template-param",  # `int WARP_SIZE = 32`: its default is the init
}
_FUNCTION_IDS = frozenset(k.value for k in FUNCTION_KINDS)
_DECL_IDS = frozenset(k.value for k in DECL_KINDS)
_BINOP_IDS = frozenset(k.value for k in BINOP_KINDS)
STORAGE_ATTRS = {
    K.CUDASHARED_ATTR: "shared",
    K.CUDACONSTANT_ATTR: "constant",
    K.CUDADEVICE_ATTR: "device",
}
# Integer values the warp-size analysis looks at; anything else in device code is irrelevant.
WARP_VALUES = frozenset({5, 6, 15, 16, 24, 31, 32, 63, 64, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF})
# the name a call's text starts with: `SHFL_DOWN(` (not `a.f(`, `ns::f(`, `f<T>(`)
_CALL_HEAD = re.compile(r"\s*([A-Za-z_]\w*)\s*\(")
PTX_REGISTER = re.compile(r"%%?([a-z_][a-z0-9_.]*)")
PTX_SPECIAL = frozenset(
    {
        "laneid",
        "warpid",
        "nwarpid",
        "smid",
        "nsmid",
        "gridid",
        "clock",
        "clock64",
        "globaltimer",
        "globaltimer_lo",
        "globaltimer_hi",
        "lanemask_eq",
        "lanemask_le",
        "lanemask_lt",
        "lanemask_ge",
        "lanemask_gt",
        "dynamic_smem_size",
        "total_smem_size",
        "cluster_ctarank",
        "cluster_nctarank",
        "clusterid",
        "nclusterid",
        "is_explicit_cluster",
        "envreg",
        "pm0",
    }
)
NUMBER = re.compile(rb"[0-9][0-9a-zA-Z_']*|[A-Za-z_][A-Za-z0-9_]*")


_gathered: list[ci.Cursor] = []


def _gather(child: ci.Cursor, _parent: ci.Cursor, _data: object) -> int:
    _gathered.append(child)
    return 1  # CXChildVisit_Continue


_gather_cb = ci.callbacks["cursor_visit"](_gather)


def children(cursor: ci.Cursor) -> list[ci.Cursor]:
    """A cursor's children: ``Cursor.get_children`` without its per-child null-cursor assertion
    (a libclang call per node, about a third of the walk's time)."""
    global _gathered
    outer, _gathered = _gathered, []
    _lib.clang_visitChildren(cursor, _gather_cb, None)
    found, _gathered = _gathered, outer
    tu = cursor._tu
    for child in found:
        child._tu = tu
    return found


_lib.clang_getSpecializedCursorTemplate.restype = ci.Cursor
_lib.clang_getSpecializedCursorTemplate.argtypes = [ci.Cursor]
_FUNCTION_DECL = K.FUNCTION_DECL.value


def _instantiation(c: ci.Cursor) -> bool:
    """An explicit instantiation (`template __global__ void k<float>(...);`): libclang shows it as
    a function at its template's own location, with the template's body instantiated."""
    template = _lib.clang_getSpecializedCursorTemplate(c)
    if template is None or template.kind != K.FUNCTION_TEMPLATE:
        return False
    return template.location == c.location


def _shifted_one(value: int, literal: ci.Cursor, parents: list[ci.Cursor]) -> bool:
    """`1 << lane`: a one-lane bit, recorded so a 32-bit lane bit can be told (every other 1 is not)."""
    if value != 1 or not parents:
        return False
    p = parents[-1]
    if p.kind != K.BINARY_OPERATOR or binary_operator(p) != "<<":
        return False
    first = next(iter(children(p)), None)
    return first is not None and first.extent.start.offset == literal.extent.start.offset


def callee_target(kids: list[ci.Cursor]) -> ci.Cursor | None:
    """The cursor naming a call's callee (its first child, past implicit conversions). For a
    call in a template whose arguments have dependent types clang keeps the callee unresolved:
    an unnamed reference holding the overload set, which is returned instead (after namespace
    references, before explicit template arguments: `layer<N>(w, act)`)."""
    target = kids[0] if kids else None
    while target is not None and target.kind == K.UNEXPOSED_EXPR:
        inner = children(target)
        target = inner[0] if inner else None
    if target is not None and target.kind == K.DECL_REF_EXPR and not target.spelling:
        inner = children(target)  # [namespace refs...,] the overload set[, template arguments...]
        overloads = next((k for k in inner if k.kind == K.OVERLOADED_DECL_REF), None)
        if overloads is not None:
            return overloads
    return target


def _typedef_of(t: ci.Type | None, decl: ci.Cursor | None) -> ci.Cursor | None:
    """The typedef a type is spelled with, also where clang lost the type (an unknown underlying
    name from a header that was not found): then from the declaration's written type."""
    if t is not None and t.kind == ci.TypeKind.ELABORATED:
        t = t.get_named_type()
    if t is not None and t.kind == ci.TypeKind.TYPEDEF:
        d = t.get_declaration()
        return d if d.kind in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL) else None
    if decl is None or decl.kind not in (K.PARM_DECL, K.VAR_DECL, K.FIELD_DECL):
        return None
    ref = next((k for k in children(decl) if k.kind == K.TYPE_REF), None)
    d = ref.referenced if ref is not None else None
    return d if d is not None and d.kind in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL) else None


def callee_name(call: ci.Cursor) -> str:
    """The called name, also for a dependent call in a template (see callee_target)."""
    if call.spelling:
        return call.spelling
    target = callee_target(children(call))
    return target.spelling if target is not None else ""


def evaluate_int(cursor: ci.Cursor) -> int | None:
    res = _lib.clang_Cursor_Evaluate(cursor)
    if not res:
        return None
    try:
        if _lib.clang_EvalResult_getKind(res) != 1:  # CXEval_Int
            return None
        return int(_lib.clang_EvalResult_getAsUnsigned(res))
    finally:
        _lib.clang_EvalResult_dispose(res)


# An opcode only PTX spells: a typed or qualified form (`mov.u32`, `ld.global.cg.v4.u32`) or one
# of its few bare ones; x86 opcodes carry no dots.
PTX_OPCODE = re.compile(r"[a-z][a-z0-9_]*\.[a-z0-9_.]+|trap|exit|brkpt|pmevent|nanosleep")


def parse_asm(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """PTX (or x86) opcodes and special registers named in an asm string."""
    instructions: list[str] = []
    body = re.sub(r"//[^\n]*", "", text)
    for stmt in re.split(r"[;\n{}]", body):
        stmt = stmt.strip()
        while stmt.startswith("@"):
            stmt = stmt.split(None, 1)[1] if " " in stmt else ""
        if not stmt or stmt.endswith(":") or stmt.startswith("."):
            if stmt.startswith(".reg") or stmt.startswith(".pragma"):
                instructions.append(stmt.split()[0])
            continue
        op = stmt.split(None, 1)[0].rstrip(",")
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.:]*", op):
            instructions.append(op)
    registers = []
    for m in PTX_REGISTER.finditer(text):
        name = m.group(1).split(".")[0]
        if name in PTX_SPECIAL and f"%{name}" not in registers:
            registers.append(f"%{name}")
    return tuple(instructions), tuple(registers)


def unquote_c(literal: str) -> str:
    """The contents of a C string literal token (prefixes and escapes handled loosely)."""
    m = re.match(r'^(?:u8|u|U|L)?R"([^(]*)\((.*)\)\1"$', literal, re.S)
    if m:
        return m.group(2)
    m = re.match(r'^(?:u8|u|U|L)?"(.*)"$', literal, re.S)
    if not m:
        return ""
    body = m.group(1)
    return body.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")


class Extractor:
    """Collects facts for the project files of one TU; one instance per parse."""

    def __init__(
        self,
        tu: ci.TranslationUnit,
        facts: FileFacts,
        files: dict[str, tuple[str, FileTokens]],
        watched: frozenset[str],
        include_map: dict[tuple[str, int], str],
        project: frozenset[str] = frozenset(),
        root: str = "",
        c_linkage: dict[tuple[str, int], tuple[str, ...]] | None = None,
        header_index: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        self.tu = tu
        # (file, line) of each #include inside `extern "C" { }` -> the toolkit headers it reaches
        self.c_linkage = c_linkage or {}
        self.facts = facts
        self.files = files  # absolute name -> (relative path, tokens)
        self.watched = watched
        # the project's own functions that hand a parameter on as a warp-sync intrinsic's lane
        # mask (`T shfl_xor_sync(unsigned mask, T v, int m) { return __shfl_xor_sync(mask, ...); }`):
        # name -> (that parameter's position, the intrinsic)
        self.mask_wrappers: dict[str, tuple[int, str] | None] = {}
        # callees whose argument types the rules read, named by pattern ("(re:^magma_[cz]")
        self._typed_callees = [re.compile(w[4:]) for w in watched if w.startswith("(re:")]
        self._typed_by_pattern: dict[str, bool] = {}
        self.include_map = include_map  # (abs includer, line) -> relative included path or ""
        self.project = project
        # the project's file names (the scan's basename index; from ``project`` on demand without it)
        self._file_names: dict[str, tuple[str, ...]] | set[str] | None = header_index or None
        self.spans: dict[str, list[tuple[int, int, str, str]]] = {}  # rel -> (start, end, space, name)
        self._names: dict[int, str] = {0: ""}  # CXFile pointer -> name, converted once
        self._macros: dict[str, ci.Cursor] | None = None  # project macro definitions, on demand
        self._aliases: dict[str, str | None] = {}  # project macro -> the CUDA API name it stands for
        # project macro -> (prefix it pastes, index of the argument pasted) or None
        self._pastes: dict[str, tuple[str, int] | None] = {}
        self._written: dict[int, frozenset[int]] = {}  # function hash -> variables it writes
        self._body_calls: dict[tuple[str, int, str], int] = {}  # calls seen per macro expansion
        # project headers this TU does not carry, tokenized on demand for the macro bodies they
        # define (CUDA_SET_SHARED_MEMORY_LIMIT in ggml's common.cuh, used in softmax.cu)
        self._other_files: dict[str, tuple[str, FileTokens] | None] = {}
        self.root = root
        # watched qualified names ("thrust::cuda::par"), by their first component: the token
        # pass finds them where the namespace's headers are missing and the AST has nothing
        self.qualified: dict[str, list[tuple[str, ...]]] = {}
        for name in watched:
            if "::" in name:
                parts = tuple(name.split("::"))
                self.qualified.setdefault(parts[0], []).append(parts)
        # string-literal patterns rules ask about ride in `watched` marked by a leading quote (no
        # identifier starts with one): the token pass records the literals that match
        patterns = sorted(w[1:] for w in watched if w.startswith(STRING_MARK))
        self.strings = re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None
        self.flow = Flow(self)  # named constants and their uses (warp-width analysis)

    # -- helpers ---------------------------------------------------------------------------
    def _name(self, file_ptr: int) -> str:
        name = self._names.get(file_ptr)
        if name is None:
            name = self._names[file_ptr] = file_name(file_ptr)
        return name

    def loc(self, cursor: ci.Cursor) -> tuple[Loc, str, int] | None:
        ptr, line, col, off = file_location_ptr(cursor.location)
        name = self._name(ptr)
        entry = self.files.get(name)
        if entry is None:
            return None
        return Loc(entry[0], line, col), name, off

    def located(self, cursor: ci.Cursor) -> tuple[Loc, bytes, int] | None:
        """The cursor's location in a project file, with that file's bytes and the offset."""
        where = self.loc(cursor)
        if where is None:
            return None
        loc, absname, off = where
        return loc, self.files[absname][1].data, off

    @staticmethod
    def expansion_range(cursor: ci.Cursor) -> tuple[int, int, int, int]:
        """(file, start, file, end) of a cursor's expansion range: file pointers and offsets."""
        ext = cursor.extent
        return (*expansion_offset(ext.start), *expansion_offset(ext.end))

    def text(self, cursor: ci.Cursor, limit: int = 400, within: tuple | None = None) -> str:
        """The cursor's source text; "" for an argument whose expansion is all of ``within``, the
        call's, and that is written inside a macro's body (`SHFL(v, 0)` for the mask of its
        `__shfl_sync`). An argument of a call written inside a macro's argument
        (`CHECK(cublasCaxpy(h, n, (float2 *)a, ...))`) is read where it is written."""
        f1, so, f2, eo = span = self.expansion_range(cursor)
        if span == within and f1:
            ext = cursor.extent
            g1, _, _, so = file_location_ptr(ext.start)
            g2, _, _, eo = file_location_ptr(ext.end)
            # a macro's argument is written after the macro's name, in the invocation; its body
            # was written before, at the #define
            if g1 != f1 or so <= span[1]:
                return ""
            f2 = g2
        if not f1 or f1 != f2 or eo <= so or eo - so > limit:
            return ""
        entry = self.files.get(self._name(f1))
        if entry is None:
            return ""
        return entry[1].text(so, eo)

    # -- walk -------------------------------------------------------------------------------
    def run(self, tokens: bool = True) -> None:
        in_system = _lib.clang_Location_isInSystemHeader
        for child in children(self.tu.cursor):
            if child._kind_id in PREPROCESSING_KINDS:
                continue
            loc = child.location
            if in_system(loc):
                continue  # the shim, the PCH and system headers: never project code
            f = loc.file
            if f is None:
                continue
            if f.name not in self.files:
                if os.path.normpath(f.name) in self.project:
                    self.declare(child)  # a header whose facts another TU carries
                continue
            self.declare(child)
            self.visit(child, "file", "", [])
        self.device_refs_from_diagnostics()
        self.errors_from_diagnostics()
        if tokens:
            self.tokens_pass()

    def device_refs_from_diagnostics(self) -> None:
        """clang's own verdict on device functions referenced from host code, the check hipcc
        makes (a template argument naming one is fine; the reference itself is dropped from the
        AST): "reference to __device__ function 'f' in __host__ function"."""
        seen: set[tuple[str, int, int]] = set()
        for d in self.tu.diagnostics:
            m = _DEVICE_REF_DIAG.search(d.spelling)
            if m is None or d.location.file is None:
                continue
            entry = self.files.get(d.location.file.name)
            if entry is None:
                continue
            loc = Loc(entry[0], d.location.line, d.location.column)
            if (loc.path, loc.line, loc.column) in seen:
                continue
            seen.add((loc.path, loc.line, loc.column))
            fname = self._enclosing(entry[0], d.location.offset)
            self.facts.function_refs.append(
                FunctionRefFact(name=m.group(1), space="device", loc=loc, context="host", function=fname)
            )

    def errors_from_diagnostics(self) -> None:
        """clang's errors on the project files this translation unit carries, with their notes
        (the rule files say which of them are code nvcc accepts and hipcc rejects)."""
        seen: set[tuple[str, int, int, str]] = set()
        unmatched = self._unmatched_specializations()
        for d in self.tu.diagnostics:
            if d.severity < ci.Diagnostic.Error or d.location.file is None:
                continue
            entry = self.files.get(d.location.file.name)
            if entry is None:
                continue
            offset = d.location.offset
            if any(
                start <= offset < end and not d.spelling.startswith(_UNMATCHED_SPECIALIZATION)
                for start, end in unmatched.get(entry[0], ())
            ):
                continue  # read as host code only because the specialization lost its `__device__`
            key = (entry[0], d.location.line, d.location.column, d.spelling)
            if key in seen or len(seen) >= MAX_ERROR_FACTS:
                continue
            seen.add(key)
            at, related, origin = Loc(*key[:3]), (), "clang"
            callee = self._project_device_callee(d)
            if callee is not None:  # the project's own function: its declaration is the edit
                at, related, origin = callee, (RelatedLoc.at(at, "a host call"),), "device-callee"
            self.facts.clang_errors.append(
                DiagnosticFact(
                    text=d.spelling,
                    notes=tuple(n.spelling for n in d.children)[:8],
                    loc=at,
                    function=self._enclosing(entry[0], d.location.offset),
                    origin=origin,
                    related=related,
                )
            )

    def _unmatched_specializations(self) -> dict[str, list[tuple[int, int]]]:
        """Per file, the spans of explicit specializations clang matched to no template because
        they do not repeat its execution space (`template <> void f<1>(...)` of a `__device__`
        template): nvcc lets them inherit it, so their bodies are device code there."""
        out: dict[str, list[tuple[int, int]]] = {}
        for d in self.tu.diagnostics:
            if not d.spelling.startswith(_UNMATCHED_SPECIALIZATION) or d.location.file is None:
                continue
            if not any("target attributes do not match" in n.spelling for n in d.children):
                continue
            entry = self.files.get(d.location.file.name)
            if entry is None:
                continue
            span = self._enclosing_span(entry[0], d.location.offset)
            if span is not None:
                out.setdefault(entry[0], []).append(span[:2])
        return out

    def _project_device_callee(self, d) -> Loc | None:
        """Where a `__device__` function the project declares is, when ``d`` rejects a host call
        of it (nvcc's --expt-relaxed-constexpr lets host code call a `__device__ constexpr`
        helper; clang does not): None for a library's function (`rsqrtf`), whose caller changes."""
        for n in d.children:
            if "call to __device__ function from __host__ function" not in n.spelling:
                continue
            where = n.location
            if where.file is None:
                continue
            name = os.path.normpath(where.file.name)
            entry = self.files.get(where.file.name)
            if entry is None and name not in self.project:
                continue  # a library's function: its callers change
            rel = entry[0] if entry is not None else relpath(Path(name), Path(self.root))
            # the declaration's first line (`__device__ static constexpr int` above the name),
            # where the attribute the port changes is written
            try:
                start = ci.Cursor.from_location(self.tu, where).extent.start
            except (AttributeError, ValueError):  # no declaration at the note (a null cursor)
                start = None
            if start is not None and start.file is not None and start.file.name == where.file.name:
                return Loc(rel, start.line, start.column)
            return Loc(rel, where.line, where.column)
        return None

    def dependent_template(self, c: ci.Cursor, left: ci.Cursor, fname: str) -> None:
        """``Dep<T>::f<N>(x)`` in a template, `f` a member function template of `Dep`'s class
        template: without ``Dep<T>::template f`` clang parses ``f < N > (x)`` as comparisons and
        rejects them once the template is instantiated, where nvcc accepts the call. The scan
        reads template bodies uninstantiated, so the check is made here, in clang's words."""
        scope = children(left)
        if not scope or scope[0]._kind_id != _TEMPLATE_REF or binary_operator(c) != "<":
            return
        template = scope[0].referenced
        if template is None or template.kind != K.CLASS_TEMPLATE:
            return
        words = [t.spelling for t in left.get_tokens()]
        if len(words) < 2 or words[-2] != "::":
            return
        name = words[-1]
        member = next(
            (m for m in children(template) if m.kind == K.FUNCTION_TEMPLATE and m.spelling == name), None
        )
        where = self.loc(left)
        if member is None or where is None:
            return
        self.facts.clang_errors.append(
            DiagnosticFact(
                text=f"missing 'template' keyword prior to dependent template name '{name}'",
                notes=(f"'{name}' is a member function template of '{template.spelling}'",),
                loc=where[0],
                function=fname,
                origin="instantiation",
            )
        )

    def designated_vector_init(self, c: ci.Cursor, fname: str) -> None:
        """``float2 v = {.x = a, .y = b}`` (or a ``cuDoubleComplex`` returned as ``{.x = re, .y =
        im}``): CUDA's vector types are aggregates, HIP's are classes with constructors, so hipcc
        finds "no matching constructor". The parse against CUDA's types accepts it; the tokens
        after the brace tell a designated initializer from a positional one."""
        canonical = c.type.get_canonical().spelling
        if not _VECTOR_TYPE.match(canonical):
            return
        at = self.located(c)
        if at is None:
            return
        loc, data, off = at
        if data[off : off + 1] != b"{" or not data[off + 1 : off + 64].lstrip().startswith(b"."):
            return
        self.facts.clang_errors.append(
            DiagnosticFact(
                text=f"no matching constructor for initialization of '{c.type.spelling}'",
                notes=(
                    f"'{canonical}' is HIP_vector_type<...>: a class with constructors, not an aggregate",
                ),
                loc=loc,
                function=fname,
                origin="hip-types",
            )
        )

    def dependent_type_in_sizeof(self, c: ci.Cursor, fname: str) -> None:
        """``sizeof(T::param_type)`` in a template, where the project itself writes ``typename
        T::param_type`` elsewhere in the file: clang parses the operand as a value and rejects it
        once the template is instantiated ("missing 'typename'"), nvcc accepts it. The scan reads
        template bodies uninstantiated, so the check is made here, in clang's words."""
        kids = children(c)
        if len(kids) != 1 or kids[0].kind != K.PAREN_EXPR:
            return
        inner = children(kids[0])
        if len(inner) != 1 or inner[0]._kind_id != _DECL_REF_EXPR or inner[0].spelling:
            return
        scope = children(inner[0])
        if len(scope) != 1 or scope[0].kind != K.TYPE_REF:
            return
        param = scope[0].referenced
        if param is None or param.kind != K.TEMPLATE_TYPE_PARAMETER:
            return
        words = [t.spelling for t in inner[0].get_tokens()]
        if len(words) != 3 or words[1] != "::":
            return
        at = self.located(inner[0])
        if at is None:
            return
        loc, data, _ = at
        qualifier, member = (re.escape(w.encode()) for w in (words[0], words[2]))
        if not re.search(rb"\btypename\s+" + qualifier + rb"\s*::\s*" + member + rb"\b", data):
            return
        self.facts.clang_errors.append(
            DiagnosticFact(
                text=f"missing 'typename' prior to dependent type name '{words[0]}::{words[2]}'",
                notes=(f"the file writes 'typename {words[0]}::{words[2]}' elsewhere: a type",),
                loc=loc,
                function=fname,
                origin="instantiation",
            )
        )

    def _enclosing(self, rel: str, offset: int) -> str:
        """The function whose span holds ``offset``."""
        span = self._enclosing_span(rel, offset)
        return span[3] if span is not None else ""

    def _enclosing_span(self, rel: str, offset: int) -> tuple[int, int, str, str] | None:
        """The innermost recorded span holding ``offset``: spans are recorded as the walk goes, so
        a lambda's comes after its function's."""
        best = None
        for span in self.spans.get(rel, ()):
            if span[0] <= offset < span[1]:
                best = span
        return best

    def declare(self, c: ci.Cursor, depth: int = 0) -> None:
        """Record the names a project file declares at namespace scope (and enumerators)."""
        kind = c.kind
        if kind in DECLARING_KINDS and c.spelling:
            self.facts.declared.add(c.spelling)
        if kind == K.VAR_DECL:
            self.flow.declare(c)
        if kind in (K.ENUM_DECL, K.NAMESPACE) or (kind == K.LINKAGE_SPEC and depth < 3):
            for child in children(c):
                if child.kind == K.ENUM_CONSTANT_DECL:
                    self.facts.declared.add(child.spelling)
                    self.flow.declare(child)
                elif depth < 3:
                    self.declare(child, depth + 1)
        elif kind in (K.STRUCT_DECL, K.CLASS_DECL, K.CLASS_TEMPLATE) and depth < 3:
            for child in children(c):  # static const members and member enumerators
                if child.kind == K.VAR_DECL:
                    self.flow.declare(child)
                elif child.kind == K.ENUM_DECL:
                    for e in children(child):
                        self.flow.declare(e)

    def visit(self, c: ci.Cursor, space: str, fname: str, parents: list[ci.Cursor]) -> None:
        kid = c._kind_id  # an int: CursorKind lookups per node add up over a whole tree
        if kid == _UNEXPOSED_EXPR:
            kids = children(c)
            self.unresolved_call(c, kids, space, fname)
        elif kid == _DECL_REF_EXPR:
            self.flow.ref(c, space, fname, parents)
            kids = children(c)
        elif kid == _ARRAY_SUBSCRIPT_EXPR and space not in ("host", "file"):
            kids = children(c)
            self.flow.subscript(c, kids, space, fname, parents)
        else:
            if kid in _FUNCTION_IDS:
                if kid == _FUNCTION_DECL and _instantiation(c):
                    return  # its template's body, read once already (with dependent types)
                space, fname = self.function(c, space, fname)
            elif kid == _LAMBDA_EXPR and space in ("host", "file"):
                space = self.lambda_space(c, space, fname)
            elif kid == _CALL_EXPR:
                self.call(c, space, fname, parents)
            elif kid in _DECL_IDS:
                self.decl(c, c.kind, space, fname)
            elif kid == _ENUM_CONSTANT_DECL:
                self.simple_decl(c, "enumerator", space)
                self.flow.declare(c)
            elif kid == _ASM_STMT:
                self.asm(c, space, fname)
            elif kid == _INTEGER_LITERAL:
                self.flow.literal(c, space, fname, parents)
                if space not in ("host", "file"):
                    self.literal(c, space, fname, parents)
                return
            elif kid == _MEMBER_REF_EXPR:
                self.member(c, space, fname, parents)
            elif kid in _BINOP_IDS:
                if space not in ("host", "file"):
                    self.folded_operands(c, space, fname, parents)
                self.assignment(c, space, fname)
                self.shared_opt_in(c, space, fname)
            elif kid == _INIT_LIST_EXPR:
                self.designated_vector_init(c, fname)
            elif kid == _CXX_UNARY_EXPR:
                self.dependent_type_in_sizeof(c, fname)
            kids = children(c)
            if kid in _BINOP_IDS and kids and kids[0]._kind_id == _DECL_REF_EXPR and not kids[0].spelling:
                self.dependent_template(c, kids[0], fname)
        parents.append(c)
        for child in kids:
            self.visit(child, space, fname, parents)
        parents.pop()

    def function(self, c: ci.Cursor, space: str, fname: str) -> tuple[str, str]:
        kids = children(c)
        attrs = {ch.kind for ch in kids if ch.kind.is_attribute()}
        if K.CUDAGLOBAL_ATTR in attrs:
            new_space = "global"
        elif K.CUDADEVICE_ATTR in attrs and K.CUDAHOST_ATTR in attrs:
            new_space = "host-device"
        elif K.CUDADEVICE_ATTR in attrs:
            new_space = "device"
        elif space in ("global", "device", "host-device"):
            new_space = space  # methods of local classes, lambdas' operator()
        else:
            new_space = "host"
        name = c.spelling
        if not c.is_definition():
            if c.kind == K.FUNCTION_DECL and space == "file":
                self.simple_decl(c, "function", new_space)
            return new_space, name
        if c.kind == K.FUNCTION_DECL:
            self.flow.declare(c)  # a function that returns a constant (a warp width by name)
        where = self.loc(c)
        if where is None:
            return new_space, name
        loc, absname, _ = where
        ext = c.extent
        rel = loc.path
        ft = self.files[absname][1]
        bounds, cluster = self.function_attrs(ft, ext.start.offset, loc)
        qual = self.qualname(c)
        arguments = tuple(c.get_arguments() or ())
        params = tuple(self._param_type(a, ft, absname) for a in arguments)
        canonical = tuple(a.type.get_canonical().spelling for a in arguments)
        self.facts.functions.append(
            FunctionFact(
                name=name,
                qualname=qual,
                loc=loc,
                end_line=ext.end.line,
                space=new_space,
                is_template=c.kind == K.FUNCTION_TEMPLATE,
                launch_bounds=bounds,
                cluster_dims=cluster,
                params=params,
                result=c.result_type.spelling,
                canonical_params=canonical if canonical != params else (),
                c_linkage=c.kind == K.FUNCTION_DECL and name != "main" and _c_symbol(c) == name,
            )
        )
        if ext.start.file is not None and ext.start.file.name == absname:
            self.spans.setdefault(rel, []).append((ext.start.offset, ext.end.offset, new_space, name))
            if rel != self.facts.path and kids and kids[-1]._kind_id == _COMPOUND_STMT:
                self.body(rel, ft, ext.start.offset, kids[-1])
        return new_space, name

    def declared_in_project(self, ref: ci.Cursor | None) -> bool:
        """Whether a call resolves to the project's own function (its `atomicAdd(half2 *, half2)`
        fallback), not the toolkit's."""
        f = ref.location.file if ref is not None else None
        return f is not None and os.path.normpath(f.name) in self.project

    def lambda_space(self, c: ci.Cursor, space: str, fname: str) -> str:
        """A `[=] __device__ (...) {...}` lambda written in host code (an extended lambda, AMReX's
        `[=] AMREX_GPU_DEVICE (...)`) runs on the device: the attribute sits on its closure
        type's call operator, so its body is device code like a `__device__` function's."""
        attrs: set = set()
        for m in children(c.type.get_declaration()):
            if m.kind in (K.CXX_METHOD, K.FUNCTION_TEMPLATE):
                attrs = {a.kind for a in children(m) if a.kind.is_attribute()}
                break
        if K.CUDADEVICE_ATTR not in attrs:
            return space
        new_space = "host-device" if K.CUDAHOST_ATTR in attrs else "device"
        where = self.loc(c)
        ext = c.extent
        if where is not None and ext.start.file is not None and ext.start.file.name == where[1]:
            self.spans.setdefault(where[0].path, []).append(
                (ext.start.offset, ext.end.offset, new_space, fname)
            )
        return new_space

    def body(self, rel: str, ft: FileTokens, start: int, stmt: ci.Cursor) -> None:
        """Record the parts of a header function's body that a later parse may blank (see
        FileFacts.bodies): not a body whose type depends on it (constexpr, deduced `auto`).
        Directives inside stay (all but #pragma): they decide which branches the header's #ifs
        leave and what it defines, and cuda-samples' helpers hold `#ifdef _WIN32` in most bodies."""
        data = ft.data
        f1, so = expansion_offset(stmt.extent.start)
        f2, eo = expansion_offset(stmt.extent.end)
        if not f1 or f1 != f2 or eo - so < 8 or data[so : so + 1] != b"{" or data[eo - 1 : eo] != b"}":
            return
        head = data[start:so]
        if b"constexpr" in head or b"consteval" in head or b"auto" in head:
            return
        if eo - so < _WRAPPER_BODY and _SYNC_CALL.search(data, so, eo):
            return  # a shuffle wrapper: its callers' masks are followed into it (through_mask_wrapper)
        parts = self.facts.bodies.setdefault(rel, [])
        begin = so + 1
        if _DIRECTIVE.search(data, so, eo):
            for d in ft.directives:
                if so < d.offset < eo and d.kind != "pragma":
                    if d.offset > begin:
                        parts.append((begin, d.offset))
                    begin = d.end
        if eo - 1 > begin:
            parts.append((begin, eo - 1))

    @staticmethod
    def function_attrs(ft: FileTokens, start: int, loc: Loc) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """__launch_bounds__(...) / __cluster_dims__(...) argument texts, from the tokens before the
        name; not from a preprocessor-inactive block (`#if __CUDA_ARCH__ == 800` /
        `__launch_bounds__(128, 16)` / `#endif`: neither the parse nor a HIP build sees it)."""
        out: dict[str, tuple[str, ...]] = {}
        toks = ft.tokens
        i = token_index(ft, start)
        while i < len(toks) and (toks[i].line, toks[i].column) < (loc.line, loc.column):
            t = toks[i]
            if (
                t.kind == IDENT
                and t.text in ("__launch_bounds__", "__cluster_dims__")
                and i + 1 < len(toks)
                and not any(a <= t.offset < b for a, b, _ in ft.inactive)
            ):
                args, i = _paren_args(ft, i + 1)
                out[t.text] = tuple(args)
                continue
            i += 1
        return out.get("__launch_bounds__", ()), out.get("__cluster_dims__", ())

    def qualname(self, c: ci.Cursor) -> str:
        parts = [c.spelling]
        p = c.semantic_parent
        while p is not None and p.kind in (
            K.NAMESPACE,
            K.CLASS_DECL,
            K.STRUCT_DECL,
            K.CLASS_TEMPLATE,
        ):
            parts.append(p.spelling)
            p = p.semantic_parent
        return "::".join(reversed(parts))

    def call(self, c: ci.Cursor, space: str, fname: str, parents: list[ci.Cursor]) -> None:
        kids = list(children(c))
        if len(kids) >= 2 and kids[1].kind == K.CALL_EXPR and kids[1].spelling in CONFIG_FUNCTIONS:
            where = self.loc(c)
            if where is None:
                return
            loc, absname, off = where
            named = callee_target(kids[:1])  # a template kernel's dependent launch: its overload set
            kernel = c.spelling or (named.spelling if named is not None else "")
            ft = self.files[absname][1]
            config = _launch_config(ft, off)
            block, at = _dim3_init(ft, off, config[1]) if len(config) > 1 else ("", None)
            self.facts.launches.append(
                LaunchFact(
                    kernel=kernel,
                    loc=loc,
                    context=space,
                    function=fname,
                    config=config,
                    block_init=block,
                    block_at=Loc(loc.path, *at) if at is not None else None,
                )
            )
            size = shared_sizes.launch_fact(kids[1], config, kernel, evaluate_int, loc, space, fname)
            if size is not None:
                self.facts.shared_sizes.append(size)
            return
        target = callee_target(kids)
        callee = c.spelling or (target.spelling if target is not None else "")
        if not callee or callee in CONFIG_FUNCTIONS:
            return
        if target is not None and target.kind in (K.NAMESPACE_REF, K.TYPE_REF, K.TEMPLATE_REF):
            return  # a dependent construction (`cg::plus<T>()`), not a call
        loc_cursor = (
            target
            if target is not None
            and target.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR, K.OVERLOADED_DECL_REF)
            else c
        )
        where = self.loc(loc_cursor)
        if where is None:
            return
        loc = where[0]
        member_of = ""
        if target is not None and target.kind == K.MEMBER_REF_EXPR:
            base = next(iter(children(target)), None)
            while base is not None and base.kind == K.UNEXPOSED_EXPR:  # before a derived-to-base cast
                inner = next(iter(children(base)), None)
                if inner is None:
                    break
                base = inner
            if base is not None:
                member_of = _strip_type(base.type.spelling)
        ref = c.referenced
        if ref is None and target is not None and target.kind == K.OVERLOADED_DECL_REF:
            ref = first_overload(target)  # a dependent call: name its namespace from a candidate
        if ref is not None and ref.kind not in CALLABLE_KINDS:
            return  # construction (often implicit, e.g. dim3 from an int) or a cast, not a call
        qual = (
            self.qualname(ref)
            if ref is not None
            and ref.semantic_parent is not None
            and ref.semantic_parent.kind != K.TRANSLATION_UNIT
            else callee
        )
        arguments = list(c.get_arguments())
        related: tuple[RelatedLoc, ...] = ()
        whole = self.expansion_range(c)
        args = tuple(self.text(a, within=whole) for a in arguments)
        if args and not all(args) and self.word_at(*where[1:3]) == callee:
            # the call is written in another macro's argument (`CHECK(cudaFuncSetAttribute(...))`):
            # its arguments' text is where they are spelled
            args = tuple(t or self.spelled_text(a) for t, a in zip(args, arguments, strict=True))
        elif self.word_at(*where[1:3]) not in ("", callee):
            # written in the body of the project macro used here: report it where it is written,
            # the line a port edits, with the arguments as the body spells them
            body = self.macro_body_call(where[1], where[2], callee)
            if body is not None:
                related = (RelatedLoc.at(loc, "macro use"),)
                loc, spelled = body
                spelled += [""] * (len(args) - len(spelled))
                # a parameter's argument: the use site's text, else where that text is spelled
                args = tuple(
                    b or u or self.spelled_text(a) for b, u, a in zip(spelled, args, arguments, strict=False)
                )
        if callee in WRITTEN_ARGUMENT_CALLEES and not self.declared_in_project(ref):
            arg_types = tuple(_written_type(a) for a in arguments)
        elif member_of or (
            (callee in TYPED_ARGUMENT_CALLEES or self.typed_callee(callee))
            and not self.declared_in_project(ref)
        ):
            arg_types = tuple(_argument_type(a) for a in arguments)
        else:
            arg_types = ()
        const_args = (
            tuple(i for i, a in enumerate(arguments) if evaluate_int(a) is not None)
            if callee in self.watched
            else ()
        )
        operand_types = (
            tuple(
                _leftmost_operand_type(a, self.watched) if _ARITH.search(t) else ""
                for a, t in zip(arguments, args, strict=True)
            )
            if any(_ARITH.search(t) for t in args)
            else ()
        )
        if callee in shared_sizes.ATTRIBUTE_CALLEES:
            size = shared_sizes.attribute_fact(
                callee, arguments, args, evaluate_int, _arg_name, loc, space, fname, self.word_at(*where[1:3])
            )
            if size is not None:
                self.facts.shared_sizes.append(size)
        if 0 in const_args:
            self.flow.mask_argument(c, callee, arguments, space, fname)
        device = space not in ("host", "file") and callee not in self.watched
        forwarded = self._mask_forwarded(c, callee) if device else None
        if forwarded is not None and forwarded[0] < len(arguments):
            mask = arguments[forwarded[0]]  # only the argument the wrapper hands on is evaluated
            if evaluate_int(mask) is not None:
                self.flow.mask_argument(c, forwarded[1], [mask], space, fname, through=callee)
        if "&" + callee in self.watched:
            self.out_values(callee, arguments, parents, space, fname)
        if any(smnumber.names_major_attribute(a) for a in arguments):
            self.sm_numbers_written(callee, arguments, parents, space, fname)
        mask_typedef, mask_typedef_loc = "", None
        if callee in MASK_ARGUMENT_CALLEES or callee in MASK_RESULT_CALLEES:
            mask_typedef, mask_typedef_loc = self.mask_typedef(c, callee, arguments, parents)
        self.facts.calls.append(
            CallFact(
                callee=callee,
                qualname=qual,
                loc=loc,
                context=space,
                function=fname,
                args=args,
                result_type=self.result_type(parents),
                member_of=member_of,
                arg_types=arg_types,
                const_args=const_args,
                operand_types=operand_types,
                mask_typedef=mask_typedef,
                mask_typedef_loc=mask_typedef_loc,
                related=related,
            )
        )

    def out_values(
        self, callee: str, arguments: list[ci.Cursor], parents: list[ci.Cursor], space: str, fname: str
    ) -> None:
        for fn, var in outvalues.written_variables(arguments, parents):
            for use in outvalues.uses(fn, var, evaluate_int):
                where = self.loc(use.node)
                if where is None:
                    continue
                self.facts.out_values.append(
                    OutValueFact(
                        source=callee,
                        var=use.var,
                        op=use.op,
                        literal=use.literal,
                        expr=self.text(use.node)[:200],
                        loc=where[0],
                        context=space,
                        function=fname,
                    )
                )

    def sm_numbers_written(
        self, callee: str, arguments: list[ci.Cursor], parents: list[ci.Cursor], space: str, fname: str
    ) -> None:
        """`cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)` and then
        `major * 10 + minor`: an SM number, judged like `prop.major * 10 + prop.minor` (HIP843)."""
        for fn, var in outvalues.written_variables(arguments, parents):
            for use in outvalues.uses(fn, var, evaluate_int, ops=frozenset({"*"})):
                where = self.loc(use.node)
                if use.literal not in smnumber.SCALES or where is None:
                    continue
                chain = parents[: parents.index(fn)] + list(use.path) if fn in parents else list(use.path)
                expr, verdict = smnumber.classify(
                    use.node, chain, use.literal, evaluate_int, lambda x: self.text(x, 200)
                )
                self.facts.out_values.append(
                    OutValueFact(
                        source=callee,
                        var=use.var,
                        op="*",
                        literal=use.literal,
                        expr=expr[:200],
                        loc=where[0],
                        context=space,
                        function=fname,
                        sm_number=verdict,
                    )
                )

    def mask_typedef(
        self, c: ci.Cursor | None, callee: str, arguments: list[ci.Cursor], parents: list[ci.Cursor]
    ) -> tuple[str, Loc | None]:
        """The project typedef of a 32-bit integer a lane mask is kept in: argument 0's variable,
        or where a ballot's result goes (a variable, an assignment, a function's return)."""
        decl: ci.Cursor | None = None
        if callee in MASK_ARGUMENT_CALLEES and arguments:
            node = arguments[0]
            while node.kind in VALUE_WRAPPERS:
                kids = list(children(node))
                if len(kids) != 1:
                    break
                node = kids[0]
            if node.kind == K.DECL_REF_EXPR:
                decl = _typedef_of(node.type, node.referenced)
        if decl is None and callee in MASK_RESULT_CALLEES:
            for p in reversed(parents):
                if p.kind in VALUE_WRAPPERS:
                    continue
                if p.kind == K.VAR_DECL:
                    decl = _typedef_of(p.type, p)
                elif p.kind == K.BINARY_OPERATOR and binary_operator(p) == "=":
                    lhs = next(iter(children(p)), None)
                    decl = _typedef_of(lhs.type, lhs.referenced) if lhs is not None else None
                elif p.kind == K.RETURN_STMT:
                    fn = next((q for q in reversed(parents) if q.kind in FUNCTION_KINDS), None)
                    decl = _typedef_of(fn.result_type, None) if fn is not None else None
                break
        if decl is None:
            return "", None
        underlying = decl.underlying_typedef_type
        canonical = underlying.get_canonical()
        unknown = canonical.kind == ci.TypeKind.INVALID or (
            # the front end stands in a struct for a name from a header that was not found
            canonical.kind == ci.TypeKind.RECORD and self.loc(canonical.get_declaration()) is None
        )
        if canonical.kind not in _MASK_CANONICAL and not (
            # an integer alias from a header that was not found (`hypre_uint`): judged by its name
            unknown and not _WIDE_SPELLING.search(underlying.spelling)
        ):
            return "", None
        where = self.loc(decl)
        if where is None:
            return "", None  # a system header's type (uint32_t): not the project's to widen
        return decl.spelling, where[0]

    def unresolved_call(self, c: ci.Cursor, kids: list[ci.Cursor], space: str, fname: str) -> None:
        """A call of an undeclared function (a missing header): clang keeps it as a recovery
        expression whose first child names the callee and whose other children are the arguments."""
        if not kids or kids[0].kind != K.DECL_REF_EXPR:
            return
        ref = children(kids[0])
        if len(ref) != 1 or ref[0].kind != K.OVERLOADED_DECL_REF:
            return
        where = self.loc(ref[0])
        if where is None:
            return
        loc, absname, off = where
        name = ref[0].spelling
        after = self.files[absname][1].data[off + len(name) : off + len(name) + 64].lstrip()
        if not after.startswith(b"("):
            return  # an assignment to, or the address of, an overloaded name: not a call
        mask_typedef, mask_typedef_loc = "", None
        if name in MASK_ARGUMENT_CALLEES:
            mask_typedef, mask_typedef_loc = self.mask_typedef(None, name, kids[1:], [])
        whole = self.expansion_range(c)  # a call written in a macro's argument: read its arguments there
        self.facts.calls.append(
            CallFact(
                callee=name,
                qualname=name,
                loc=loc,
                context=space,
                function=fname,
                args=tuple(self.text(a, within=whole) for a in kids[1:]),
                arg_types=tuple(_argument_type(a) for a in kids[1:]) if self.typed_callee(name) else (),
                mask_typedef=mask_typedef,
                mask_typedef_loc=mask_typedef_loc,
            )
        )

    def result_type(self, parents: list[ci.Cursor]) -> str:
        for p in reversed(parents):
            if p.kind in VALUE_WRAPPERS:
                continue
            if p.kind == K.VAR_DECL:
                # `auto m = __ballot_sync(...)` takes whatever width the platform returns
                return "auto" if p.type.kind == ci.TypeKind.AUTO else p.type.spelling
            if p.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and binary_operator(p) in (
                "=",
                "|=",
                "&=",
            ):
                lhs = next(iter(children(p)), None)
                return lhs.type.spelling if lhs is not None else ""
            if p.kind == K.RETURN_STMT:  # a wrapper's declared result: `uint32_t ballot(p) { return ... }`
                return self.returned_type(parents)
            return ""
        return ""

    @staticmethod
    def returned_type(parents: list[ci.Cursor]) -> str:
        for p in reversed(parents):
            if p.kind == K.LAMBDA_EXPR:
                return ""  # a lambda's result type is deduced unless spelled: nothing to report
            if p.kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE):
                t = p.result_type
                return "auto" if t.kind == ci.TypeKind.AUTO else t.spelling
        return ""

    def decl(self, c: ci.Cursor, kind: ci.CursorKind, space: str, fname: str) -> None:
        where = self.loc(c)
        if where is None:
            return
        loc = where[0]
        storage: list[str] = []
        init = ""
        kids = list(children(c))
        for ch in kids:
            s = STORAGE_ATTRS.get(ch.kind)
            if s:
                storage.append(s)
            elif ch.kind == K.ANNOTATE_ATTR and ch.spelling == "__grid_constant__":
                storage.append("grid_constant")  # the shim's spelling of CUDA's kernel-parameter qualifier
        sc = c.storage_class if kind == K.VAR_DECL else None
        if sc == ci.StorageClass.EXTERN:
            storage.append("extern")
        elif sc == ci.StorageClass.STATIC:
            storage.append("static")
        elif sc == ci.StorageClass.REGISTER and not compiled_as_c(self.tu.spelling):
            storage.append("register")  # (C keeps the storage class: a C unit's headers are C)
        t = c.type if kind not in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL) else c.underlying_typedef_type
        if kind in (K.VAR_DECL, K.TEMPLATE_NON_TYPE_PARAMETER, K.PARM_DECL):
            self.flow.declare(c, t)
        spelled = self.spelled_prefix(c, where[1], where[2])
        if "__managed__" in spelled:
            storage.append("managed")
        dims: list[str] = []
        at = t
        while at.kind in (
            ci.TypeKind.CONSTANTARRAY,
            ci.TypeKind.INCOMPLETEARRAY,
            ci.TypeKind.DEPENDENTSIZEDARRAY,
        ):
            dims.append(str(at.get_array_size()) if at.kind == ci.TypeKind.CONSTANTARRAY else "")
            at = at.element_type
        if kind == K.VAR_DECL and kids:
            last = kids[-1]
            if last.kind.is_expression() and self._is_initializer(c, last, where[1], where[2]):
                init = self.text(last, 200)
                self.initialisation(c, last, loc, space, fname)
        elif kind == K.TEMPLATE_NON_TYPE_PARAMETER and kids and kids[-1].kind.is_expression():
            init = self.text(kids[-1], 200)
        deduced = kind == K.VAR_DECL and t.kind == ci.TypeKind.AUTO
        if kind == K.VAR_DECL and "shared" in storage:
            size = shared_sizes.static_fact(t, storage, loc, space, fname)
            if size is not None:
                self.facts.shared_sizes.append(size)
        spelling = t.spelling
        if kind in (K.FIELD_DECL, K.VAR_DECL) and t.kind in (ci.TypeKind.TYPEDEF, ci.TypeKind.ELABORATED):
            canonical = t.get_canonical()
            if canonical.kind == ci.TypeKind.POINTER and canonical.get_pointee().kind in (
                ci.TypeKind.FUNCTIONPROTO,
                ci.TypeKind.FUNCTIONNOPROTO,
            ):
                # a typedef'd function pointer (hashcat's `CUDA_CUFUNCSETATTRIBUTE cuFuncSetAttribute;`)
                spelling = f"{t.spelling} (aka {canonical.spelling})"
        self.facts.decls.append(
            DeclFact(
                name=c.spelling,
                type=spelling,
                loc=loc,
                context=space,
                kind=DECL_KINDS[kind],
                storage=tuple(storage),
                array_dims=tuple(dims),
                init=init,
                deduced=deduced,
                written=deduced and c.hash in self.written_in(c.semantic_parent),
            )
        )

    def written_in(self, fn: ci.Cursor | None) -> frozenset[int]:
        """The variables (cursor hashes) a function body assigns to (`=`, `+=`, ...) or
        increments, read from its AST once."""
        if fn is None or fn.kind not in FUNCTION_KINDS:
            return frozenset()
        key = fn.hash
        if key not in self._written:
            out: set[int] = set()
            for n in fn.walk_preorder():
                k = n._kind_id
                if not (
                    k == _COMPOUND_ASSIGN
                    or (k == _BINARY and binary_operator(n) == "=")
                    or (k == _UNARY and increments(n))
                ):
                    continue
                target = next(iter(n.get_children()), None)
                while target is not None and target._kind_id in _WRAPPER_EXPRS:
                    target = next(iter(target.get_children()), None)
                if target is not None and target._kind_id == _DECL_REF_EXPR and target.referenced is not None:
                    out.add(target.referenced.hash)
            self._written[key] = frozenset(out)
        return self._written[key]

    def spelled_prefix(self, c: ci.Cursor, absname: str, name_off: int) -> str:
        """Source text of a declaration before its name: the type as written, attributes included."""
        start = c.extent.start
        if start.file is None or start.file.name != absname or not 0 <= name_off - start.offset <= 300:
            return ""
        return self.files[absname][1].text(start.offset, name_off).strip()

    @staticmethod
    def _param_type(a: ci.Cursor, ft: FileTokens, absname: str) -> str:
        """A parameter's type as clang spells it; as written where clang fell back to `int` for a
        type it does not know (a library's handle whose header is absent: `cublasHandle_t`)."""
        spelled = a.type.spelling
        start, end, at = a.extent.start, a.extent.end, a.location
        if spelled != "int" or at.file is None or at.file.name != absname:
            return spelled
        if start.file is not None and start.file.name == absname and end.offset > start.offset:
            text = ft.text(start.offset, end.offset)
        else:  # an unnamed parameter of an unknown type: no extent, its location ends the type
            before = ft.data[max(0, at.offset - 120) : at.offset].decode("utf-8", "replace")
            text = re.split(r"[,(]", before)[-1]
        if a.spelling and text.rstrip().endswith(a.spelling):
            text = text.rstrip()[: -len(a.spelling)]
        written = " ".join(text.split())
        if not written or "int" in re.findall(r"\w+", written) or not re.fullmatch(r"[\w:<>,&* ]+", written):
            return spelled
        return written

    def simple_decl(self, c: ci.Cursor, kind: str, space: str) -> None:
        where = self.loc(c)
        if where is not None:
            self.facts.decls.append(
                DeclFact(name=c.spelling, type=c.type.spelling, loc=where[0], context=space, kind=kind)
            )

    def _is_initializer(self, decl: ci.Cursor, expr: ci.Cursor, absname: str, name_off: int) -> bool:
        """An expression after `=`, `(` or `{` following the name, not an array size."""
        start = expr.extent.start
        if start.file is None or start.file.name != absname:
            return False
        between = self.files[absname][1].data[name_off + len(decl.spelling) : start.offset]
        between = between.rsplit(b"]", 1)[-1]
        return any(ch in between for ch in (b"=", b"(", b"{"))

    def asm(self, c: ci.Cursor, space: str, fname: str) -> None:
        where = self.loc(c)
        if where is None:
            return
        loc, absname, off = where
        ft = self.files[absname][1]
        word = self.word_at(absname, off)
        body = None
        if word not in _ASM_KEYWORDS and word in self._macros:
            # written in a project macro's body (NCCL's `#define WAIT_NEXT ... asm volatile(...)`):
            # placed where the body spells it, the line a port edits, once for all its uses
            body = self.macro_body_asm(absname, off, word)
        if body is not None:
            loc, text = body
        else:
            text = _asm_text(ft, token_index(ft, off))
        ins, regs = parse_asm(text)
        self.facts.asms.append(
            AsmFact(text=text, loc=loc, context=space, function=fname, instructions=ins, registers=regs)
        )

    def macro_body_asm(self, absname: str, offset: int, macro: str) -> tuple[Loc, str] | None:
        """Where the body of the macro used at ``offset`` (or of a project macro it uses) writes
        its next asm statement (the n-th of one expansion is the n-th the bodies spell), with the
        statement's text; None when no body spells one."""
        return self._nth_from_body((absname, offset, "asm"), self._body_asms_of(macro, 3))

    def _nth_from_body(self, key: tuple, found) -> tuple | None:
        """The n-th of what the macro bodies spell for the n-th visit of one expansion (a macro
        used once brings each of its body's calls once, in order)."""
        nth = self._body_calls.get(key, 0)
        self._body_calls[key] = nth + 1
        for item in found:
            if nth == 0:
                return item
            nth -= 1
        return None

    def _macro_body(self, macro: str, depth: int) -> tuple[str, FileTokens, int, int] | None:
        """(relative path, tokens, start, end offset) of a project macro's definition."""
        definition = self.macro_definition(macro)
        if definition is None or depth == 0:
            return None
        ptr, _line, _col, start = file_location_ptr(definition.extent.start)
        end = file_location_ptr(definition.extent.end)[3]
        entry = self._file_entry(self._name(ptr))
        if entry is None:
            return None
        return entry[0], entry[1], start, end

    def _body_asms_of(self, macro: str, depth: int):
        body = self._macro_body(macro, depth)
        if body is None:
            return
        rel, ft, start, end = body
        toks = ft.tokens
        for i in range(token_index(ft, start) + 1, len(toks)):
            t = toks[i]
            if t.offset >= end:
                break
            if t.kind == KEYWORD and t.text in _ASM_KEYWORDS:
                yield Loc(rel, t.line, t.column), _CONTINUED.sub(" ", _asm_text(ft, i))
            elif t.kind == IDENT and t.text != macro and t.text in self._macros:
                yield from self._body_asms_of(t.text, depth - 1)

    def _watched_argument(self, parents: list[ci.Cursor]) -> bool:
        """Whether a literal is written directly as an argument of a call the rules watch (any
        constant mask of `__shfl_xor_sync(0x55555555, ...)`, not only the warp-width values)."""
        for p in reversed(parents):
            if p.kind in VALUE_WRAPPERS:
                continue
            return p._kind_id == _CALL_EXPR and callee_name(p) in self.watched
        return False

    def literal(self, c: ci.Cursor, space: str, fname: str, parents: list[ci.Cursor]) -> None:
        value = evaluate_int(c)
        if value is None or (
            value not in WARP_VALUES
            and not self._watched_argument(parents)
            and not _shifted_one(value, c, parents)
        ):
            return
        at = self.located(c)
        if at is None:
            return
        loc, data, off = at
        m = NUMBER.match(data, off)
        spelling = m.group(0).decode("ascii", "replace") if m else str(value)
        macro, written = "", spelling
        related: tuple[RelatedLoc, ...] = ()
        if not spelling[:1].isdigit():  # the use site shows a macro name: the value is in its body
            at = self.macro_literal(spelling, value)
            if at is not None:
                related = (RelatedLoc.at(loc, "macro use"),)
                loc, written = at
                macro = spelling
        role, op, other, other_type = "other", "", "", ""
        callee_macro = ""
        child = c
        for p in reversed(parents):
            pk = p.kind
            if pk in VALUE_WRAPPERS:
                child = p
                continue
            if pk in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
                op = binary_operator(p)
                kids = list(children(p))
                others = [k for k in kids if k != child]
                if op in ("+", "-", "*", "<<", "|") and others and evaluate_int(others[0]) is not None:
                    return  # part of a constant expression, recorded whole by folded_operands
                if others:
                    # the operand as written, also inside a macro's argument (`assert(warpSize == 32)`)
                    other = self.text(others[0], 200) or self.spelled_text(others[0], 200)
                    other_type = others[0].type.spelling
                role = "compare" if op in COMPARE_OPS else "binop"
                if (
                    role == "compare"
                    and len(parents) >= 2
                    and any(q.kind == K.FOR_STMT for q in parents[-3:])
                ):
                    role = "loop-bound"
            elif pk == K.VAR_DECL:
                # a literal directly under an array's declaration is a dimension: arrays are not
                # initialised from a scalar
                is_array = p.type.kind in (
                    ci.TypeKind.CONSTANTARRAY,
                    ci.TypeKind.DEPENDENTSIZEDARRAY,
                )
                role, other, other_type = (
                    ("array-dim" if is_array else "init"),
                    p.spelling,
                    p.type.spelling,
                )
            elif pk == K.FIELD_DECL:
                role, other, other_type = "array-dim", p.spelling, p.type.spelling
            elif pk == K.CALL_EXPR:
                role, op = "arg", callee_name(p)
                if not macro:  # written at the call, not in the body of the macro it uses
                    callee_macro = self.callee_macro(p, op)
                args = list(p.get_arguments())
                # the argument node itself: offsets cannot tell apart arguments written in a macro
                position = next((i for i, a in enumerate(args) if same_node(a, child)), -1)
                other = str(position)
                intrinsic = self.through_mask_wrapper(p, op, position)
                if intrinsic:  # the mask of the intrinsic the project's wrapper calls
                    op, other, callee_macro = intrinsic, "0", ""
            elif pk == K.ARRAY_SUBSCRIPT_EXPR:
                role = "subscript"
            elif pk == K.RETURN_STMT:
                role = "return"
            break
        self.facts.literals.append(
            LiteralFact(
                value=value,
                spelling=spelling,
                loc=loc,
                context=space,
                function=fname,
                role=role,
                op=op,
                other=other,
                other_type=other_type,
                macro=macro,
                written=written,
                expr=self.whole_expression(c, parents),
                callee_macro=callee_macro,
                selects_uniform=role == "binop" and selects_uniform(c, parents, children, binary_operator),
                block_step=role == "compare" and block_step(c, parents, children),
                lockstep_fold=role == "compare" and value == 32 and lockstep_fold(c, parents, children),
                guards_barrier=role == "compare" and guards_barrier(c, parents, children),
                related=related,
            )
        )

    def through_mask_wrapper(self, call: ci.Cursor, callee: str, index: int) -> str:
        """The warp-sync intrinsic a call's argument ``index`` becomes the lane mask of, through
        a project function that hands that parameter on (`tl::shfl_xor_sync(0xffffffff, v, m)`
        -> `__shfl_xor_sync`), or "". The callee's definition is read once per name (a header's
        function bodies are walked in one translation unit only)."""
        forwarded = self._mask_forwarded(call, callee) if index >= 0 else None
        return forwarded[1] if forwarded is not None and forwarded[0] == index else ""

    def _mask_forwarded(self, call: ci.Cursor, callee: str) -> tuple[int, str] | None:
        """(the parameter a project wrapper hands on as a lane mask, the intrinsic), cached by name."""
        if callee in MASK_FIRST_CALLEES:
            return None
        if callee not in self.mask_wrappers:
            self.mask_wrappers[callee] = self._mask_forward(call)
        return self.mask_wrappers[callee]

    def _mask_forward(self, call: ci.Cursor) -> tuple[int, str] | None:
        ref = call.referenced
        if ref is None:
            target = callee_target(children(call))
            if target is not None and target.kind == K.OVERLOADED_DECL_REF:
                ref = first_overload(target)
        if ref is None or ref.kind not in FUNCTION_KINDS or not self.declared_in_project(ref):
            return None
        fn = ref.get_definition() or ref
        params = [p for p in children(fn) if p.kind == K.PARM_DECL]
        body = next((k for k in children(fn) if k.kind == K.COMPOUND_STMT), None)
        if not params or body is None:
            return None
        stack, seen = [body], 0
        while stack and seen < 400:  # a wrapper is a few statements: stop on a long body
            node = stack.pop()
            seen += 1
            kids = children(node)
            if node.kind == K.CALL_EXPR and callee_name(node) in MASK_FIRST_CALLEES:
                first = next(iter(node.get_arguments()), None)
                mask = outvalues.unwrap(first) if first is not None else None
                param = mask.referenced if mask is not None and mask.kind == K.DECL_REF_EXPR else None
                position = next(
                    (i for i, p in enumerate(params) if param is not None and same_node(p, param)), None
                )
                if position is not None:
                    return position, callee_name(node)
            stack.extend(kids)
        return None

    def callee_macro(self, call: ci.Cursor, callee: str) -> str:
        """The name a call is written with where that is a macro standing for the callee
        (`SHFL_DOWN(mask, v, i)` for `__shfl_down_sync`), else ""."""
        text = self.text(call, 400)
        m = _CALL_HEAD.match(text)
        return m.group(1) if m and callee and m.group(1) != callee else ""

    def spelled_text(self, cursor: ci.Cursor, limit: int = 400) -> str:
        """An expression's text where it is spelled, for one written inside a macro argument."""
        ext = cursor.extent
        f1, _, _, so = file_location_ptr(ext.start)
        f2, _, _, eo = file_location_ptr(ext.end)
        if not f1 or f1 != f2 or eo <= so or eo - so > limit:
            return ""
        entry = self.files.get(self._name(f1))
        return entry[1].text(so, eo) if entry is not None else ""

    def word_at(self, absname: str, offset: int) -> str:
        """The identifier written at ``offset`` (a macro's name where a call sits in its body)."""
        m = _WORD.match(self.files[absname][1].data, offset)
        return m.group(0).decode("ascii", "replace") if m else ""

    def shared_opt_in(self, c: ci.Cursor, space: str, fname: str) -> None:
        """`if (smem >= 48 * 1024)`: see hipscan.frontend.shared.opt_in_fact."""
        if space in ("host", "file", "host-device") and binary_operator(c) in shared_sizes.THRESHOLD_OPS:
            size = shared_sizes.opt_in_fact(c, children(c), evaluate_int, self.text, self.loc, space, fname)
            if size is not None:
                self.facts.shared_sizes.append(size)

    def whole_expression(self, c: ci.Cursor, parents: list[ci.Cursor]) -> str:
        """The outermost expression around ``c`` (up to its statement or declaration)."""
        top = c
        for p in reversed(parents):
            if not p.kind.is_expression():
                break
            top = p
        return self.text(top, 200)

    def macro_definition(self, name: str) -> ci.Cursor | None:
        if self._macros is None:
            in_system = _lib.clang_Location_isInSystemHeader
            self._macros = {
                c.spelling: c
                for c in children(self.tu.cursor)
                if c._kind_id == _MACRO_DEFINITION and not in_system(c.location)
            }
        return self._macros.get(name)

    def ident_names(self, toks, idx: int, in_directive) -> list[str]:
        """The watched names an identifier token stands for: itself, every watched qualified name
        spelled from it (`cuda::std::atomic` is both `cuda::std` and `cuda::std::atomic`), or,
        for a call through a vendor layer's alias (`gpudnnSetRNNDescriptor(...)`, `#define`d as
        `cudnnSetRNNDescriptor_v8`), the CUDA API it calls there, where a port that finds no HIP
        twin for it rewrites the call (types and constants named through such aliases are left to
        the alias's own line)."""
        text = toks[idx].text
        if text in self.watched:
            return [text]
        if text in self.qualified:
            return _qualified_at(toks, idx, self.qualified[text])
        if idx + 1 < len(toks) and toks[idx + 1].text == "(" and not in_directive(toks[idx].offset):
            alias = self.api_alias(text)
            return [alias] if alias else []
        return []

    def pasted_name(self, toks, idx: int) -> tuple[str, str] | None:
        """The CUDA name a use of a prefix-pasting project macro builds, with the prefix
        (`GPU_PREFIX(PointerAttributes)` -> `cudaPointerAttributes`, "cuda"); None otherwise. The
        pasted argument must be one identifier. Every such use is kept (they are few): the rules
        look the name up."""
        if idx + 1 >= len(toks) or toks[idx + 1].text != "(":
            return None
        paste = self.paste_macro(toks[idx].text)
        if paste is None:
            return None
        prefix, which = paste
        depth, arg, start = 0, 0, idx + 2
        for j in range(idx + 1, min(len(toks), idx + 200)):
            t = toks[j].text
            if t in "([{":
                depth += 1
            elif t in ")]}" or (t == "," and depth == 1):
                if depth == 1 and arg == which:
                    if j - start == 1 and toks[start].kind == IDENT:
                        return prefix + toks[start].text, prefix
                    return None
                if t == ",":
                    arg, start = arg + 1, j + 1
                else:
                    depth -= 1
                    if depth == 0:
                        return None
        return None

    def paste_macro(self, name: str) -> tuple[str, int] | None:
        """(prefix, parameter index) for a project macro that pastes a CUDA prefix onto one of its
        parameters (`#define GPU_PREFIX(x) cuda##x`), directly or through another such macro
        (`#define CALL_DEVICE_API(f, args) GPU_PREFIX(f) args`); else None."""
        if name in self._pastes:
            return self._pastes[name]
        self._pastes[name] = None  # (a macro naming itself)
        found = None
        definition = self.macro_definition(name) if name[:1].isalpha() or name[:1] == "_" else None
        if definition is not None:
            toks = [t.spelling for t in definition.get_tokens()]
            if len(toks) > 3 and toks[1] == "(" and ")" in toks:
                close = toks.index(")")
                params = [t for t in toks[2:close] if t != ","]
                body = toks[close + 1 :]
                for i, t in enumerate(body):
                    if t == "##" and 0 < i < len(body) - 1 and _PASTED_PREFIX.fullmatch(body[i - 1]):
                        if body[i + 1] in params and (i < 2 or body[i - 2] != "##"):
                            found = (body[i - 1], params.index(body[i + 1]))
                            break
                    if (
                        i + 3 < len(body)
                        and body[i + 1] == "("
                        and body[i + 2] in params
                        and body[i + 3] in (")", ",")
                        and t != name
                    ):
                        inner = self.paste_macro(t)
                        if inner is not None and inner[1] == 0:
                            found = (inner[0], params.index(body[i + 2]))
                            break
        self._pastes[name] = found
        return found

    def api_alias(self, name: str) -> str | None:
        """The watched CUDA API name a project macro stands for, when its whole body is that one
        name (`#define gpuMemcpy cudaMemcpy`, jaxlib's vendor.h and the like); else None."""
        if name in self._aliases:
            return self._aliases[name]
        alias = None
        definition = self.macro_definition(name) if name[:1].isalpha() or name[:1] == "_" else None
        if definition is not None:
            body = [t.spelling for t in definition.get_tokens()][1:]
            if len(body) == 1 and body[0] in self.watched and _API_NAME.match(body[0]):
                alias = body[0]
        self._aliases[name] = alias
        return alias

    def macro_body_call(self, absname: str, offset: int, callee: str) -> tuple[Loc, list[str]] | None:
        """Where the body of the macro used at ``offset`` (or of a project macro that body uses)
        writes its next call of ``callee`` (the n-th call of it one expansion brings is the n-th
        the bodies spell), with the arguments as written there; None when no body defined in
        the same file spells the call."""
        macro = self.word_at(absname, offset)
        return self._nth_from_body((absname, offset, callee), self._body_calls_of(macro, callee, absname, 3))

    def _body_calls_of(self, macro: str, callee: str, absname: str, depth: int):
        """The calls of ``callee`` the body of ``macro`` spells, nested project macros' included,
        in the order they are written: (location, argument texts). The macro may be defined in
        another project file (a header another translation unit carries): the fact is then
        placed there, and the scan keeps one finding per place for all the files that use it."""
        body = self._macro_body(macro, depth)
        if body is None:
            return
        rel, ft, start, end = body
        toks = ft.tokens
        i = token_index(ft, start) + 1  # past the macro's own name
        params: set[str] = set()
        if i < len(toks) and toks[i].text == "(" and toks[i].offset == toks[i - 1].offset + len(macro):
            while i < len(toks) and toks[i].offset < end and toks[i].text != ")":
                if toks[i].kind == IDENT:
                    params.add(toks[i].text)
                i += 1
            i += 1
        while i < len(toks) and toks[i].offset < end:
            t = toks[i]
            i += 1
            if t.kind != IDENT:
                continue
            if t.text != callee:
                if t.text != macro and t.text in self._macros:
                    yield from self._body_calls_of(t.text, callee, absname, depth - 1)
                continue
            j = i
            if j < len(toks) and toks[j].text == "<":  # cudaLaunchKernel<FUNC>(...)
                level = 0
                while j < len(toks) and toks[j].offset < end:
                    level += {"<": 1, ">": -1}.get(toks[j].text, 0)
                    j += 1
                    if level == 0:
                        break
            if j < len(toks) and toks[j].text == "(":
                # an argument that is one of the macro's parameters says nothing of its own: ""
                # leaves the use site's text in its place
                spelled = [_CONTINUED.sub(" ", a) for a in _paren_args(ft, j)[0]]
                yield Loc(rel, t.line, t.column), ["" if a.strip() in params else a for a in spelled]

    def _file_entry(self, name: str) -> tuple[str, FileTokens] | None:
        """(relative path, tokens) of a project file: one this TU carries, or another project
        header, tokenized once on demand; None for files outside the project."""
        entry = self.files.get(name)
        if entry is not None:
            return entry
        if name in self._other_files:
            return self._other_files[name]
        found = None
        norm = os.path.normpath(name)
        cfile = self.tu.get_file(name) if norm in self.project else None
        if cfile is not None:
            try:
                data = Path(norm).read_bytes()
            except OSError:
                data = None
            if data is not None:
                found = (relpath(Path(norm), Path(self.root)), tokenize(self.tu, cfile, data))
        self._other_files[name] = found
        return found

    def macro_literal(self, name: str, value: int) -> tuple[Loc, str] | None:
        """Where the project macro ``name`` writes the literal ``value``: (location, text)."""
        definition = self.macro_definition(name)
        if definition is None:
            return None
        ptr, line, _col, off = file_location_ptr(definition.location)
        fname = os.path.normpath(self._name(ptr))
        entry = self.files.get(self._name(ptr))
        if entry is not None:
            rel, data = entry[0], entry[1].data
        elif fname in self.project and self.root:
            rel = os.path.relpath(fname, self.root).replace(os.sep, "/")
            try:
                with open(fname, "rb") as fh:
                    data = fh.read()
            except OSError:
                return None
        else:
            return None
        end = data.find(b"\n", off)
        while end > 0 and data[end - 1 : end] == b"\\":  # a continued #define
            end = data.find(b"\n", end + 1)
        body = data[off : end if end >= 0 else len(data)]
        for m in NUMBER.finditer(body):
            text = m.group(0).decode("ascii", "replace")
            if text[:1].isdigit() and _int_literal(text) == value:
                line_start = data.rfind(b"\n", 0, off + m.start()) + 1
                line_no = line + body[: m.start()].count(b"\n")
                return Loc(rel, line_no, off + m.start() - line_start + 1), text
        return None

    def assignment(self, c: ci.Cursor, space: str, fname: str) -> None:
        """Assignments to an lvalue of a watched type, with the right side's unconverted type."""
        op = binary_operator(c)
        if op not in ASSIGN_OPS:
            return
        lhs_type = self.watched_type(c.type)
        if not lhs_type:
            return
        kids = children(c)
        if len(kids) != 2:
            return
        where = self.loc(kids[0])
        if where is None:
            return
        self._store(op, lhs_type, kids[1], where[0], space, fname)

    def initialisation(self, c: ci.Cursor, init: ci.Cursor, loc: Loc, space: str, fname: str) -> None:
        """A variable of a watched type declared with a value (`auto p = buf.get() + off`,
        `native_type q = base + n`): stored like an assignment."""
        lhs_type = self.watched_type(c.type)
        if lhs_type:
            self._store("=", lhs_type, init, loc, space, fname)

    def _store(self, op: str, lhs_type: str, value: ci.Cursor, loc: Loc, space: str, fname: str) -> None:
        rhs = value
        while rhs._kind_id == _UNEXPOSED_EXPR:  # implicit conversions: the type as written
            inner = children(rhs)
            if len(inner) != 1:
                break
            rhs = inner[0]
        self.facts.assigns.append(
            AssignFact(
                op=op,
                lhs_type=lhs_type,
                rhs_type=self.watched_type(rhs.type) or rhs.type.spelling,
                rhs=self.text(value, 200),
                loc=loc,
                context=space,
                function=fname,
            )
        )

    def watched_type(self, t: ci.Type) -> str:
        """The watched name a type is spelled through (`auto` deduced to a project alias of
        `CUdeviceptr` reads `CUdeviceptr`), or ""."""
        return next((n for n in typedef_names(t) if n in self.watched), "")

    def folded_operands(self, c: ci.Cursor, space: str, fname: str, parents: list[ci.Cursor]) -> None:
        """Constant operands that are not a bare literal: `tid & (WARP - 1)`, `x % kWarpSize`."""
        kids = list(children(c))
        if len(kids) != 2:
            return
        op = binary_operator(c)
        for side, other in ((kids[0], kids[1]), (kids[1], kids[0])):
            inner = side
            while inner.kind in VALUE_WRAPPERS:
                nxt = next(iter(children(inner)), None)
                if nxt is None:
                    break
                inner = nxt
            if inner.kind == K.INTEGER_LITERAL:
                continue  # the literal itself is recorded by literal()
            if (
                inner.kind in BINOP_KINDS
                and binary_operator(inner) in ("+", "-", "*", "<<", "|")
                and op in ("+", "-", "*", "<<", "|")
            ):
                continue  # only the outermost constant expression counts
            value = evaluate_int(side)
            if value is None or value not in WARP_VALUES:
                continue
            where = self.loc(side)
            if where is None:
                continue
            role = "compare" if op in COMPARE_OPS else "binop"
            if role == "compare" and any(q.kind == K.FOR_STMT for q in parents[-3:]):
                role = "loop-bound"
            self.facts.literals.append(
                LiteralFact(
                    value=value,
                    spelling=self.text(side, 80) or str(value),
                    loc=where[0],
                    context=space,
                    function=fname,
                    role=role,
                    op=op,
                    other=self.text(other, 200),
                    other_type=other.type.spelling,
                    expr=self.whole_expression(c, parents),
                )
            )

    def member(self, c: ci.Cursor, space: str, fname: str, parents: list[ci.Cursor]) -> None:
        cond = None
        switch = ""
        node = c
        for p in reversed(parents[-4:]):
            if p.kind in VALUE_WRAPPERS:
                node = p
                continue
            if p.kind == K.BINARY_OPERATOR and binary_operator(p) in COMPARE_OPS | {
                "&&",
                "||",
                "*",
                "+",
            }:
                cond = p
            elif p.kind == K.SWITCH_STMT and next(iter(children(p)), None) == node:
                switch = self.switch_cases(p, node)
            break
        if cond is None and not switch and "." + c.spelling not in self.watched:
            return  # a member a rule reads anywhere (watched as ".name") is kept wherever it is read
        base = next(iter(children(c)), None)
        if base is None:
            return
        record = _strip_type(base.type.spelling)
        where = self.loc(c)
        if where is None:
            return
        expr = self.text(cond, 200) if cond is not None else (switch or self.text(c, 200))
        guard = self.if_guard(cond, parents) if cond is not None and record in GUARDED_RECORDS else ""
        sm_number = ""
        scale = smnumber.scale_of(cond, c, evaluate_int) if cond is not None and c.spelling == "major" else 0
        if scale and record in GUARDED_RECORDS:
            expr, sm_number = smnumber.classify(
                cond, parents, scale, evaluate_int, lambda x: self.text(x, 200)
            )
        self.facts.members.append(
            MemberRefFact(
                member=c.spelling,
                record=record,
                loc=where[0],
                context=space,
                function=fname,
                expr=expr,
                guard=guard,
                sm_number=sm_number,
            )
        )

    def switch_cases(self, stmt: ci.Cursor, value: ci.Cursor) -> str:
        """ "switch (X) case A, B, ..." for a member a switch dispatches on: the case labels are
        what the value is compared with (an occupancy table keyed on `prop.major`)."""
        labels: list[str] = []
        stack = list(children(stmt))[1:]
        while stack and len(labels) < 32:
            n = stack.pop(0)
            if n.kind == K.SWITCH_STMT:
                continue  # a nested switch has its own labels
            if n.kind == K.CASE_STMT:
                kids = children(n)
                if kids:
                    labels.append(self.text(kids[0], 40))
                    stack = kids[1:] + stack
                continue
            if not n.kind.is_expression():
                stack = list(children(n)) + stack
        if not labels:
            return ""
        return f"switch ({self.text(value, 80)}) case {', '.join(labels)}"

    def if_guard(self, cond: ci.Cursor, parents: list[ci.Cursor]) -> str:
        """ "if (COND) THEN[ else ELSE]" when ``cond`` sits in an `if` condition (see MemberRefFact)."""
        node = cond
        start = next((i for i in range(len(parents) - 1, -1, -1) if parents[i] == cond), None)
        if start is None:
            return ""
        for p in reversed(parents[max(0, start - 6) : start]):
            if p.kind == K.IF_STMT:
                kids = children(p)
                if len(kids) < 2 or kids[0] != node:
                    return ""
                text = f"if ({self.text(kids[0], 400)}) {self.text(kids[1], 400)}"
                if len(kids) > 2:
                    text += f" else {self.text(kids[2], 400)}"
                return " ".join(text.split())
            if not p.kind.is_expression():
                return ""
            node = p
        return ""

    # -- token-level facts ---------------------------------------------------------------------
    def tokens_pass(self) -> None:
        for absname, (rel, ft) in self.files.items():
            spans = sorted(self.spans.get(rel, []))
            starts = [s[0] for s in spans]

            def context(offset: int, spans=spans, starts=starts) -> tuple[str, str]:
                i = bisect.bisect_right(starts, offset) - 1
                while i >= 0:
                    s, e, sp, nm = spans[i]
                    if s <= offset < e:
                        return sp, nm
                    i -= 1
                return "file", ""

            guards = _enclosing_conditions(ft)
            for d in ft.directives:
                if d.kind in ("include", "include_next", "import"):
                    resolved = self.include_map.get((absname, d.line), "")
                    reaches = self.c_linkage.get((absname, d.line))
                    self.facts.includes.append(
                        IncludeFact(
                            name=d.header,
                            loc=Loc(rel, d.line, d.column),
                            angled=d.angled,
                            resolved=resolved,
                            c_linkage=reaches is not None,
                            reaches=reaches or (),
                            in_tree=bool(resolved) or self.in_tree(d.header),
                        )
                    )
                elif d.kind in (
                    "if",
                    "elif",
                    "ifdef",
                    "ifndef",
                    "define",
                    "pragma",
                    "undef",
                    "error",
                    "warning",
                ):
                    defines, guard, chain = (), "", ""
                    if d.kind in CONDITIONALS and DEVICE_PASS_MACROS.intersection(d.names):
                        defines = _branch_defines(ft, d)
                        guard = guards.get(d.offset, "") if defines else ""
                        chain = (
                            " ; ".join(x.text for x in ft.directives if x.group == d.group) if defines else ""
                        )
                    self.facts.directives.append(
                        DirectiveFact(
                            kind=d.kind,
                            text=d.text,
                            loc=Loc(rel, d.line, d.column),
                            names=d.names,
                            defines=defines,
                            guard=guard,
                            chain=chain,
                        )
                    )
            self.branches(rel, ft)
            launch_lines = {(f.loc.line) for f in self.facts.launches if f.loc.path == rel}
            # where clang gave up on the file, an asm statement may lie in a declaration it dropped
            # (`static inline _LIBCUDACXX_DEVICE void f() { asm volatile("fence.sc.cta;"); }` with
            # the macro's header not found): read from the tokens, unless the AST has it
            broken = any(e.loc.path == rel and e.origin != "device-callee" for e in self.facts.clang_errors)
            asm_lines = {f.loc.line for f in self.facts.asms if f.loc.path == rel} if broken else set()
            inactive = sorted(ft.inactive)
            ranges_i = 0
            in_directive = _span_test([(d.offset, d.end) for d in ft.directives])
            not_feature_arm = hip_build().not_feature_arm  # switches whose off branch is no feature
            toks = ft.tokens
            for idx, t in enumerate(toks):
                while ranges_i < len(inactive) and inactive[ranges_i][1] <= t.offset:
                    ranges_i += 1
                skipped = ranges_i < len(inactive) and inactive[ranges_i][0] <= t.offset
                device_pass = skipped and inactive[ranges_i][2]
                if skipped and not device_pass:
                    switch = ft.switched.get(inactive[ranges_i][0])
                    if switch and t.kind == KEYWORD and t.text in _ASM_KEYWORDS:
                        self.token_asm(rel, ft, idx, context, inactive=True, switch=switch)
                    elif (
                        switch
                        and t.kind == IDENT
                        and not not_feature_arm.search(switch)
                        and not in_directive(t.offset)
                    ):
                        self.switched_ident(rel, toks, idx, context, switch)
                    continue
                names = self.ident_names(toks, idx, in_directive) if t.kind == IDENT else []
                # a name written out, or one a prefix-pasting project macro builds (its prefix)
                uses = [(name, "") for name in names]
                if t.kind == IDENT and not names and not in_directive(t.offset):
                    pasted = self.pasted_name(toks, idx)
                    uses = [pasted] if pasted is not None else []
                if uses:
                    for name, prefix in uses:
                        self.ident_fact(
                            rel,
                            t,
                            context,
                            name,
                            from_inactive_branch=skipped,
                            in_directive=in_directive(t.offset),
                            pasted=prefix,
                        )
                elif t.kind == LITERAL and self.strings is not None and _is_string(t.text):
                    if self.strings.search(t.text):
                        sp, nm = context(t.offset)
                        self.facts.strings.append(
                            StringFact(
                                text=t.text,
                                loc=Loc(rel, t.line, t.column),
                                context=sp,
                                function=nm,
                                from_inactive_branch=skipped,
                            )
                        )
                elif t.kind == PUNCT and t.text == "<<<" and t.line not in launch_lines:
                    sp, nm = context(t.offset)
                    kernel = _launch_name(toks, idx)
                    if kernel and sp != "file":
                        self.facts.launches.append(
                            LaunchFact(
                                kernel=kernel.text,
                                loc=Loc(rel, kernel.line, kernel.column),
                                context=sp,
                                function=nm,
                                config=_launch_config(ft, kernel.offset),
                            )
                        )
                        launch_lines.add(t.line)
                elif device_pass and t.kind == KEYWORD and t.text in _ASM_KEYWORDS:
                    self.token_asm(rel, ft, idx, context, inactive=True)
                elif broken and t.kind == KEYWORD and t.text in _ASM_KEYWORDS and t.line not in asm_lines:
                    self.token_asm(rel, ft, idx, context, inactive=False)
            if ft.suppressions:
                self.facts.suppressions[rel] = dict(ft.suppressions)
            self.tag_arch_arms(rel, ft)

    def switched_ident(self, rel: str, toks: list, idx: int, context, switch: str) -> None:
        """A watched name in a branch only a project switch keeps off (`#ifdef USE_NVTX`): code
        the team compiles when it turns the switch on, so API rules may read it."""
        t = toks[idx]
        for name in self.ident_names(toks, idx, lambda _offset: False):
            self.ident_fact(rel, t, context, name, from_inactive_branch=True, switch=switch)

    def ident_fact(self, rel: str, t, context, name: str, **flags) -> None:
        """Record a watched name at token ``t``, in the function the token sits in."""
        sp, nm = context(t.offset)
        self.facts.idents.append(
            IdentFact(name=name, loc=Loc(rel, t.line, t.column), context=sp, function=nm, **flags)
        )

    def token_asm(
        self, rel: str, ft: FileTokens, idx: int, context, inactive: bool, switch: str = ""
    ) -> None:
        """An asm statement the AST does not hold, read from the tokens. In a preprocessor-inactive
        block: one nvcc's device pass compiles (`#if __CUDA_ARCH__ >= 800`), or one in a branch only
        a project switch keeps off (`#ifdef PTX`), which the device pass sees once the switch is on;
        a switched block holds no AST, so there PTX is told from x86 by its opcodes, unless the
        enclosing function is host code. Or in active code whose declaration clang could not parse:
        only what may be PTX is taken, and outside a known function it counts as host code, where
        the rules take only spellings no CPU assembly has."""
        t = ft.tokens[idx]
        sp, nm = context(t.offset)
        text = _asm_text(ft, idx)
        ins, regs = parse_asm(text)
        ptx = bool(regs) or any(PTX_OPCODE.fullmatch(i) for i in ins)
        if (switch and (sp == "host" or not ptx)) or (not inactive and not ptx):
            return
        if not inactive:
            sp, nm = (sp if sp != "file" else "host"), (nm or _function_around(ft, idx))
        self.facts.asms.append(
            AsmFact(
                text=text,
                loc=Loc(rel, t.line, t.column),
                context=sp,
                function=nm,
                instructions=ins,
                registers=regs,
                from_inactive_branch=inactive,
                switch=switch,
            )
        )

    def typed_callee(self, name: str) -> bool:
        """Whether a rule reads the argument types of calls to ``name`` (asked per call: the
        patterns are tried once per name)."""
        if "(" + name in self.watched:
            return True
        if name not in self._typed_by_pattern:
            self._typed_by_pattern[name] = any(r.search(name) for r in self._typed_callees)
        return self._typed_by_pattern[name]

    def in_tree(self, header: str) -> bool:
        """Whether a project file bears the included header's file name (cuda-samples' two copies
        of `helper_cuda_drvapi.h` leave the include unresolved, yet the project holds it)."""
        if self._file_names is None:
            self._file_names = {os.path.basename(p) for p in self.project}
        return os.path.basename(header) in self._file_names

    def tag_arch_arms(self, rel: str, ft: FileTokens) -> None:
        """Mark the file's asm statements written in an `<nv/target>` arm for NVIDIA architectures:
        CCCL's macros select no such arm where `__CUDA_ARCH__` is undefined, as in hip-clang's
        passes, so the statement is never compiled for AMD (libcu++'s mbarrier PTX in
        `NV_DISPATCH_TARGET(NV_PROVIDES_SM_90, (...), NV_PROVIDES_SM_80, (...))`)."""
        if not any(a.loc.path == rel for a in self.facts.asms):
            return  # no asm to tag: spare the token pass
        arms = _nv_arch_arms(ft)
        if not arms:
            return
        for k, a in enumerate(self.facts.asms):
            if a.loc.path != rel:
                continue
            at = (a.loc.line, a.loc.column)
            selector = next((sel for start, end, sel in arms if start <= at < end), "")
            if selector:
                self.facts.asms[k] = dataclasses.replace(a, arch_arm=selector)

    def branches(self, rel: str, ft: FileTokens) -> None:
        """Every branch of the file's #if chains, with the conditions that lead to it."""
        chains: dict[int, list] = {}
        for d in ft.directives:
            if d.group >= 0 and d.kind in CONDITIONALS:
                chains.setdefault(d.group, []).append(d)
        for chain in chains.values():
            for k in range(len(chain) - 1):
                d = chain[k]
                if d.kind == "endif":
                    break
                self.facts.branches.append(
                    BranchFact(
                        loc=Loc(rel, d.line, d.column),
                        end_line=chain[k + 1].line,
                        chain=tuple((x.kind, x.text) for x in chain[: k + 1]),
                        chain_line=chain[0].line,
                    )
                )


def token_index(ft: FileTokens, offset: int) -> int:
    lo, hi = 0, len(ft.tokens)
    while lo < hi:
        mid = (lo + hi) // 2
        if ft.tokens[mid].offset < offset:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _paren_arg_spans(ft: FileTokens, i: int) -> tuple[list[tuple[int, int]], int]:
    """The top-level arguments of the parenthesised token group starting at index i, as token
    index ranges (first token, the `,` or `)` that ends it), and the index past the group."""
    toks = ft.tokens
    if i >= len(toks) or toks[i].text != "(":
        return [], i
    depth, start, spans = 0, i + 1, []
    j = i
    while j < len(toks):
        t = toks[j]
        if t.kind == PUNCT and t.text in ("(", "[", "{"):
            depth += 1
        elif t.kind == PUNCT and t.text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                spans.append((start, j))
                return spans, j + 1
        elif t.kind == PUNCT and t.text == "," and depth == 1:
            spans.append((start, j))
            start = j + 1
        j += 1
    return spans, j


def _paren_args(ft: FileTokens, i: int) -> tuple[list[str], int]:
    """Split the parenthesised token group starting at index i into top-level argument texts."""
    spans, end = _paren_arg_spans(ft, i)
    toks = ft.tokens  # an argument's text runs from the delimiter before it to the one after
    texts = (ft.text(toks[a - 1].end, toks[b].offset).strip() for a, b in spans)
    return [a for a in texts if a], end


def _c_symbol(c: ci.Cursor) -> str:
    """A function's symbol: its own name under C linkage, a mangled one under C++'s."""
    try:
        return c.mangled_name or ""
    except (AttributeError, ValueError):
        return ""


def _function_around(ft: FileTokens, i: int) -> str:
    """The name before the parameter list of the function body that token i sits in (`f` of
    `void f(int *p) { for (...) { ... } }`), read from the tokens where the AST lost the
    declaration; bodies of `for`, `if`, `while` and `switch` are passed through outwards."""
    toks = ft.tokens
    j = i
    while True:
        j = _match_back(toks, j - 1, "{", "}", depth=1) - 1  # before the `{` that opens the body
        if j < 0:
            return ""
        k = j
        while k >= 0 and not (toks[k].kind == PUNCT and toks[k].text in (")", ";", "{", "}")):
            k -= 1  # qualifiers between the parameters and the body (`const`, `noexcept`, `@`)
        if k < 0 or toks[k].text != ")":
            return ""
        k = _match_back(toks, k, "(", ")")
        if k >= 1 and toks[k - 1].kind == IDENT:
            return toks[k - 1].text
        j += 1  # a statement's body: look for the one around it


_NV_TARGET_MACROS = frozenset({"NV_IF_TARGET", "NV_IF_ELSE_TARGET", "NV_DISPATCH_TARGET"})
_NV_ARCH_SELECTOR = re.compile(r"NV_PROVIDES_SM_\d+|NV_IS_EXACTLY_SM_\d+|NV_HAS_FEATURE_\w+")


def _nv_arch_arms(ft: FileTokens) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """(start, end, selector) as (line, column) of each `<nv/target>` arm whose selector names
    NVIDIA architectures: the arm after each selector of `NV_DISPATCH_TARGET(q1, (a1), q2, (a2))`,
    the first arm of `NV_IF_TARGET(q, (a)[, (b)])` and `NV_IF_ELSE_TARGET(q, (a), (b))`."""
    toks, arms = ft.tokens, []
    for i, t in enumerate(toks):
        if t.kind != IDENT or t.text not in _NV_TARGET_MACROS:
            continue
        args, _end = _paren_arg_spans(ft, i + 1)
        if t.text != "NV_DISPATCH_TARGET":
            args = args[:2]  # the else arm of NV_IF_TARGET / NV_IF_ELSE_TARGET is what AMD takes
        for (qa, qb), (aa, ab) in zip(args[0::2], args[1::2], strict=False):
            selector = " ".join(x.text for x in toks[qa:qb])
            if aa < ab and _NV_ARCH_SELECTOR.fullmatch(selector):
                arms.append(((toks[aa].line, toks[aa].column), (toks[ab].line, toks[ab].column), selector))
    return arms


def _match_back(toks: list, j: int, open_: str, close: str, depth: int = 0) -> int:
    """Walking back from token j, the `open_` that balances the `close`s met (and ``depth``
    already open); -1 when there is none."""
    while j >= 0:
        if toks[j].text == close:
            depth += 1
        elif toks[j].text == open_:
            depth -= 1
            if depth == 0:
                return j
        j -= 1
    return -1


def _asm_text(ft: FileTokens, i: int) -> str:
    """Concatenated string literals of an asm statement starting at token i (the asm keyword)."""
    toks = ft.tokens
    j = i + 1
    while j < len(toks) and toks[j].text in ("volatile", "__volatile__", "goto", "inline"):
        j += 1
    if j >= len(toks) or toks[j].text != "(":
        return ""
    parts: list[str] = []
    j += 1
    while j < len(toks):
        t = toks[j]
        if t.kind == LITERAL and t.text.endswith('"'):
            parts.append(unquote_c(t.text))
        elif t.kind == PUNCT and t.text in (":", ")"):
            break
        elif t.kind == IDENT:
            parts.append(f"<{t.text}>")  # a macro spelling part of the text
        j += 1
    return "".join(parts)


_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_CONTINUED = re.compile(r"\\\s*\n\s*")  # a macro body's line continuation
MAX_ERROR_FACTS = 400  # per translation unit: a file whose headers are missing has hundreds
_UNMATCHED_SPECIALIZATION = "no function template matches function template specialization"
_DEVICE_REF_DIAG = re.compile(r"reference to __device__ function '([^']+)' in __host__ function")
# member records whose comparisons are read with the `if` they decide (compute capabilities)
GUARDED_RECORDS = frozenset({"cudaDeviceProp", "cudaDeviceProp_t", "hipDeviceProp_t"})


def _is_string(text: str) -> bool:
    """A string literal token (any encoding prefix, raw or not), not a number or character."""
    return text.endswith('"') and '"' in text[:4]


def _argument_type(a: ci.Cursor) -> str:
    """An argument's canonical type; a function template named in a template's body
    (`kernel<T, true>`, whose type is dependent there) reads "function template"."""
    t = a.type.get_canonical().spelling
    if t == "<dependent type>" and a.kind == K.DECL_REF_EXPR:
        target = a.referenced
        if target is not None and target.kind == K.OVERLOADED_DECL_REF:
            target = first_overload(target)
        if target is not None and target.kind in (K.FUNCTION_TEMPLATE, K.FUNCTION_DECL):
            return "function template"
    return t


def compiled_as_c(path: str) -> bool:
    """A translation unit the project's build compiles as C, though the scan parses it as CUDA
    C++: its `#ifdef __cplusplus` blocks and C++-only rules do not apply where it is built."""
    return path.endswith(".c")


def _written_type(a: ci.Cursor) -> str:
    """An argument's canonical type before the implicit conversion to the parameter's type."""
    while a.kind == K.UNEXPOSED_EXPR:
        kids = list(a.get_children())
        if len(kids) != 1 or not kids[0].kind.is_expression():
            break
        a = kids[0]
    return a.type.get_canonical().spelling


def _qualified_at(toks: list, i: int, candidates: list[tuple[str, ...]]) -> list[str]:
    """The watched qualified names spelled from token i (`thrust :: cuda :: par`), shortest
    first: one prefix of another (`cuda::std`, `cuda::std::atomic`) is recorded as each. Only
    from the outermost namespace: `::cuda::atomic` counts, `RAJA::reduce::cuda::atomic` does not."""
    found: list[str] = []
    if i >= 2 and toks[i - 1].text == "::" and toks[i - 2].kind == IDENT:
        return found  # a namespace of the project's own (`RAJA::reduce::cuda::atomic`)
    for parts in sorted(candidates, key=lambda p: (len(p), p)):
        j = i
        for part in parts[1:]:
            # `mgpu::*`: any name of that namespace (a library known by its namespace)
            wild = part == "*" and j + 2 < len(toks) and toks[j + 2].kind == IDENT
            if j + 2 >= len(toks) or toks[j + 1].text != "::" or (toks[j + 2].text != part and not wild):
                break
            j += 2
        else:
            found.append("::".join(parts))
    return found


_ARITH = re.compile(r"[\w)\]]\s*[-+]\s*[\w(]")  # an argument written as a sum or difference


def _span_test(spans: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether an offset lies in one of the (start, end) spans (directive lines)."""
    spans = sorted(spans)
    starts = [s for s, _ in spans]

    def inside(offset: int) -> bool:
        i = bisect.bisect_right(starts, offset) - 1
        return i >= 0 and spans[i][0] <= offset <= spans[i][1]

    return inside


def typedef_names(t: ci.Type, limit: int = 8) -> list[str]:
    """The names a type is spelled through, outermost first, qualifiers dropped: `auto` deduced
    to `Buf::native_type`, then `native_type`'s own `CUdeviceptr`, then `unsigned long long`."""
    names: list[str] = []
    for _ in range(limit):
        name = _strip_type(t.spelling)
        if name and name not in names:
            names.append(name)
        if t.kind == ci.TypeKind.ELABORATED:
            t = t.get_named_type()
            continue
        d = t.get_declaration()
        if d.kind not in (K.TYPEDEF_DECL, K.TYPE_ALIAS_DECL):
            break
        t = d.underlying_typedef_type
    return names


def _leftmost_operand_type(arg: ci.Cursor, watched: frozenset[str] = frozenset()) -> str:
    """The declared type (typedef kept: `CUdeviceptr`, also behind a project alias or `auto`
    when that name is watched) of the variable or member an arithmetic argument starts from,
    through casts and parentheses; "" when it starts elsewhere."""
    c = arg
    for _ in range(8):
        if c.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR):
            spelled = c.type.spelling
            via = next((n for n in typedef_names(c.type) if n in watched), "")
            return spelled.replace(_strip_type(spelled), via) if via else spelled
        kids = list(c.get_children())
        if not kids:
            return ""
        c = kids[0]
    return ""


def _arg_name(text: str) -> str:
    """The function an argument names: `k`, `&k`, `(void *)k<T>`, `ns::k` -> its last name."""
    names = re.findall(r"[A-Za-z_]\w*", re.sub(r"<.*", "", re.sub(r"^\(\s*[\w\s:*]+\)", "", text)))
    return names[-1] if names else ""


def _launch_name(toks: list, i: int):
    """The kernel-name token before ``<<<`` at index i (skipping ``<template args>``)."""
    j = i - 1
    if j >= 0 and toks[j].text == ">":
        j = _match_back(toks, j, "<", ">") - 1
    if j >= 0 and toks[j].kind == IDENT:
        return toks[j]
    return None


def _dim3_init(
    ft: FileTokens, offset: int, name: str, reach: int = 4000
) -> tuple[str, tuple[int, int] | None]:
    """The initializer of the local `dim3 name` declared before ``offset`` (`{ 32u, 8, 1 }`,
    `(32, 8)`) and where the name is declared, read from the tokens; ("", None) when ``name`` is
    no such variable."""
    if not _NAME_TOKEN.fullmatch(name):
        return "", None
    toks = ft.tokens
    j = token_index(ft, offset) - 1
    stop = max(0, j - reach)
    while j > stop:
        if toks[j].text == name and toks[j - 1].text == "dim3" and j + 1 < len(toks):
            depth, k = 0, j + 1
            while k < len(toks):
                x = toks[k].text
                if x in ("(", "[", "{"):
                    depth += 1
                elif x in (")", "]", "}"):
                    depth -= 1
                elif x == ";" and depth <= 0:
                    break
                k += 1
            if k >= len(toks):
                return "", None
            init = ft.text(toks[j + 1].offset, toks[k].offset).strip().lstrip("=").strip()
            return init, (toks[j].line, toks[j].column)
        j -= 1
    return "", None


_NAME_TOKEN = re.compile(r"[A-Za-z_]\w*")


def _launch_config(ft: FileTokens, offset: int) -> tuple[str, ...]:
    i = token_index(ft, offset)
    toks = ft.tokens
    for j in range(i, min(i + 64, len(toks))):
        if toks[j].text == "<<<":
            depth, start, out = 0, toks[j].end, []
            for k in range(j + 1, len(toks)):
                t = toks[k]
                if t.text == ">>>" and depth == 0:
                    out.append(ft.text(start, t.offset).strip())
                    return tuple(out)
                if t.text in ("(", "[", "{"):
                    depth += 1
                elif t.text in (")", "]", "}"):
                    depth -= 1
                elif t.text == "," and depth == 0:
                    out.append(ft.text(start, t.offset).strip())
                    start = t.end
            break
    return ()


STORAGE_WORDS = re.compile(
    r"\b(?:__shared__|__constant__|__device__|__managed__|extern|static|const|volatile|"
    r"inline|__restrict__|constexpr|thread_local|register)\b|__attribute__\(\(.*?\)\)"
)


def _type_spelling(t: ci.Type, spelled: str) -> str:
    """clang's spelling, or the written one where clang fell back to int for an unknown type."""
    if spelled and (
        t.kind == ci.TypeKind.INVALID or (t.spelling in ("int", "int *") and "int" not in spelled)
    ):
        text = " ".join(STORAGE_WORDS.sub(" ", spelled).split())
        return text or t.spelling
    return t.spelling


def _strip_type(spelling: str) -> str:
    s = spelling.replace("const ", "").replace("volatile ", "").replace("&", "").replace("*", "").strip()
    return s.removeprefix("struct ").removeprefix("class ").strip()


def _int_literal(text: str) -> int | None:
    """The value of a C integer literal (`0xffffffffu`, `31`, `0b11`, `1'000`)."""
    t = text.replace("'", "").rstrip("uUlL")
    try:
        return int(t, 0) if not (len(t) > 1 and t[0] == "0" and t[1].isdigit()) else int(t, 8)
    except ValueError:
        return None


def relpath(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


_NOT_DEFINED_NAMES = frozenset({"if", "for", "while", "switch", "return", "sizeof", "decltype", "defined"})


def _enclosing_conditions(ft: FileTokens) -> dict[int, str]:
    """For each conditional directive (by offset), the conditions of the branches it sits in,
    joined with &&: `#if defined(__CUDA_ARCH__)` around `#if __CUDA_ARCH__ < 600`."""
    out: dict[int, str] = {}
    stack: list[list[str]] = []  # per open chain: the conditions of its branches so far
    for d in ft.directives:
        if d.kind not in CONDITIONALS:
            continue
        if d.kind in ("if", "ifdef", "ifndef"):
            out[d.offset] = " && ".join(_branch_condition(c) for c in stack)
            stack.append([_condition(d)])
        elif stack:
            out[d.offset] = " && ".join(_branch_condition(c) for c in stack[:-1])
            if d.kind == "endif":
                stack.pop()
            else:
                stack[-1].append(_condition(d))
    return out


def _condition(d) -> str:
    if d.kind in ("ifdef", "elifdef"):
        return f"defined({d.text})"
    if d.kind in ("ifndef", "elifndef"):
        return f"!defined({d.text})"
    return "1" if d.kind == "else" else _CONTINUED.sub(" ", d.text)


def _branch_condition(chain: list[str]) -> str:
    """The condition under which the chain's latest branch is the one taken."""
    *before, own = chain
    return "(" + " && ".join([f"!({c})" for c in before] + [f"({own})"]) + ")"


def _branch_defines(ft: FileTokens, d) -> tuple[str, ...]:
    """The functions a conditional's own branch defines (not those of branches nested in it), as
    "name(parameters)": a `name (...)` whose closing parenthesis is followed by a body, the name
    not reached through `.` or `->`."""
    later = [x.offset for x in ft.directives if x.group == d.group and x.offset > d.offset]
    start, stop = d.end, (min(later) if later else len(ft.data))
    nested: list[tuple[int, int]] = []  # nested chains, #if to the end of #endif
    for x in ft.directives:
        if start <= x.offset < stop and x.kind in ("if", "ifdef", "ifndef"):
            ends = [y.end for y in ft.directives if y.group == x.group and y.kind == "endif"]
            nested.append((x.offset, ends[0] if ends else stop))
    toks = ft.tokens
    i = token_index(ft, start)
    out: list[str] = []
    n = len(toks)
    while i < n and toks[i].offset < stop:
        t = toks[i]
        if any(a <= t.offset < b for a, b in nested):
            i += 1
            continue
        if (
            t.kind == IDENT
            and t.text not in _NOT_DEFINED_NAMES
            and i + 1 < n
            and toks[i + 1].text == "("
            and not (i > 0 and toks[i - 1].text in (".", "->", "::"))
        ):
            _args, k = _paren_args(ft, i + 1)  # k: past the closing parenthesis
            close = k - 1
            while k < n and toks[k].kind == KEYWORD and toks[k].text in ("const", "noexcept"):
                k += 1
            if (
                close < n
                and toks[close].text == ")"
                and k < n
                and toks[k].text == "{"
                and toks[k].offset < stop
            ):
                out.append(f"{t.text}({ft.text(toks[i + 1].end, toks[close].offset)})")
                i = close
        i += 1
    return tuple(out)
