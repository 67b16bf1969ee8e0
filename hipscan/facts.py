"""Plain records the front end extracts from one translation unit.

Every record carries an exact, 1-based location in the file it was *spelled* in (a header's
facts carry the header's path), so rules never need the AST and results can be cached, pickled
across worker processes and de-duplicated when several files include one header.

``context`` is the CUDA execution space of the enclosing function: ``global`` (a kernel),
``device``, ``host-device``, ``host`` or ``file`` (outside any function).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEVICE_CONTEXTS = frozenset({"global", "device", "host-device"})


@dataclass(frozen=True, slots=True)
class Loc:
    path: str  # posix path relative to the scan root (absolute when outside it)
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class FunctionFact:
    """A function definition (kernels, device functions, host functions)."""

    name: str
    qualname: str
    loc: Loc
    end_line: int
    space: str  # global | device | host | host-device
    is_template: bool = False
    # __launch_bounds__(a, b, c) / __cluster_dims__(x, y, z) argument texts, empty when absent
    launch_bounds: tuple[str, ...] = ()
    cluster_dims: tuple[str, ...] = ()
    params: tuple[str, ...] = ()  # parameter types as clang spells them
    result: str = ""  # return type


@dataclass(frozen=True, slots=True)
class CallFact:
    """A call expression, found in the AST (callee resolved, or recovered when undeclared)."""

    callee: str  # unqualified name as spelled
    qualname: str  # e.g. "cooperative_groups::this_grid" when known, else == callee
    loc: Loc  # spelling location of the callee name (exact inside macro arguments)
    context: str
    function: str  # enclosing function's name, "" at file scope
    args: tuple[str, ...] = ()  # source text of each argument
    result_type: str = ""  # declared type of the variable the result initialises/assigns, if any
    member_of: str = ""  # for method calls (obj.f()), the object's type spelling
    # for method calls: each argument's canonical type (typedefs resolved; a template parameter
    # reads "type-parameter-0-0"), e.g. what a cooperative-groups shuffle is asked to move
    arg_types: tuple[str, ...] = ()
    const_args: tuple[int, ...] = ()  # indices of integer-constant arguments (watched callees)


@dataclass(frozen=True, slots=True)
class LaunchFact:
    """A ``kernel<<<...>>>(...)`` launch; device-side launches are dynamic parallelism."""

    kernel: str
    loc: Loc
    context: str
    function: str
    config: tuple[str, ...] = ()  # grid, block[, shmem[, stream]] texts


@dataclass(frozen=True, slots=True)
class AsmFact:
    """An inline ``asm`` statement; ``instructions`` are the PTX/x86 opcodes parsed from its text."""

    text: str
    loc: Loc
    context: str
    function: str
    instructions: tuple[str, ...] = ()  # e.g. ("mov.u32",), operands stripped
    registers: tuple[str, ...] = ()  # special registers named, e.g. ("%laneid",)
    from_inactive_branch: bool = False  # found by the token fallback in a preprocessor-skipped block


@dataclass(frozen=True, slots=True)
class DeclFact:
    """A variable, field, parameter or typedef with its type as spelled."""

    name: str
    type: str
    loc: Loc
    context: str
    kind: str  # var | field | param | template-param | typedef | enumerator | function (a prototype)
    storage: tuple[str, ...] = ()  # shared | constant | managed | device | extern | static
    array_dims: tuple[str, ...] = ()  # texts of each [N]
    init: str = ""  # initializer text, when short (<= 200 chars)


@dataclass(frozen=True, slots=True)
class AssignFact:
    """An assignment (``=``, ``+=``, ...) to an lvalue of a watched type (``CUdeviceptr``): the
    driver API's integer handles become pointers in HIP, and what is stored in them matters."""

    op: str
    lhs_type: str
    rhs_type: str  # the right-hand side's own type, before any implicit conversion
    rhs: str  # its text, when short (<= 200 chars)
    loc: Loc  # where the assigned-to expression starts
    context: str
    function: str


@dataclass(frozen=True, slots=True)
class IdentFact:
    """A use of a watched identifier token (API names, types, enum values, macros) in code.

    Comes from the token stream, so it is never inside a comment or string literal, and never
    inside a preprocessor-inactive block (unless ``from_inactive_branch``).
    """

    name: str
    loc: Loc
    context: str
    function: str
    from_inactive_branch: bool = False


@dataclass(frozen=True, slots=True)
class LiteralFact:
    """An integer literal in device code with the expression it sits in (warp-size analysis)."""

    value: int
    spelling: str  # as written: "32", "0xffffffff", "31u"
    loc: Loc
    context: str
    function: str
    role: str  # binop | compare | array-dim | loop-bound | arg | init | other
    op: str = ""  # the binary/compound operator ("&", ">>", "%", "/", "<", "&=", ...) or callee for arg
    other: str = ""  # source text of the other operand / the callee / the declared name
    other_type: str = ""  # type of the other operand, when known
    # spelled in the body of this project macro: `loc` is then the #define (where the value is
    # written, and fixed, once), `written` the literal's text there (`spelling` stays the macro
    # name the use site shows)
    macro: str = ""
    written: str = ""
    expr: str = ""  # the whole expression the literal sits in (up to the statement), ≤ 200 chars


@dataclass(frozen=True, slots=True)
class MemberRefFact:
    """``obj.member`` where the object's type is known (e.g. ``cudaDeviceProp.major``)."""

    member: str
    record: str  # type of the object, e.g. "cudaDeviceProp"
    loc: Loc
    context: str
    function: str
    expr: str = ""  # text of the enclosing comparison/condition, if any
    # when the comparison is (part of) an `if` condition: "if (COND) THEN[ else ELSE]", the
    # branches when short (a check that only rejects old GPUs reads `{ ...; exit(EXIT_WAIVED); }`)
    guard: str = ""


@dataclass(frozen=True, slots=True)
class SharedSizeFact:
    """A shared-memory size a kernel asks for, valued by clang's constant evaluation where it can.

    ``kind``: ``static`` (a ``__shared__`` variable of a fixed size, in ``function``),
    ``dynamic-attribute`` (``cudaFuncSetAttribute(k, ...MaxDynamicSharedMemorySize, expr)``),
    ``launch`` (the third ``<<<>>>`` argument), ``opt-in`` (``if (expr >= 48 * 1024)``: a size
    tested against the 48 KiB default, which only opt-in code does).
    """

    kind: str
    kernel: str  # the kernel it is for ("" when the code does not say: static, opt-in)
    expr: str  # the size expression as written (the variable's type for ``static``)
    value: int | None  # bytes; None when clang could not evaluate it (a template, a run-time value)
    loc: Loc
    context: str
    function: str
    macro: str = ""  # the project macro the call is written in (CUDA_SET_SHARED_MEMORY_LIMIT(k, n))


@dataclass(frozen=True, slots=True)
class FunctionRefFact:
    """A `__device__` function named as a value (its address taken) in host code: nvcc accepts
    it, clang (and so hipcc) rejects a reference to a device function from a host function.
    Taken from clang's diagnostic for it, which is exactly the check hipcc makes."""

    name: str  # the referenced function
    space: str  # its execution space (device)
    loc: Loc
    context: str  # host (where the reference is)
    function: str


@dataclass(frozen=True, slots=True)
class IncludeFact:
    name: str  # as written between the quotes/brackets
    loc: Loc
    angled: bool
    resolved: str = ""  # posix path relative to the scan root when inside it, else ""


@dataclass(frozen=True, slots=True)
class BranchFact:
    """One branch of a preprocessor conditional chain: where it starts and ends, and the
    conditions that select it, so code a project already keeps out of a HIP build is known."""

    loc: Loc  # the branch's own directive (#if, #elif, #else ...)
    end_line: int  # the chain's next directive (#elif, #else, #endif)
    chain: tuple[tuple[str, str], ...]  # (kind, text) of the chain's directives up to this one
    chain_line: int = 0  # the line of the chain's #if


@dataclass(frozen=True, slots=True)
class DirectiveFact:
    """A preprocessor conditional or definition: ``#if __CUDA_ARCH__ >= 700`` and the like."""

    kind: str  # if | elif | ifdef | ifndef | define | pragma
    text: str  # the directive's tokens after the keyword, space-joined
    loc: Loc
    names: tuple[str, ...] = ()  # identifiers in the directive


@dataclass(frozen=True, slots=True)
class BuildFact:
    """A line of a build file (CMakeLists.txt, Makefile, setup.py, compile_commands.json)."""

    kind: str  # flag | library | language | architecture | package | extension
    value: str  # e.g. "-rdc=true", "cudadevrt", "CUDA", "sm_80", "CUDAToolkit::cublasLt"
    loc: Loc
    tool: str  # cmake | make | setuptools | compile_commands


@dataclass(slots=True)
class FileFacts:
    """Everything extracted from one parsed source file (and the headers it brought in)."""

    path: str  # the main file of the translation unit
    status: str = "ok"  # ok | parse-errors | skipped: <why> | error: <why>
    diagnostics: list[str] = field(default_factory=list)  # first few parse errors, "path:l:c: msg"
    error_count: int = 0
    lines: int = 0
    parse_seconds: float = 0.0
    mode: str = "shim"
    # parse errors located in project headers this TU read: a header's status is its own
    header_diagnostics: dict[str, list[str]] = field(default_factory=dict)
    header_error_counts: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)  # project files whose facts this TU carries
    inputs: list[str] = field(default_factory=list)  # every project file the parse read
    # per project file the parse read: which of its #if branches were active (a digest of the
    # skipped ranges, "" when none). A header's facts are taken once per distinct configuration.
    configs: dict[str, str] = field(default_factory=dict)
    functions: list[FunctionFact] = field(default_factory=list)
    calls: list[CallFact] = field(default_factory=list)
    launches: list[LaunchFact] = field(default_factory=list)
    asms: list[AsmFact] = field(default_factory=list)
    decls: list[DeclFact] = field(default_factory=list)
    idents: list[IdentFact] = field(default_factory=list)
    literals: list[LiteralFact] = field(default_factory=list)
    members: list[MemberRefFact] = field(default_factory=list)
    assigns: list[AssignFact] = field(default_factory=list)
    includes: list[IncludeFact] = field(default_factory=list)
    shared_sizes: list[SharedSizeFact] = field(default_factory=list)
    function_refs: list[FunctionRefFact] = field(default_factory=list)
    directives: list[DirectiveFact] = field(default_factory=list)
    branches: list[BranchFact] = field(default_factory=list)
    builds: list[BuildFact] = field(default_factory=list)
    # names the project itself declares in any file this TU saw (also headers whose facts another
    # TU carries), so a project function named like a CUDA API is not taken for one
    declared: set[str] = field(default_factory=set)
    # per carried project header: byte ranges inside function bodies (not constexpr/auto; the
    # directives a body holds stay) that later parses may blank out, as its facts are taken
    bodies: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # per project file: {line: set of suppressed rule ids ("*" = all)} from `hipscan: ignore[...]`
    suppressions: dict[str, dict[int, frozenset[str]]] = field(default_factory=dict)
