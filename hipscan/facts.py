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
    # the parameter types with typedefs resolved (`CeedScalar *` -> `double *`), when different
    canonical_params: tuple[str, ...] = ()
    c_linkage: bool = False  # `extern "C"`: callable from C and Fortran (its symbol is its name)


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
    # for an argument written as arithmetic (`ptr + offset`): the type of its leftmost operand as
    # declared (typedefs kept), also where the declaration sits in a header whose facts another
    # translation unit carries ("" for other arguments)
    operand_types: tuple[str, ...] = ()
    # a lane mask kept in a project typedef of a 32-bit integer (`typedef hypre_uint hypre_mask;`,
    # `using bitmask_t = unsigned int;`): argument 0 of a warp-sync intrinsic or `__popc`/`__ffs`,
    # or the variable / return value a ballot's result goes to, has that type; the typedef is
    # where a port widens every such mask at once
    mask_typedef: str = ""
    mask_typedef_loc: Loc | None = None
    # a call written in a project macro's body is placed there; each use of the macro is a
    # related place ("macro use"), so a report shows the lines that expand it
    related: tuple[RelatedLoc, ...] = ()


@dataclass(frozen=True, slots=True)
class LaunchFact:
    """A ``kernel<<<...>>>(...)`` launch; device-side launches are dynamic parallelism."""

    kernel: str
    loc: Loc
    context: str
    function: str
    config: tuple[str, ...] = ()  # grid, block[, shmem[, stream]] texts
    # the block argument's value where it names a local `dim3` (`{ 32u, N_BLOCKS, 1 }` of
    # `const dim3 threads = { 32u, N_BLOCKS, 1 };`), else ""
    block_init: str = ""
    block_at: Loc | None = None  # where that `dim3` is declared, the line a port changes


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
    switch: str = ""  # the project switch that keeps its branch off (`PTX` of `#ifdef PTX`)
    # the `<nv/target>` selector of the arm it is written in when that names NVIDIA architectures
    # (`NV_PROVIDES_SM_80` of `NV_IF_TARGET(NV_PROVIDES_SM_80, (asm(...);))`), which hip-clang never takes
    arch_arm: str = ""


@dataclass(frozen=True, slots=True)
class DeclFact:
    """A variable, field, parameter or typedef with its type as spelled."""

    name: str
    type: str
    loc: Loc
    context: str
    kind: str  # var | field | param | template-param | typedef | enumerator | function (a prototype)
    storage: tuple[str, ...] = ()  # shared | constant | managed | device | extern | static | register
    array_dims: tuple[str, ...] = ()  # texts of each [N]
    init: str = ""  # initializer text, when short (<= 200 chars)
    deduced: bool = False  # a variable declared `auto`: `type` is what clang deduced
    # a local variable the function assigns to or increments after its declaration (recorded for
    # `auto` variables: `for (auto j = threadIdx.x; ...; j += blockDim.x)`)
    written: bool = False


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
class OutValueFact:
    """A value an API call writes through a pointer (`cudaRuntimeGetVersion(&v)`), where the same
    function decodes or compares it against an integer constant (`v / 1000`, `v >= 11020`)."""

    source: str  # the call that wrote it
    var: str
    op: str  # / % < <= > >= == !=
    literal: int
    expr: str  # the binary expression (<= 200 chars)
    loc: Loc  # the use
    context: str
    function: str
    # `*` by 10 or 100 of a compute-capability major number an attribute query wrote: where the SM
    # number it builds goes (hipscan.frontend.smnumber: "nvidia" or "old-gpu")
    sm_number: str = ""


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
    # the project switch that keeps its branch off (`USE_NVTX` of `#ifdef USE_NVTX`): code a
    # team that builds with the switch compiles (see FileTokens.switched)
    switch: str = ""
    in_directive: bool = False  # on a preprocessor directive's lines (`#if`, `#define`)
    # the name is pasted by a project macro (`GPU_PREFIX(Malloc)`, `#define GPU_PREFIX(x)
    # cuda##x`): the prefix it pastes, "" for a name written out
    pasted: str = ""


STRING_MARK = '"'  # no identifier starts with a quote


def watch_strings(patterns: frozenset[str]) -> frozenset[str]:
    """String-literal patterns as entries of the front end's watched set (which also keys the
    facts cache, so a changed pattern re-parses)."""
    return frozenset(STRING_MARK + p for p in patterns)


@dataclass(frozen=True, slots=True)
class StringFact:
    """A string literal in code whose text a rule asks about (an NVRTC option such as
    ``"-arch=compute_80"``, a compiler command line run at run time, a kernel-source prelude).

    Comes from the token stream, like identifiers: it is found also where the parse lost the
    enclosing function, and only literals matching a pattern some rule names are recorded
    (``RuleSet.watched_strings``; they reach the front end inside its set of watched names,
    marked by a leading quote: see ``watch_strings``).
    """

    text: str  # the literal as written, quotes and prefix included
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
    # role arg: the macro the call is written through (`SHFL_DOWN(0xffffffff, v, i)` with
    # `#define SHFL_DOWN __shfl_down_sync`), where a port fixes every such call at once
    callee_macro: str = ""
    # in the condition of a `?:` whose two arms every thread sees alike (hipscan.frontend.uniform):
    # a lane test that only hands lane 0's value to more lanes
    selects_uniform: bool = False
    # in the condition of an `if` with no warp-synchronous call, followed by a block barrier: a step
    # of a block-wide tree reduction (hipscan.frontend.uniform.block_step)
    block_step: bool = False
    # in the condition of an `if` whose body folds through `volatile` memory, or with `__syncwarp`
    # between its steps, and makes no other warp call (hipscan.frontend.uniform.lockstep_fold):
    # lanes in lockstep in a 64-lane wavefront too
    lockstep_fold: bool = False
    # in the condition of an `if` whose only statement is a block barrier, with no `else`
    # (hipscan.frontend.uniform.guards_barrier): the barrier is skipped for some steps
    guards_barrier: bool = False
    # spelled in a macro body (`macro`): the use site, so a finding at the #define lists the
    # lines that expand it (`__any_sync(MASK, p)` for `#define MASK 0xffffffff`)
    related: tuple[RelatedLoc, ...] = ()


@dataclass(frozen=True, slots=True)
class NamedValue:
    """A named integer constant on a chain: a macro, ``const``/``constexpr`` variable, static
    member, enumerator, template parameter or function parameter (its default), where it is
    defined and its value."""

    name: str
    loc: Loc
    value: int
    kind: str  # macro | var | enumerator | template-param | param (a default) | function (its return)
    written: str = ""  # the initialiser or macro body as written (<= 80 chars)


@dataclass(frozen=True, slots=True)
class ConstUseFact:
    """A named integer constant (or a constant expression a rule watches, such as a mask argument
    ``~0u``) used where its value matters, with the syntactic role of the use.

    ``chain`` runs from the name used to where its value is written: ``kLanes`` -> ``kWarpSize``
    -> ``WARP_SIZE`` (last = root). Recorded in any code, host code included (dispatch on a width).
    """

    name: str  # the name used ("" for an unnamed constant expression)
    value: int  # value at the role: `kWarpSize * 6 / 8` -> 24
    loc: Loc
    context: str
    function: str
    # compare | loop-bound | binop | array-dim | init | arg | launch | template-arg | static-assert
    # | subscript | return | other
    role: str
    op: str = ""  # the operator, or the callee / template for arg and template-arg
    index: int = -1  # argument position for arg / template-arg
    other: str = ""  # the other operand, the declared name, or the template's name
    expr: str = ""  # the whole expression around the use (<= 200 chars)
    decl_type: str = ""  # the declared variable's type for init / array-dim, the argument's type
    storage: tuple[str, ...] = ()  # storage of the declared variable (shared, ...)
    chain: tuple[NamedValue, ...] = ()
    guessed: bool = False  # the value is a template parameter's default: other arguments may differ
    callee_macro: str = ""  # role arg: the macro the call is written through (see LiteralFact)
    # role static-assert: the assertion still holds with the width at 64 (`n <= kWarpSize` where
    # n does not grow with the width), decided on the AST by hipscan.frontend.bound
    holds_wider: bool = False


@dataclass(frozen=True, slots=True)
class SubscriptFact:
    """``base[index]`` in device code, where base names a variable or a parameter: how per-lane and
    per-warp storage is indexed, also inside a helper it is passed to."""

    base: str
    param: int  # position of ``base`` among the enclosing function's parameters, -1 otherwise
    index: str  # the index expression's text (<= 80 chars)
    loc: Loc
    context: str
    function: str


@dataclass(frozen=True, slots=True)
class RelatedLoc:
    """A place a finding reaches: a use of the warp-width constant it reports, and its role."""

    path: str
    line: int
    column: int
    role: str

    @classmethod
    def at(cls, loc: Loc, role: str) -> RelatedLoc:
        return cls(loc.path, loc.line, loc.column, role)


@dataclass(frozen=True, slots=True)
class WidthFact:
    """Derived by ``hipscan.analysis.warp``: a warp-width value (32 lanes, its lane mask 31, its
    log2 5, half of it 16, a 32-bit full mask) where it is written (``sink = definition``) or where
    it bites (array dimension, lane comparison, shuffle argument, launch shape, template argument,
    assertion, host dispatch ...), with the root it came from."""

    # definition | array-dim | compare | loop-bound | binop | arg | launch | launch-bounds |
    # template-arg | static-assert | init | other
    sink: str
    value: int  # the value at the sink (derived values included: 24 = 32 * 6 / 8)
    root: str  # the named root ("" for a literal written at the sink)
    root_value: int
    root_loc: Loc | None
    root_kind: str  # macro | var | enumerator | template-param | param | function | literal
    loc: Loc
    context: str
    function: str
    op: str = ""
    index: int = -1
    other: str = ""
    expr: str = ""
    subscript: str = ""  # array-dim: how the array is indexed (lane, warp id ...)
    via: str = ""  # a function the value or buffer is passed through ("" when direct)
    chain: str = ""  # "kLanes <- kWarpSize"
    decl_type: str = ""
    storage: tuple[str, ...] = ()
    beside: tuple[str, ...] = ()  # "sink:op" of the other width uses in the same function
    confidence: str = "high"  # medium through a function argument or a guessed value
    written: str = ""  # the root's value as written ("32", "0xffffffff", "~0u")
    related: tuple[RelatedLoc, ...] = ()  # definition: every use the root reaches; else the root
    callee_macro: str = ""  # sink arg: the macro the call is written through (see LiteralFact)
    holds_wider: bool = False  # sink static-assert: still true with the width at 64


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
    # `major * 10 + minor` (an SM number): "old-gpu" when every comparison it reaches is with a
    # threshold below sm_70, which AMD's 9.x-12.x pass like any recent GPU; "nvidia" otherwise
    sm_number: str = ""


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
class DiagnosticFact:
    """An error clang (and so hipcc) reports on project code, with its notes: a few of clang's
    errors are code nvcc accepts (its parser is more lenient), and the rule files list which.
    ``origin`` "clang" is clang's own diagnostic; "instantiation" is one hipscan states in clang's
    words where clang would report it only when instantiating a template the scan never
    instantiates (``Dep<T>::f<N>(x)`` without ``template``); "hip-types" one hipcc reports because
    HIP's types differ from CUDA's where the parse against CUDA's accepts the code (a designated
    initializer of a vector type, a class with constructors in HIP); "device-callee" clang's
    rejection of a host call placed at the project's `__device__` function it calls."""

    text: str
    notes: tuple[str, ...]
    loc: Loc
    function: str
    origin: str = "clang"
    # the places that led to it when the fact sits elsewhere: the host calls of a project's
    # `__device__` function, reported at the function's declaration, where the port edits
    related: tuple[RelatedLoc, ...] = ()


@dataclass(frozen=True, slots=True)
class IncludeFact:
    name: str  # as written between the quotes/brackets
    loc: Loc
    angled: bool
    resolved: str = ""  # posix path relative to the scan root when inside it, else ""
    c_linkage: bool = False  # written inside an `extern "C" { }` block
    reaches: tuple[str, ...] = ()  # then: the non-project headers it brings in (itself, or its headers')
    in_tree: bool = False  # a file of the project bears the header's name, found or not


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
    # a conditional that tests a device-pass macro (`#if __CUDA_ARCH__ < 700`): the functions its
    # branch defines, as "name(parameters)", so a fallback only old NVIDIA targets compile is known
    defines: tuple[str, ...] = ()
    guard: str = ""  # ... and the conditions of the branches around it, joined with &&
    chain: str = ""  # ... and every directive of its own chain, joined with " ; "


@dataclass(frozen=True, slots=True)
class BuildFact:
    """A line of a build file (CMakeLists.txt, Makefile, setup.py, compile_commands.json)."""

    kind: str  # flag | library | language | architecture | package | extension | cuda-arm ...
    value: str  # e.g. "-rdc=true", "cudadevrt", "CUDA", "sm_80", "CUDAToolkit::cublasLt"
    loc: Loc
    tool: str  # cmake | make | setuptools | compile_commands
    related: tuple[RelatedLoc, ...] = ()  # a cuda-arm fact: the arm's if() line


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
    # config-header templates (`config.h.in`) whose stand-ins the parse read in place of the header
    # the build generates: they key the cache like the files the parse read
    templates: list[str] = field(default_factory=list)
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
    strings: list[StringFact] = field(default_factory=list)
    literals: list[LiteralFact] = field(default_factory=list)
    members: list[MemberRefFact] = field(default_factory=list)
    assigns: list[AssignFact] = field(default_factory=list)
    out_values: list[OutValueFact] = field(default_factory=list)
    uses: list[ConstUseFact] = field(default_factory=list)
    subscripts: list[SubscriptFact] = field(default_factory=list)
    widths: list[WidthFact] = field(default_factory=list)  # derived by hipscan.analysis, not cached
    includes: list[IncludeFact] = field(default_factory=list)
    shared_sizes: list[SharedSizeFact] = field(default_factory=list)
    function_refs: list[FunctionRefFact] = field(default_factory=list)
    clang_errors: list[DiagnosticFact] = field(default_factory=list)
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
