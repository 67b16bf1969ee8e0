"""Rule-file schema: one TOML file -> validated rule fields, or a ``RuleFileError``.

Validation is strict on purpose: a misspelt key in a rule file would otherwise silently widen
or disable a rule, and a portability gate must not drift without anyone noticing.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

from hipscan.facts import DEVICE_CONTEXTS
from hipscan.model import CONFIDENCES, EFFORT_CLASSES, SEVERITIES

# The categories of design.md ("extend the list only by adding").
CATEGORIES = (
    "dynamic-parallelism",
    "texture-reference",
    "texture-object",
    "surface",
    "inline-asm",
    "warp-size",
    "warp-sync",
    "independent-thread-scheduling",
    "cooperative-groups",
    "cuda-graphs",
    "driver-api-jit",
    "nvrtc",
    "unified-memory",
    "ipc-peer",
    "launch-bounds",
    "shared-memory-limit",
    "hopper",
    "tensor-core",
    "library",
    "low-precision",
    "timers",
    "system-atomics",
    "symbols",
    "arch-version",
    "graphics-interop",
    "unmapped-api",
    "build-system",
)

CONTEXTS = ("global", "device", "host-device", "host", "file")
# Shorthand accepted in `context`: every execution space that runs on the GPU.
CONTEXT_ALIASES = {"device-code": tuple(sorted(DEVICE_CONTEXTS))}

API_STATUSES = (
    "unsupported",  # neither a HIP nor a roc* name
    "cuda-deprecated",
    "cuda-removed",
    "hip-deprecated",  # deprecated in HIP at or before the target ROCm version
    "hip-removed",  # removed from HIP at or before the target ROCm version
    "hip-experimental",  # experimental in HIP at the target ROCm version
    "hip-newer",  # HIP gained it after the target ROCm version
    "hipify-unmapped",  # no HIPIFY mapping, but HIP has a counterpart (hand_mapped.csv)
    "roc-only",  # no HIP name, a roc* library twin (MIOpen for cuDNN, rocBLAS for some cuBLAS)
    # a name a project macro pastes (`GPU_PREFIX(PointerAttributes)`) whose HIP name is not the
    # pasted suffix behind the HIP prefix (`hipPointerAttribute_t`)
    "paste-renamed",
)

ID_RE = re.compile(r"^HIP\d{3,4}$")
NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class RuleFileError(ValueError):
    """A malformed rule file: names the file and the offending key."""

    def __init__(self, path: str | Path, key: str, message: str):
        self.path = str(path)
        self.key = key
        self.message = message
        super().__init__(f"{self.path}: {key}: {message}")


# ---- value kinds ---------------------------------------------------------------------------


def _strs(v: Any) -> tuple[str, ...] | None:
    if isinstance(v, str):
        return (v,)
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return tuple(v)
    return None


def _ints(v: Any) -> tuple[int, ...] | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return (v,)
    if isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return tuple(v)
    return None


def _regex(v: Any) -> re.Pattern[str] | None:
    if not isinstance(v, str):
        return None
    return re.compile(v)


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _bool(v: Any) -> bool | None:
    return v if isinstance(v, bool) else None


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


_KINDS = {
    "strs": (_strs, "a string or a list of strings"),
    "ints": (_ints, "an integer or a list of integers"),
    "regex": (_regex, "a regular expression string"),
    "int": (_int, "an integer"),
    "bool": (_bool, "true or false"),
    "str": (_str, "a string"),
}

# Keys of an argument condition: `arg = [{index = 0, regex = "..."}]` (calls) and
# `config = [...]` (launch configuration).
ARG_KEYS = {
    "index": "int",
    "regex": "regex",
    "not_regex": "regex",
    "int_gt": "int",
    "int_le": "int",
    "decl_type_regex": "regex",  # the argument names a declaration of this TU with this type
    "not_decl_type_regex": "regex",
    "decl_init_regex": "regex",  # ... whose initializer text matches
    "decl_storage": "strs",  # ... which has one of these storage classes
    "not_decl_storage": "strs",  # ... which is declared here and has none of these
    "constant": "bool",  # the argument is (or is not) an integer constant (watched callees)
    "type_regex": "regex",  # the argument's own type (recorded for method calls), canonical
    "not_type_regex": "regex",
    # "nvrtcGetPTX:1": skip when the argument names what the enclosing function passes as that
    # argument of that callee (a buffer the call filled, reported where it is filled)
    "not_filled_by": "strs",
}

# Keys every match block accepts.
COMMON_KEYS = {
    "fact": "str",
    "context": "strs",
    "not_context": "strs",
    "inactive": "bool",  # also match facts from preprocessor-inactive branches
    "switch": "bool",  # match (only) facts from branches a project switch keeps off
    # also match facts from branches a project switch keeps off, at medium confidence at most
    "also_switched": "bool",
    "confidence": "str",  # overrides the rule's confidence for this block
    "function_regex": "regex",  # enclosing function name
    "function_calls": "strs",  # the enclosing function also calls one of these
    "not_function_calls": "strs",
    # skip when the enclosing function uses one of these names (a call or a watched identifier),
    # e.g. tests the error code that says the call's caveat was met
    "not_function_uses": "strs",
    # skip when every call to a `width_arg` callee ("callee:index" of its width argument) in the
    # enclosing function passes an explicit width of at most this many lanes (a sub-group)
    "unless_width_le": "int",
    "width_arg": "strs",
    "in_callback_of": "strs",  # "cudaLaunchHostFunc:1": enclosing function is passed there
    "unless_file_calls": "strs",  # the translation unit names none of these functions anywhere
    # "__syncthreads:2": skip when the enclosing function calls it on the fact's line or within
    # that many lines after (a block-wide reduction step, not warp-synchronous code)
    "unless_followed_by": "strs",
    # skip in functions that split the block into cooperative-groups tiles (`tile_templates`,
    # e.g. tiled_partition) of at most this many lanes: lane math there is the tile's
    "unless_tile_le": "int",
    "tile_templates": "strs",
    "path_regex": "regex",
    # the translation unit also uses one of these names (a call, a watched identifier, or a
    # member read in an expression): e.g. the device clock rate that turns cycles into time
    "tu_uses": "strs",
    "not_tu_uses": "strs",
    # skip when the translation unit includes a header whose name matches (where a rule on the
    # include already reports, and where a port fixes every use at once)
    "unless_tu_includes_regex": "regex",
}

FACT_KEYS: dict[str, dict[str, str]] = {
    "call": {
        "callee": "strs",
        "callee_regex": "regex",
        "qualname_regex": "regex",
        "args_regex": "regex",
        "arg_count_min": "int",
        "arg_count_max": "int",
        "arg": "args",
        "member_of_regex": "regex",
        "method": "bool",  # called through an object (`obj.f()`, `ptr->f()`), or not
        "result_type_regex": "regex",
        # a lane mask of the call is kept in a project typedef of a 32-bit integer so named
        "mask_typedef_regex": "regex",
        "not_mask_typedef_regex": "regex",
        # HIP's twin (default_args.csv) needs more arguments than the call passes: CUDA fills the
        # rest from defaults HIP does not declare (quiet from the release whose HIP has them)
        "hip_needs_more_args": "bool",
        # an argument's canonical type (typedefs resolved) matches: the front end keeps the
        # argument types of the callees such a block names
        "arg_types_regex": "regex",
    },
    "launch": {
        "kernel_regex": "regex",
        "config": "args",
        # the launched kernel (defined in this translation unit) makes a call whose name matches:
        # its callee, its qualified name, or `type.callee` for a method (`grid_group.sync`)
        "kernel_calls_regex": "regex",
        # ... or one the functions it calls make, a few calls deep (wmma calls in device helpers)
        "kernel_reaches_regex": "regex",
        # the block argument, or the initializer of the local dim3 it names, matches
        "block_regex": "regex",
    },
    "asm": {
        "instruction_prefix": "strs",
        "instruction_regex": "regex",
        "register": "strs",
        "text_regex": "regex",
    },
    "decl": {
        "name_regex": "regex",
        "type_regex": "regex",
        "not_type_regex": "regex",
        "storage": "strs",  # any of these
        "storage_all": "strs",  # all of these
        "kind": "strs",
        "init_regex": "regex",
        "api_library": "strs",  # the declared name is an API-table name of one of these libraries
        "deduced": "bool",  # a variable declared `auto` (its type deduced from the initializer)
        "written": "bool",  # (with deduced) the function assigns to it or increments it later
    },
    "ident": {
        "name": "strs",  # exact names: the front end records only watched names
        "unless_in_function": "strs",  # ... and none of these names is used in the same function
        # only where the parse lost the enclosing function (an out-of-line member of a class
        # whose header is missing) and no call of that name is on the line; the call block of the
        # same rule covers the rest
        "lost_call": "bool",
        # only a use in code, not one on a preprocessor directive's lines (`#if CUDA_VERSION`)
        "code_only": "bool",
        # not where the project defines or declares the name itself (`#define CUDAAPI`)
        "unless_project_defines": "bool",
    },
    # a string literal matching text_regex (the front end records only literals that match a
    # pattern some rule names): option strings and command lines compiled or run at run time
    "string": {"text_regex": "regex", "not_text_regex": "regex"},
    "literal": {
        "value": "ints",
        "op": "strs",
        "role": "strs",
        "other_regex": "regex",
        "not_other_regex": "regex",
        "other_type_regex": "regex",
        "spelling_regex": "regex",
        "expr_regex": "regex",  # the whole expression around the literal
        "not_expr_regex": "regex",  # the whole expression around the literal must not match
        "callee_macro": "bool",  # role arg: the call is written through a macro naming the callee
        # quiet when the literal is in a `?:` condition whose arms are thread-invariant
        "unless_selects_uniform": "bool",
        # quiet when the literal decides an `if` that is one step of a block-wide tree reduction
        "unless_block_step": "bool",
        "unless_lockstep_fold": "bool",
        "guards_barrier": "bool",  # the comparison decides whether a block barrier runs
    },
    "member": {
        "member": "strs",
        "record_regex": "regex",
        "expr_regex": "regex",
        "not_guard_regex": "regex",  # the `if` the comparison decides ("if (COND) THEN else ELSE")
        "anywhere": "bool",  # also where it is only read (assigned, passed), not compared
        "sm_number": "strs",  # `major * 10 + minor`: old-gpu | nvidia (see MemberRefFact)
    },
    # derived by hipscan.analysis.warp: a warp-width value where it is written or where it bites
    "width": {
        "sink": "strs",  # definition | array-dim | compare | loop-bound | binop | arg | launch | ...
        "value": "ints",  # the value at the sink
        "root_value": "ints",  # the value where the root writes it
        "root_kind": "strs",  # macro | var | enumerator | template-param | param | function | literal
        "root_regex": "regex",  # the root's name
        "not_root_regex": "regex",
        "derived": "bool",  # the value at the sink differs from the root's (kWarpSize * 6 / 8)
        "op": "strs",
        "op_regex": "regex",
        "index": "ints",  # argument position (arg, launch)
        "other_regex": "regex",
        "not_other_regex": "regex",
        "expr_regex": "regex",
        "not_expr_regex": "regex",
        "subscript_regex": "regex",  # array-dim: an index expression of the array
        "through_call": "bool",  # the array reaches its subscript through a function argument
        "decl_type_regex": "regex",
        "not_decl_type_regex": "regex",
        "storage": "strs",
        "beside_regex": "regex",  # another warp-width use in the same function ("role other op value")
        "reaches_regex": "regex",  # definition: one of its uses' roles ("argument 0 of __shfl_sync")
        "not_reaches_regex": "regex",  # definition: none of its uses' roles
        "uses_min": "int",  # definition: at least this many uses
        "holds_wider": "bool",  # static-assert: the assertion still holds with the width at 64
        "callee_macro": "bool",  # sink arg: the call is written through a project macro (HIP354's)
    },
    "assign": {
        "lhs_type": "strs",  # exact type names: the front end records only watched ones
        "op": "strs",
        "rhs_type_regex": "regex",
        "not_rhs_type_regex": "regex",
        "rhs_regex": "regex",
        "not_rhs_regex": "regex",
    },
    "out_value": {
        "source": "strs",  # the calls whose written value is followed: the front end records only these
        "op": "strs",
        "literal_ge": "int",  # the constant's magnitude is at least this
        # an SM number built from a major number an attribute query wrote: where it goes
        "sm_number": "strs",
    },
    "include": {
        "name": "strs",
        "name_regex": "regex",
        "angled": "bool",
        "project": "bool",  # the header resolves to a file of the scanned project (or not)
        "in_tree": "bool",  # a file of the project bears the header's name, resolved or not
        "c_linkage": "bool",  # written inside an `extern "C" { }` block (or not)
        "c_unit": "bool",  # the translation unit is a `.c` file the build compiles as C (or not)
        # one of the non-project headers it brings in (itself, or its project headers' includes)
        "reaches_regex": "regex",
    },
    "directive": {
        "kind": "strs",
        "text_regex": "regex",
        "not_text_regex": "regex",
        "names": "strs",
        # the directive names a project macro defined only under a test of the CUDA compiler
        # (RuleOptions.nvcc_only) instead of one of `names`
        "names_nvcc_only": "bool",
        # ... and only in a file that defines the macro itself (elsewhere the fix is its #define)
        "defined_in_same_file": "bool",
        # ["__CUDA_ARCH__=800"]: only conditions whose truth differs between a build with these
        # macros and one without them (or that cannot be evaluated)
        "diverges_without": "strs",
        # a #define whose macro the project names somewhere else (an alias no code expands
        # compiles to nothing)
        "macro_used": "bool",
        # a conditional on a device-pass macro whose branch defines a function matching this
        # ("atomicAdd(__half *address, __half val)")
        "defines_regex": "regex",
        # no directive of its chain, nor of the branches around it, matches this (a project's own
        # ROCm branch beside the one a HIP build skips)
        "not_chain_regex": "regex",
        # ["__CUDA_ARCH__=600"]: the condition holds in a build with these values ...
        "selected_with": "strs",
        # ... and fails where these macros are not defined (hip-clang's passes)
        "off_without": "strs",
    },
    "build": {"kind": "strs", "value_regex": "regex", "tool": "strs"},
    "function": {
        "space": "strs",
        "name_regex": "regex",
        "qualname_regex": "regex",  # the qualified name (`atomicMax` at global scope, `ns::f`)
        "attribute": "str",  # launch_bounds | cluster_dims: present
        "attribute_args_min": "int",
        "attribute_arg_index": "int",
        "attribute_arg_gt": "int",
        "attribute_arg_not_regex": "regex",  # the argument at attribute_arg_index must not match
        "attribute_arg_regex": "regex",  # the argument at attribute_arg_index must match
        # the first argument (threads per block) is not an integer constant >= this
        "attribute_arg0_below": "int",
        "params_regex": "regex",  # the parameter types, joined with ", "
        "c_linkage": "bool",  # declared `extern "C"` (or not)
        "result_regex": "regex",  # the return type
        "overload_params_regex": "regex",  # another function of the same name has such params
        # the translation unit's calls of the function are the finding's related locations
        # (each use of a colliding operator is a line that stops compiling)
        "list_calls": "bool",
        # the translation unit calls a function of this name (an operator that only fails where
        # it is used: an unused one compiles); judged only for a definition in the unit's main
        # file, since a header's users may be other units
        "used": "bool",
        # the defined function's name is an API-table name of one of these libraries with a HIP
        # counterpart: the project defines (interposes) the CUDA API itself
        "api_library": "strs",
    },
    "function_ref": {"name_regex": "regex"},  # a device function named as a value in host code
    # an error clang reports (or would report on instantiation) where nvcc accepts the code
    "diagnostic": {"text_regex": "regex", "note_regex": "regex", "origin": "strs"},
    "smem": {  # shared-memory budgets (hipscan.analysis.smem)
        "kind": "strs",  # dynamic-attribute | launch | static | opt-in
        "over_lds": "bool",  # exceeds the LDS of at least one AMD target in scope (or fits all)
        "evaluated": "bool",  # the size is known (or could not be evaluated)
        "not_expr_regex": "regex",  # the size as written must not match
    },
    "api": {
        "api_status": "str",
        "library": "strs",
        "not_library": "strs",
        "api_kind": "strs",
        "skip_claimed": "bool",  # skip names a more specific rule already covers (default true)
    },
}

# Placeholders a message can use, per fact kind ({match} is the fact's main text everywhere).
PLACEHOLDERS: dict[str, frozenset[str]] = {
    "call": frozenset(
        {"callee", "qualname", "args", "arg", "arg_count", "member_of", "result_type"}
        | {"hip_name", "hip_min_args", "fixed_in"}
    ),  # arg: the one `arg` tests; hip_*: with hip_needs_more_args
    "launch": frozenset({"kernel", "config", "grid", "block", "shmem"}),
    "asm": frozenset({"text", "instruction", "instructions", "register", "registers", "switch"}),
    "decl": frozenset({"name", "type", "kind", "storage", "init", "array_dims"}),
    "ident": frozenset({"name"}),
    "literal": frozenset(
        {"value", "spelling", "written", "macro", "role", "op", "other", "other_type", "expr"}
    ),
    "member": frozenset({"member", "record", "expr"}),
    "width": frozenset(
        {
            "sink",
            "value",
            "root",
            "root_value",
            "root_kind",
            "root_at",
            "op",
            "index",
            "other",
            "expr",
            "subscript",
            "via",
            "chain",
            "decl_type",
            "written",
            "uses",
            "from_root",
        }
    ),
    "assign": frozenset({"op", "lhs_type", "rhs_type", "rhs"}),
    "out_value": frozenset({"name", "source", "var", "op", "literal", "expr"}),
    "string": frozenset({"text"}),
    "include": frozenset({"name", "resolved", "reached"}),
    "directive": frozenset({"kind", "text", "names", "define"}),
    "build": frozenset({"kind", "value", "tool"}),
    "function": frozenset(
        {
            "name",
            "qualname",
            "space",
            "launch_bounds",
            "cluster_dims",
            "attribute_args",
            "attribute_arg0",
            "params",
            "result",
            "overload_params",
        }
    ),
    "function_ref": frozenset({"name", "space"}),
    "diagnostic": frozenset({"text", "notes", "name"}),
    "smem": frozenset({"kind", "kernel", "bytes", "kib", "expr", "how", "targets", "lds", "fits"}),
    "api": frozenset(
        {
            "versioned_by",
            "name",
            "hip_name",
            "roc_name",
            "replacement",
            "library",
            "api_kind",
            "hip_added",
            "hip_deprecated",
            "hip_removed",
            "hip_experimental",
            "cuda_deprecated",
            "cuda_removed",
            "rocm_version",
            "pasted_hip",  # paste-renamed: the name a HIP arm of the macro would build
        }
    ),
}
_ALWAYS = frozenset({"match", "context", "function", "path", "line", "column"})
_ARGN = re.compile(r"^arg\d(_type)?$")  # {arg0}, and {arg0_type} where types are recorded

RULE_KEYS = {
    "id": ("str", True),
    "name": ("str", True),
    "category": ("str", True),
    "severity": ("str", True),
    "confidence": ("str", True),
    "title": ("str", True),
    "message": ("str", True),
    "explanation": ("str", True),
    "remediation": ("str", True),
    "hipify": ("str", True),
    "effort": ("str", True),
    "match": ("match", True),
    "fix": ("str", False),
    "references": ("strs", False),
    "example_cuda": ("str", False),
    "example_hip": ("str", False),
    "tags": ("strs", False),
    "claims": ("strs", False),  # extra names an API-table rule must leave to this rule
    "claims_regex": ("regex", False),  # ... and every name this matches in full
    "fallback": ("bool", False),  # dropped where another rule fires on the same line
    "once_per_line": ("bool", False),  # report only the first match of a line
    "once_per_file": ("bool", False),  # report only the first match of a file
    # one finding per file and {name}: the later uses of that name are its related locations
    # (a missing intrinsic a port defines once, or replaces use by use)
    "once_per_name": ("bool", False),
    "once_per_chain": ("bool", False),  # only the first branch of an #if chain that matches
    "fixed_in_rocm": ("str", False),  # stops applying when the target ROCm is at least this
    # a finding only where the HIP build compiles the line: quiet in every branch it skips, also
    # one with no other branch to take (a project definition that would collide with HIP's)
    "hip_compiled_only": ("bool", False),
    # the finding is that a HIP build skips the code: not quieted where it does (nested in a
    # branch only nvcc's device pass compiles)
    "reports_hip_skip": ("bool", False),
    # not reported in a PyTorch extension, whose build (torch.utils.cpp_extension) already does
    # what the rule asks; the rule's explanation says what that is
    "quiet_in_torch_extension": ("bool", False),
    # not reported where the project's build files define one of these macros (`-DNAME`,
    # add_compile_definitions): the build already does what the rule asks
    "unless_build_defines": ("strs", False),
    # off unless selected by id, name, category or tag (`--select`): a note most ports never act on
    "default_enabled": ("bool", False),
}


@dataclass(frozen=True)
class ArgCond:
    index: int
    regex: re.Pattern[str] | None = None
    not_regex: re.Pattern[str] | None = None
    int_gt: int | None = None
    int_le: int | None = None
    decl_type_regex: re.Pattern[str] | None = None
    not_decl_type_regex: re.Pattern[str] | None = None
    decl_init_regex: re.Pattern[str] | None = None
    decl_storage: tuple[str, ...] = ()
    not_decl_storage: tuple[str, ...] = ()
    type_regex: re.Pattern[str] | None = None
    not_type_regex: re.Pattern[str] | None = None
    constant: bool | None = None
    not_filled_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class MatchSpec:
    """One declarative match block; ``conds`` holds the validated kind-specific keys."""

    fact: str
    contexts: frozenset[str] = frozenset()
    not_contexts: frozenset[str] = frozenset()
    inactive: bool = False
    confidence: str | None = None
    conds: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.conds.get(key, default)


def _check_placeholders(text: str, allowed: frozenset[str], where: str, path: Path, key: str):
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    except ValueError as e:
        raise RuleFileError(path, key, f"bad placeholder syntax: {e}") from None
    for f in fields:
        base = re.split(r"[.\[!:]", f, maxsplit=1)[0]
        if not base:
            raise RuleFileError(path, key, "empty placeholder {} (write {{ for a brace)")
        if base in allowed or base in _ALWAYS or (where == "call" and _ARGN.match(base)):
            continue
        raise RuleFileError(path, key, f"placeholder {{{base}}} is not available for fact = {where!r}")


def _parse_args(value: Any, path: Path, key: str) -> tuple[ArgCond, ...]:
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise RuleFileError(path, key, "must be a table or a list of tables")
    out = []
    for i, table in enumerate(value):
        sub = f"{key}[{i}]"
        kw: dict[str, Any] = {}
        for k, v in table.items():
            if k not in ARG_KEYS:
                raise RuleFileError(path, f"{sub}.{k}", "unknown key")
            conv, what = _KINDS[ARG_KEYS[k]]
            try:
                parsed = conv(v)
            except re.error as e:
                raise RuleFileError(path, f"{sub}.{k}", f"bad regular expression: {e}") from None
            if parsed is None:
                raise RuleFileError(path, f"{sub}.{k}", f"must be {what}")
            kw[k] = parsed
        if "index" not in kw:
            raise RuleFileError(path, f"{sub}.index", "missing required key")
        out.append(ArgCond(**kw))
    return tuple(out)


def _parse_contexts(value: tuple[str, ...], path: Path, key: str) -> frozenset[str]:
    out: set[str] = set()
    for c in value:
        if c in CONTEXT_ALIASES:
            out.update(CONTEXT_ALIASES[c])
        elif c in CONTEXTS:
            out.add(c)
        else:
            allowed = ", ".join((*CONTEXTS, *CONTEXT_ALIASES))
            raise RuleFileError(path, key, f"unknown context {c!r} (one of: {allowed})")
    return frozenset(out)


def parse_match(table: Any, path: Path, key: str) -> MatchSpec:
    if not isinstance(table, dict):
        raise RuleFileError(path, key, "must be a table")
    fact = table.get("fact")
    if fact not in FACT_KEYS:
        raise RuleFileError(path, f"{key}.fact", f"must be one of: {', '.join(FACT_KEYS)}")
    allowed = {**COMMON_KEYS, **FACT_KEYS[fact]}
    conds: dict[str, Any] = {}
    spec_kw: dict[str, Any] = {"fact": fact}
    for k, v in table.items():
        sub = f"{key}.{k}"
        if k not in allowed:
            raise RuleFileError(path, sub, f"unknown key for fact = {fact!r}")
        if k == "fact":
            continue
        kind = allowed[k]
        if kind == "args":
            conds[k] = _parse_args(v, path, sub)
            continue
        conv, what = _KINDS[kind]
        try:
            parsed = conv(v)
        except re.error as e:
            raise RuleFileError(path, sub, f"bad regular expression: {e}") from None
        if parsed is None:
            raise RuleFileError(path, sub, f"must be {what}")
        if k == "context":
            spec_kw["contexts"] = _parse_contexts(parsed, path, sub)
        elif k == "not_context":
            spec_kw["not_contexts"] = _parse_contexts(parsed, path, sub)
        elif k == "inactive":
            spec_kw["inactive"] = parsed
        elif k == "confidence":
            if parsed not in CONFIDENCES:
                raise RuleFileError(path, sub, f"must be one of: {', '.join(CONFIDENCES)}")
            spec_kw["confidence"] = parsed
        else:
            if k == "api_status" and parsed not in API_STATUSES:
                raise RuleFileError(path, sub, f"must be one of: {', '.join(API_STATUSES)}")
            if k == "attribute" and parsed not in ("launch_bounds", "cluster_dims"):
                raise RuleFileError(path, sub, "must be launch_bounds or cluster_dims")
            if k == "unless_followed_by":
                for item in parsed:
                    name, _, lines = item.partition(":")
                    if not name or not lines.isdigit():
                        raise RuleFileError(path, sub, f"{item!r}: write 'callee:lines'")
            if k == "in_callback_of":
                for item in parsed:
                    name, _, idx = item.partition(":")
                    if not name or not idx.isdigit():
                        raise RuleFileError(path, sub, f"{item!r}: write 'callee:arg_index'")
            conds[k] = parsed
    if fact == "api" and "api_status" not in conds:
        raise RuleFileError(path, f"{key}.api_status", "missing required key")
    if fact == "string" and "text_regex" not in conds:  # the front end records only what it names
        raise RuleFileError(path, f"{key}.text_regex", "missing required key")
    return MatchSpec(conds=conds, **spec_kw)


_ENUMS = {
    "category": CATEGORIES,
    "severity": SEVERITIES,
    "confidence": CONFIDENCES,
    "effort": EFFORT_CLASSES,
}


def parse_rule(table: Any, path: Path, index: int) -> dict[str, Any]:
    """Validate one ``[[rule]]`` table; returns keyword arguments for ``Rule``."""
    where = f"rule[{index}]"
    if not isinstance(table, dict):
        raise RuleFileError(path, where, "must be a table")
    if isinstance(table.get("id"), str):
        where = f"rule[{index}]({table['id']})"
    kw: dict[str, Any] = {"source": str(path)}
    for k, v in table.items():
        sub = f"{where}.{k}"
        if k not in RULE_KEYS:
            raise RuleFileError(path, sub, "unknown key")
        kind, _ = RULE_KEYS[k]
        if kind == "match":
            blocks = v if isinstance(v, list) else [v]
            if not blocks:
                raise RuleFileError(path, sub, "needs at least one match block")
            kw[k] = tuple(parse_match(b, path, f"{sub}[{i}]") for i, b in enumerate(blocks))
            continue
        conv, what = _KINDS[kind]
        parsed = conv(v)
        if parsed is None:
            raise RuleFileError(path, sub, f"must be {what}")
        if k in _ENUMS and parsed not in _ENUMS[k]:
            raise RuleFileError(path, sub, f"{parsed!r} is not one of: {', '.join(_ENUMS[k])}")
        if k == "id" and not ID_RE.match(parsed):
            raise RuleFileError(path, sub, "must look like HIP101 (HIP and 3-4 digits)")
        if k == "name" and not NAME_RE.match(parsed):
            raise RuleFileError(path, sub, "must be a lower-case kebab-case slug")
        if k == "fixed_in_rocm":
            version = tuple(int(p) for p in parsed.split(".") if p.isdigit())
            if not version or len(version) != len(parsed.split(".")):
                raise RuleFileError(path, sub, "must be a version such as '6.2'")
            parsed = version
        kw[k] = parsed
    for k, (_, required) in RULE_KEYS.items():
        if required and k not in kw:
            raise RuleFileError(path, f"{where}.{k}", "missing required key")
    for k in ("message", "fix"):
        if k in kw:
            for spec in kw["match"]:
                _check_placeholders(kw[k], PLACEHOLDERS[spec.fact], spec.fact, path, f"{where}.{k}")
    return kw


def read_rule_file(path: Path) -> list[dict[str, Any]]:
    """Parse and validate one rule file; returns the keyword arguments of each rule."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise RuleFileError(path, "toml", str(e)) from None
    except OSError as e:
        raise RuleFileError(path, "file", str(e)) from None
    for k in data:
        if k != "rule":
            raise RuleFileError(path, k, "unknown top-level key (rule files hold [[rule]] tables)")
    rules = data.get("rule", [])
    if not isinstance(rules, list):
        raise RuleFileError(path, "rule", "must be an array of tables ([[rule]])")
    return [parse_rule(t, path, i) for i, t in enumerate(rules)]
