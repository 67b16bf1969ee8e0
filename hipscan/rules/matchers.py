"""Match one declarative block against one fact; returns the message placeholders or ``None``.

Everything a block may ask about another fact of the same translation unit (the type a texture
argument was declared with, what else the enclosing function calls, which functions are passed
to a host-callback API) goes through ``TUIndex``, built once per translation unit.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from hipscan.analysis.smem import SharedBudget
from hipscan.apitable import (
    ApiEntry,
    load_default_args,
    load_hand_mapped,
    load_paste_missing,
    parse_version,
)
from hipscan.exprtext import arg_identifier, int_value
from hipscan.facts import (
    AsmFact,
    AssignFact,
    BuildFact,
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
    WidthFact,
)
from hipscan.ppexpr import evaluate, same_branch
from hipscan.rules.schema import ArgCond, MatchSpec

# a matcher's placeholder holding more related locations for its finding (not a message field)
RELATED_KEY = "_related"
# a match's own place when it is not its fact's (a launch's block shape, at the `dim3` declared
# for it): the finding goes there and the fact's place becomes a related location
AT_KEY = "_at"
MAX_LISTED_CALLS = 50

FACT_LISTS = {
    "call": "calls",
    "launch": "launches",
    "asm": "asms",
    "decl": "decls",
    "ident": "idents",
    "string": "strings",
    "literal": "literals",
    "member": "members",
    "assign": "assigns",
    "out_value": "out_values",
    "include": "includes",
    "directive": "directives",
    "build": "builds",
    "function": "functions",
    "api": "idents",
    "smem": "shared_sizes",  # valued into budgets by hipscan.analysis.smem (see DERIVED)
    "function_ref": "function_refs",
    "width": "widths",
    "diagnostic": "clang_errors",
}

_IDENT = re.compile(r"[A-Za-z_]\w*")
_CONTINUATION = re.compile(r"\s*\\\r?\n\s*")


class TUIndex:
    """Cross-fact lookups for one translation unit."""

    def __init__(self, facts: FileFacts):
        self.main_path = facts.path  # the translation unit's own file
        self.decls: dict[str, list[DeclFact]] = defaultdict(list)
        for d in facts.decls:
            self.decls[d.name].append(d)
        self.callees: dict[str, set[str]] = defaultdict(set)
        # every function the file calls, also where the AST lost the call (a macro whose headers
        # are missing): the token pass's watched identifiers
        self.all_callees: set[str] = {c.callee for c in facts.calls} | {i.name for i in facts.idents}
        # per function, the names its calls go by: callee, qualified name, `type.method`
        self.call_names: dict[str, set[str]] = defaultdict(set)
        for c in facts.calls:
            self.callees[c.function].add(c.callee)
            names = self.call_names[c.function]
            names.update((c.callee, c.qualname))
            if c.member_of:
                names.add(f"{c.member_of}.{c.callee}")
        # the translation unit is one the build compiles as C (a `.c` file) with a C compiler: a
        # `.c` file holding device code is built as CUDA instead (hypre marks its GPU sources so)
        self.c_unit = facts.path.endswith(".c") and not any(
            f.space != "host" for f in facts.functions if f.loc.path == facts.path
        )
        self.declared: set[str] = {f.name for f in facts.functions}
        self.functions: dict[str, list[FunctionFact]] = defaultdict(list)
        for fn in facts.functions:
            self.functions[fn.name].append(fn)
        self._reached: dict[str, set[str]] = {}  # kernel -> the call names it reaches
        self.calls_of: dict[str, list[CallFact]] = defaultdict(list)  # callee -> its calls
        for c in facts.calls:
            self.calls_of[c.callee].append(c)
        # Names the project declares in headers whose facts went to another translation unit,
        # when the front end provides them.
        self.declared.update(getattr(facts, "declared", ()) or ())
        self.declared.update(d.name for d in facts.decls if d.kind != "param")
        for d in facts.directives:
            if d.kind == "define" and d.text:
                m = _IDENT.match(d.text)
                if m:
                    self.declared.add(m.group(0))
        self._calls = facts.calls
        self._call_lines: dict[tuple[str, str, str], list[int]] | None = None
        self._uses = getattr(facts, "uses", ())
        self._tiles: dict[tuple, set[str]] = {}
        self._callbacks: dict[str, set[str]] = {}
        self.declaration_sites = {(d.loc.path, d.loc.line, d.loc.column) for d in facts.decls}
        self.declaration_sites.update((f.loc.path, f.loc.line, f.loc.column) for f in facts.functions)
        self._idents: dict[tuple[str, str], set[str]] = defaultdict(set)
        for i in facts.idents:
            self._idents[(i.loc.path, i.function)].add(i.name)
        self.names_used: set[str] = {c.callee for c in facts.calls}
        self.names_used.update(i.name for i in facts.idents)
        self.names_used.update(m.member for m in facts.members)
        self.call_sites: set[tuple[str, int, str]] = {(c.loc.path, c.loc.line, c.callee) for c in facts.calls}
        self.includes: set[str] = {i.name for i in facts.includes}

    def reached_calls(self, kernel: str, depth: int = 4) -> set[str]:
        """The call names of ``kernel`` and of the functions it calls, ``depth`` calls deep (a
        kernel's wmma calls sit in its device helpers)."""
        if kernel not in self._reached:
            seen, names, todo = {kernel}, set(self.call_names.get(kernel, ())), [kernel]
            for _ in range(depth):
                todo = [c for f in todo for c in self.callees.get(f, ()) if c not in seen]
                seen.update(todo)
                for f in todo:
                    names |= self.call_names.get(f, set())
            self._reached[kernel] = names
        return self._reached[kernel]

    def filled_by(self, function: str, name: str, items: tuple[str, ...]) -> bool:
        """Whether ``function`` passes ``name`` as argument ``index`` of a call to ``callee`` for
        one of ``items`` ("callee:index")."""
        at = {callee: int(i) for callee, _, i in (x.partition(":") for x in items)}
        for c in self._calls:
            i = at.get(c.callee)
            if i is not None and c.function == function and i < len(c.args):
                if arg_identifier(c.args[i]) == name:
                    return True
        return False

    def widths_within(self, function: str, width_args: tuple[str, ...], limit: int) -> bool:
        """Whether every call in ``function`` to a callee of ``width_args`` ("callee:index", the
        index of its width argument) passes an explicit width of at most ``limit``: such code
        works in sub-groups of that many lanes, which a 64-wide wavefront keeps."""
        at = {callee: int(i) for callee, _, i in (w.partition(":") for w in width_args)}
        found = False
        for c in self._calls:
            if c.function != function or c.callee not in at:
                continue
            if len(c.args) <= at[c.callee]:
                return False
            m = re.fullmatch(r"\(?\s*(\d+)[uU]?\s*\)?", c.args[at[c.callee]].strip())
            if m is None or int(m.group(1)) > limit:
                return False
            found = True
        return found

    def tile_functions(self, templates: tuple[str, ...], limit: int) -> set[str]:
        """Functions that instantiate one of ``templates`` (`tiled_partition<32>`) with a size of
        at most ``limit`` lanes: code written for tiles of that size (logical warps)."""
        key = (templates, limit)
        if key not in self._tiles:
            self._tiles[key] = {
                u.function
                for u in self._uses
                if u.role == "template-arg" and u.op in templates and 0 < u.value <= limit
            }
        return self._tiles[key]

    def followed_by(self, loc, function: str, items: tuple[str, ...]) -> bool:
        """Whether ``function`` calls one of ``items`` ("callee:lines") on ``loc``'s line or within
        that many lines after it."""
        if self._call_lines is None:
            self._call_lines = defaultdict(list)
            for c in self._calls:
                self._call_lines[(c.loc.path, c.function, c.callee)].append(c.loc.line)
        for item in items:
            callee, _, n = item.partition(":")
            for line in self._call_lines.get((loc.path, function, callee), ()):
                if loc.line <= line <= loc.line + int(n):
                    return True
        return False

    def idents_in(self, path: str, function: str) -> set[str]:
        """Watched identifiers used in one function."""
        return self._idents.get((path, function), set())

    def callbacks(self, key: str) -> set[str]:
        """Names of functions passed as argument ``index`` of ``callee`` ("callee:index")."""
        if key not in self._callbacks:
            callee, _, idx = key.partition(":")
            i = int(idx)
            names = set()
            for c in self._calls:
                if c.callee == callee and len(c.args) > i:
                    name = arg_identifier(c.args[i])
                    if name:
                        names.add(name)
            self._callbacks[key] = names
        return self._callbacks[key]

    def decl_of(self, arg_text: str, where: Loc | None = None) -> DeclFact | None:
        name = arg_identifier(arg_text)
        found = self.decls.get(name or "")
        if not found:
            return None
        if where is not None:
            # the nearest declaration of the name above the use in its file: a local of the
            # calling function rather than a namesake in another function
            above = [d for d in found if d.loc.path == where.path and d.loc.line <= where.line]
            if above:
                return max(above, key=lambda d: (d.loc.line, d.loc.column))
        # Prefer a variable over a parameter of the same name elsewhere in the TU.
        return next((d for d in found if d.kind == "var"), found[0])


def _arg_ok(
    cond: ArgCond,
    args: tuple[str, ...],
    index: TUIndex,
    types: tuple[str, ...] = (),
    constants: tuple[int, ...] | None = None,
    function: str = "",
    operand_types: tuple[str, ...] = (),
    where: Loc | None = None,
) -> bool:
    if cond.index >= len(args):
        return False
    text = args[cond.index].strip()
    if cond.not_filled_by and function:
        name = arg_identifier(text)
        if name and index.filled_by(function, name, cond.not_filled_by):
            return False
    if cond.constant is not None:
        if constants is None:
            return False  # not recorded for this fact: stay quiet
        if (cond.index in constants) != cond.constant:
            return False
    if cond.type_regex is not None or cond.not_type_regex is not None:
        if cond.index >= len(types) or not types[cond.index]:
            return False  # type not recorded: stay quiet rather than guess
        if cond.type_regex is not None and not cond.type_regex.search(types[cond.index]):
            return False
        if cond.not_type_regex is not None and cond.not_type_regex.search(types[cond.index]):
            return False
    if cond.regex is not None and not cond.regex.search(text):
        return False
    if cond.not_regex is not None and cond.not_regex.search(text):
        return False
    if cond.int_gt is not None or cond.int_le is not None:
        v = int_value(text)
        if v is None:
            return False
        if cond.int_gt is not None and not v > cond.int_gt:
            return False
        if cond.int_le is not None and not v <= cond.int_le:
            return False
    needs_decl = (
        cond.decl_type_regex
        or cond.not_decl_type_regex
        or cond.decl_init_regex
        or cond.decl_storage
        or cond.not_decl_storage
    )
    if needs_decl:
        decl = index.decl_of(text, where)
        operand = operand_types[cond.index] if cond.index < len(operand_types) else ""
        if operand and not (cond.decl_init_regex or cond.decl_storage or cond.not_decl_storage):
            # the front end recorded the declared type of the operand the arithmetic starts from
            # (also where the declaration sits in a header another translation unit carries, and
            # with a watched name behind a project alias or `auto`: `CUdeviceptr`)
            if cond.decl_type_regex is not None and not cond.decl_type_regex.search(operand):
                return False
            return cond.not_decl_type_regex is None or not cond.not_decl_type_regex.search(operand)
        if decl is None:  # unknown declaration: stay quiet rather than guess
            return False
        if cond.decl_type_regex is not None and not cond.decl_type_regex.search(decl.type):
            return False
        if cond.not_decl_type_regex is not None and cond.not_decl_type_regex.search(decl.type):
            return False
        if cond.decl_init_regex is not None and not cond.decl_init_regex.search(decl.init):
            return False
        if cond.decl_storage and not set(cond.decl_storage) & set(decl.storage):
            return False
        if cond.not_decl_storage and set(cond.not_decl_storage) & set(decl.storage):
            return False
    return True


def _args_ok(
    conds: tuple[ArgCond, ...] | None,
    args: tuple[str, ...],
    index: TUIndex,
    types: tuple[str, ...] = (),
    constants: tuple[int, ...] | None = None,
    function: str = "",
    operand_types: tuple[str, ...] = (),
    where: Loc | None = None,
) -> bool:
    return all(_arg_ok(c, args, index, types, constants, function, operand_types, where) for c in conds or ())


def _re(spec: MatchSpec, key: str, text: str) -> bool:
    """True when the block has no such regex key or the regex finds ``text``."""
    pattern = spec.conds.get(key)
    return pattern is None or pattern.search(text) is not None


def _not_re(spec: MatchSpec, key: str, text: str) -> bool:
    pattern = spec.conds.get(key)
    return pattern is None or pattern.search(text) is None


def _in(spec: MatchSpec, key: str, value: Any) -> bool:
    allowed = spec.conds.get(key)
    return allowed is None or value in allowed


# ---- per-fact matchers ---------------------------------------------------------------------


def match_call(spec: MatchSpec, f: CallFact, index: TUIndex, ctx) -> dict | None:
    args = f.args
    while args and not args[-1]:  # default arguments have no source text
        args = args[:-1]
    if not (
        _in(spec, "callee", f.callee)
        and _re(spec, "callee_regex", f.callee)
        and _re(spec, "qualname_regex", f.qualname)
        and _re(spec, "args_regex", ", ".join(args))
        and _re(spec, "member_of_regex", f.member_of)
        and _re(spec, "result_type_regex", f.result_type)
    ):
        return None
    if "result_type_regex" in spec.conds and not f.result_type:
        return None
    if not _re(spec, "arg_types_regex", ", ".join(f.arg_types)):
        return None
    if "member_of_regex" in spec.conds and not f.member_of:
        return None
    method = spec.conds.get("method")
    if method is not None and method != bool(f.member_of):
        return None
    if not (
        _re(spec, "mask_typedef_regex", f.mask_typedef)
        and _not_re(spec, "not_mask_typedef_regex", f.mask_typedef)
    ):
        return None
    if "mask_typedef_regex" in spec.conds and not f.mask_typedef:
        return None
    if len(args) < spec.conds.get("arg_count_min", 0):
        return None
    if len(args) > spec.conds.get("arg_count_max", 1 << 30):
        return None
    if not _args_ok(
        spec.conds.get("arg"), args, index, f.arg_types, f.const_args, f.function, f.operand_types, f.loc
    ):
        return None
    short = None
    if spec.conds.get("hip_needs_more_args"):
        short = load_default_args().get(f.callee)
        if short is None or not short.cuda_min_args <= len(args) < short.hip_min_args:
            return None
        if short.fixed_in and version_key(ctx.rocm_version) >= version_key(parse_version(short.fixed_in)):
            return None
    p = {
        "match": f.callee,
        "callee": f.callee,
        "qualname": f.qualname,
        "args": ", ".join(args),
        "arg_count": str(len(args)),
        "member_of": f.member_of,
        "result_type": f.result_type,
        "hip_name": short.hip_name if short else "",
        "hip_min_args": str(short.hip_min_args) if short else "",
        "fixed_in": short.fixed_in if short else "",
    }
    for i in range(10):
        p[f"arg{i}"] = args[i] if i < len(args) else ""
        p[f"arg{i}_type"] = f.arg_types[i] if i < len(f.arg_types) else ""
    named = [c.index for c in spec.conds.get("arg") or ()]
    p["arg"] = args[named[0]] if named and named[0] < len(args) else ""  # the argument the match tested
    return p


def match_launch(spec: MatchSpec, f: LaunchFact, index: TUIndex, _opts) -> dict | None:
    if not _re(spec, "kernel_regex", f.kernel):
        return None
    if not _args_ok(spec.conds.get("config"), f.config, index):
        return None
    calls_re = spec.conds.get("kernel_calls_regex")
    if calls_re is not None and not any(calls_re.search(n) for n in index.call_names.get(f.kernel, ())):
        return None
    reaches_re = spec.conds.get("kernel_reaches_regex")
    if reaches_re is not None and not any(reaches_re.search(n) for n in index.reached_calls(f.kernel)):
        return None
    cfg = list(f.config) + ["", "", ""]
    block_re = spec.conds.get("block_regex")
    moved: dict = {}
    if block_re is not None:
        if not block_re.search(f.block_init or cfg[1]):
            return None
        if f.block_at is not None:  # the shape is written at the `dim3` the launch names
            moved = {AT_KEY: f.block_at, RELATED_KEY: (RelatedLoc.at(f.loc, "the launch"),)}
    return {
        "match": f.kernel,
        "kernel": f.kernel,
        "config": ", ".join(f.config),
        "grid": cfg[0],
        "block": f.block_init or cfg[1],
        "shmem": cfg[2],
        **moved,
    }


def match_asm(spec: MatchSpec, f: AsmFact, index: TUIndex, _opts) -> dict | None:
    if f.arch_arm:  # in an `<nv/target>` arm for NVIDIA architectures: never compiled for AMD
        return None
    prefixes = spec.conds.get("instruction_prefix")
    regex = spec.conds.get("instruction_regex")
    instruction = ""
    if prefixes is not None or regex is not None:
        for ins in f.instructions:
            if prefixes is not None and not any(
                ins == p or ins.startswith(p if p.endswith(".") else p + ".") for p in prefixes
            ):
                continue
            if regex is not None and not regex.search(ins):
                continue
            instruction = ins
            break
        else:
            return None
    register = ""
    wanted = spec.conds.get("register")
    if wanted is not None:
        register = next((r for r in f.registers if r in wanted), "")
        if not register:
            return None
    if not _re(spec, "text_regex", f.text):
        return None
    if not instruction:
        instruction = f.instructions[0] if f.instructions else f.text.strip()[:40]
    return {
        "match": instruction,
        "text": f.text,
        "instruction": instruction,
        "instructions": ", ".join(f.instructions),
        "register": register or (f.registers[0] if f.registers else ""),
        "registers": ", ".join(f.registers),
        "switch": f.switch,
    }


def match_decl(spec: MatchSpec, f: DeclFact, index: TUIndex, ctx) -> dict | None:
    if not (
        _re(spec, "name_regex", f.name)
        and _re(spec, "type_regex", f.type)
        and _not_re(spec, "not_type_regex", f.type)
        and _in(spec, "kind", f.kind)
        and _re(spec, "init_regex", f.init)
    ):
        return None
    if "init_regex" in spec.conds and not f.init:
        return None
    for key in ("deduced", "written"):
        want = spec.conds.get(key)
        if want is not None and want != getattr(f, key):
            return None
    storage = spec.conds.get("storage")
    if storage is not None and not set(storage) & set(f.storage):
        return None
    if not set(spec.conds.get("storage_all", ())) <= set(f.storage):
        return None
    libraries = spec.conds.get("api_library")
    if libraries is not None:  # the declared name is one of these libraries' API names
        entry = ctx.table.get(f.name) if ctx is not None else None
        if entry is None or entry.library not in libraries:
            return None
    return {
        "match": f.name,
        "name": f.name,
        "type": f.type,
        "kind": f.kind,
        "storage": " ".join(f.storage),
        "init": f.init,
        "array_dims": "".join(f"[{d}]" for d in f.array_dims),
    }


def match_ident(spec: MatchSpec, f: IdentFact, index: TUIndex, _opts) -> dict | None:
    if f.pasted or not _in(spec, "name", f.name):
        return None
    if (f.loc.path, f.loc.line, f.loc.column) in index.declaration_sites:
        return None  # the project declaring the name (e.g. re-declaring a driver enum), not a use
    unless = spec.get("unless_in_function")
    if unless and f.function and index.idents_in(f.loc.path, f.function) & set(unless):
        return None
    if spec.get("lost_call") and (f.function or (f.loc.path, f.loc.line, f.name) in index.call_sites):
        return None  # inside a function the parse kept, a use that is no call is not one
    if spec.get("code_only") and f.in_directive:
        return None  # a test or macro body, not a value the compiler reads here
    if spec.get("unless_project_defines") and f.name in index.declared:
        return None  # the project supplies the name (hashcat's own `#define CUDAAPI`)
    return {"match": f.name, "name": f.name}


def match_literal(spec: MatchSpec, f: LiteralFact, index: TUIndex, _opts) -> dict | None:
    if not (
        _in(spec, "value", f.value)
        and _in(spec, "op", f.op)
        and _in(spec, "role", f.role)
        and _re(spec, "other_regex", f.other)
        and _not_re(spec, "not_other_regex", f.other)
        and _re(spec, "other_type_regex", f.other_type)
        and _re(spec, "spelling_regex", f.spelling)
        and _re(spec, "expr_regex", f.expr)
        and _not_re(spec, "not_expr_regex", f.expr)
    ):
        return None
    via_macro = spec.conds.get("callee_macro")
    if via_macro is not None and via_macro != bool(f.callee_macro):
        return None
    if spec.conds.get("unless_selects_uniform") and f.selects_uniform:
        return None  # only hands a value every thread sees alike to more lanes
    if spec.conds.get("unless_block_step") and f.block_step:
        return None  # a block-wide tree-reduction step: a barrier follows, no warp code inside
    if spec.conds.get("unless_lockstep_fold") and f.lockstep_fold:
        return None  # a warp tail folding through shared memory: in lockstep inside a 64-lane wavefront
    if spec.conds.get("guards_barrier") and not f.guards_barrier:
        return None
    return {
        "match": f.spelling,
        "expr": f.expr,
        "value": str(f.value),
        "spelling": f.spelling,
        "written": f.written or f.spelling,
        "macro": f.macro,
        "role": f.role,
        "op": f.op,
        "other": f.other,
        "other_type": f.other_type,
    }


def match_width(spec: MatchSpec, f: WidthFact, index: TUIndex, _opts) -> dict | None:
    if not (
        _in(spec, "sink", f.sink)
        and _in(spec, "value", f.value)
        and _in(spec, "root_value", f.root_value)
        and _in(spec, "root_kind", f.root_kind)
        and _in(spec, "op", f.op)
        and _in(spec, "index", f.index)
        and _re(spec, "op_regex", f.op)
        and _re(spec, "root_regex", f.root)
        and _not_re(spec, "not_root_regex", f.root)
        and _re(spec, "other_regex", f.other)
        and _not_re(spec, "not_other_regex", f.other)
        and _re(spec, "expr_regex", f.expr)
        and _not_re(spec, "not_expr_regex", f.expr)
        and _re(spec, "subscript_regex", f.subscript)
        and _re(spec, "decl_type_regex", f.decl_type)
        and _not_re(spec, "not_decl_type_regex", f.decl_type)
    ):
        return None
    if "root_regex" in spec.conds and not f.root:
        return None
    if "subscript_regex" in spec.conds and not f.subscript:
        return None
    wider = spec.conds.get("holds_wider")
    if wider is not None and wider != f.holds_wider:
        return None
    via_macro = spec.conds.get("callee_macro")
    if via_macro is not None and via_macro != bool(f.callee_macro):
        return None
    derived = spec.conds.get("derived")
    if derived is not None and derived != (f.value != f.root_value):
        return None
    through = spec.conds.get("through_call")
    if through is not None and through != bool(f.via):
        return None
    storage = spec.conds.get("storage")
    if storage is not None and not set(storage) & set(f.storage):
        return None
    beside = spec.conds.get("beside_regex")
    if beside is not None and not any(beside.search(b) for b in f.beside):
        return None
    roles = [r.role for r in f.related]
    reaches = spec.conds.get("reaches_regex")
    if reaches is not None and not any(reaches.search(r) for r in roles):
        return None
    avoid = spec.conds.get("not_reaches_regex")
    if avoid is not None and any(avoid.search(r) for r in roles):
        return None
    if len(roles) < spec.conds.get("uses_min", 0):
        return None
    root_at = f"{f.root_loc.path}:{f.root_loc.line}" if f.root_loc is not None else ""
    return {
        "match": f.root or f.written or str(f.value),
        "sink": f.sink,
        "value": str(f.value),
        "root": f.root,
        "root_value": str(f.root_value),
        "root_kind": f.root_kind,
        "root_at": root_at,
        "op": f.op,
        "index": str(f.index),
        "other": f.other,
        "expr": f.expr,
        "subscript": f.subscript,
        "via": f" in `{f.via}`, which it is passed to" if f.via else "",
        "chain": f.chain,
        "decl_type": f.decl_type,
        "written": f.written or str(f.value),
        "uses": str(len(roles)),
        "from_root": f" (from `{f.root}` = {f.root_value} at {root_at})" if f.root and root_at else "",
    }


def match_member(spec: MatchSpec, f: MemberRefFact, index: TUIndex, _opts) -> dict | None:
    if not (
        _in(spec, "member", f.member)
        and _in(spec, "sm_number", f.sm_number)
        and _re(spec, "record_regex", f.record)
        and _re(spec, "expr_regex", f.expr)
        and _not_re(spec, "not_guard_regex", getattr(f, "guard", ""))
    ):
        return None
    if "expr_regex" in spec.conds and not f.expr:
        return None
    return {"match": f.member, "member": f.member, "record": f.record, "expr": f.expr}


def match_string(spec: MatchSpec, f: StringFact, index: TUIndex, _opts) -> dict | None:
    if not (_re(spec, "text_regex", f.text) and _not_re(spec, "not_text_regex", f.text)):
        return None
    return {"match": f.text, "text": f.text}


def match_assign(spec: MatchSpec, f: AssignFact, index: TUIndex, _opts) -> dict | None:
    if not (
        _in(spec, "lhs_type", _bare_type(f.lhs_type))
        and _in(spec, "op", f.op)
        and _re(spec, "rhs_type_regex", f.rhs_type)
        and _not_re(spec, "not_rhs_type_regex", f.rhs_type)
        and _re(spec, "rhs_regex", f.rhs)
        and _not_re(spec, "not_rhs_regex", f.rhs)
    ):
        return None
    return {"match": f.rhs, "op": f.op, "lhs_type": f.lhs_type, "rhs_type": f.rhs_type, "rhs": f.rhs}


def match_out_value(spec: MatchSpec, f: OutValueFact, index: TUIndex, _opts) -> dict | None:
    if not (_in(spec, "source", f.source) and _in(spec, "op", f.op) and _in(spec, "sm_number", f.sm_number)):
        return None
    least = spec.conds.get("literal_ge")
    if least is not None and not abs(f.literal) >= least:
        return None
    return {
        "match": f.expr,
        "name": f.var,
        "source": f.source,
        "var": f.var,
        "op": f.op,
        "literal": f.literal,
        "expr": f.expr,
    }


def _bare_type(spelling: str) -> str:
    return spelling.removeprefix("const ").removeprefix("volatile ").strip()


def match_include(spec: MatchSpec, f: IncludeFact, index: TUIndex, _opts) -> dict | None:
    if not (_in(spec, "name", f.name) and _re(spec, "name_regex", f.name)):
        return None
    angled = spec.conds.get("angled")
    if angled is not None and angled != f.angled:
        return None
    project = spec.conds.get("project")
    if project is not None and project != bool(f.resolved):
        return None
    in_tree = spec.conds.get("in_tree")
    if in_tree is not None and in_tree != f.in_tree:
        return None
    linkage = spec.conds.get("c_linkage")
    if linkage is not None and linkage != f.c_linkage:
        return None
    c_unit = spec.conds.get("c_unit")
    if c_unit is not None and c_unit != index.c_unit:
        return None
    reaches = spec.conds.get("reaches_regex")
    reached = [n for n in f.reaches if reaches is None or reaches.search(n)]
    if reaches is not None and not reached:
        return None
    return {"match": f.name, "name": f.name, "resolved": f.resolved, "reached": ", ".join(reached[:3])}


def match_directive(spec: MatchSpec, f: DirectiveFact, index: TUIndex, ctx) -> dict | None:
    if not (
        _in(spec, "kind", f.kind)
        and _re(spec, "text_regex", f.text)
        and _not_re(spec, "not_text_regex", f.text)
    ):
        return None
    names = spec.conds.get("names")
    if spec.conds.get("names_nvcc_only"):  # the project's own "compiled by a CUDA compiler" macros
        names = {name for name, _file in ctx.nvcc_only}
    hit = [n for n in dict.fromkeys(f.names) if names is None or n in names]
    if spec.conds.get("defined_in_same_file"):  # a shared header's macro is fixed at its #define
        hit = [n for n in hit if (n, f.loc.path) in ctx.nvcc_only]
    if ctx.torch_defined:  # torch's hipify rewrites these to HIP's own (`__CUDACC__` -> `__HIPCC__`)
        hit = [n for n in hit if n not in ctx.torch_defined]
    if names is not None and not hit:
        return None
    used = spec.conds.get("macro_used")
    if used is not None and f.kind == "define" and f.names:
        if (f.names[0] not in ctx.unused_macros) != used:
            return None
    reference = spec.conds.get("diverges_without")
    if reference is not None and _same_branch(f.text, reference):
        return None  # the HIP build takes the branch the reference NVIDIA build takes
    define = ""
    defines_re = spec.conds.get("defines_regex")
    if defines_re is not None:
        define = next((x for x in f.defines if defines_re.search(x)), "")
        if not define:
            return None
    if not _not_re(spec, "not_chain_regex", f"{f.chain} ; {f.guard}"):
        return None
    condition = _CONTINUATION.sub(" ", f.text)
    selected = spec.conds.get("selected_with")
    if selected is not None and not evaluate(condition, _macro_values(selected)):
        return None
    off = spec.conds.get("off_without")
    if off is not None and not any(
        evaluate(c, {}, tuple(off)) == 0 for c in (condition, f.guard) if c
    ):  # nested: a branch around it (`#if defined(__CUDA_ARCH__)`) may be what turns it off
        return None  # on in hip-clang's passes too, or not decidable
    shown = _CONTINUATION.sub(" ", f.text)  # a directive continued over lines reads as one
    return {
        "match": shown,
        "kind": f.kind,
        "text": shown,
        "names": ", ".join(hit),
        "define": _CONTINUATION.sub(" ", define.split("(", 1)[0]),
    }


def _macro_values(items) -> dict[str, int]:
    values = {}
    for item in items:
        name, _, value = item.partition("=")
        values[name.strip()] = int(value or "1", 0)
    return values


def _same_branch(condition: str, reference: tuple[str, ...]) -> bool:
    values = _macro_values(reference)
    return same_branch(condition, values, tuple(values)) is True


def match_build(spec: MatchSpec, f: BuildFact, index: TUIndex, _opts) -> dict | None:
    if not (_in(spec, "kind", f.kind) and _re(spec, "value_regex", f.value) and _in(spec, "tool", f.tool)):
        return None
    return {"match": f.value, "kind": f.kind, "value": f.value, "tool": f.tool}


def match_function(spec: MatchSpec, f: FunctionFact, index: TUIndex, ctx) -> dict | None:
    params = ", ".join(f.params)
    linkage = spec.conds.get("c_linkage")
    if linkage is not None and linkage != f.c_linkage:
        return None
    if not (
        _in(spec, "space", f.space)
        and _re(spec, "name_regex", f.name)
        and _re(spec, "qualname_regex", f.qualname)
        and _re(spec, "result_regex", f.result)
    ):
        return None
    if not _re(spec, "params_regex", params):
        # a project's own alias for the type (libCEED's `CeedScalar *` for `double *`)
        if not f.canonical_params or not _re(spec, "params_regex", ", ".join(f.canonical_params)):
            return None
        params = ", ".join(f.canonical_params)
    overload = ""
    other_re = spec.conds.get("overload_params_regex")
    if other_re is not None:
        others = (
            ", ".join(g.params)
            for g in index.functions.get(f.name, ())
            if g.qualname == f.qualname and g.params != f.params
        )
        overload = next((o for o in others if other_re.search(o)), "")
        if not overload:
            return None
    libraries = spec.conds.get("api_library")
    if libraries is not None:  # the project defines a name of the CUDA API itself
        entry = ctx.table.get(f.name) if ctx is not None else None
        # a name HIP has no counterpart for is the project's own shim, not an interposer
        if entry is None or entry.library not in libraries or not entry.hip_name:
            return None
    used = spec.conds.get("used")
    # a header's operator may be used by translation units that do not carry its facts: only a
    # definition in the main file is judged by this unit's calls
    if used is not None and f.loc.path == index.main_path and used != bool(index.calls_of.get(f.name)):
        return None
    uses: tuple[RelatedLoc, ...] = ()
    if spec.conds.get("list_calls"):
        uses = tuple(
            RelatedLoc(c.loc.path, c.loc.line, c.loc.column, "call")
            for c in index.calls_of.get(f.name, ())[:MAX_LISTED_CALLS]
        )
    attr = spec.conds.get("attribute")
    args: tuple[str, ...] = getattr(f, attr) if attr else ()
    if attr:
        if not args or len(args) < spec.conds.get("attribute_args_min", 1):
            return None
        gt = spec.conds.get("attribute_arg_gt")
        if gt is not None:
            i = spec.conds.get("attribute_arg_index", 0)
            v = int_value(args[i]) if i < len(args) else None
            if v is None or not v > gt:
                return None
        i = spec.conds.get("attribute_arg_index", 0)
        if i < len(args) and not _not_re(spec, "attribute_arg_not_regex", args[i]):
            return None
        if not _re(spec, "attribute_arg_regex", args[i] if i < len(args) else ""):
            return None
        below = spec.conds.get("attribute_arg0_below")
        if below is not None and (int_value(args[0]) or 0) >= below:
            return None
    return {
        "match": f.name,
        "name": f.name,
        "qualname": f.qualname,
        "space": f.space,
        "launch_bounds": ", ".join(f.launch_bounds),
        "cluster_dims": ", ".join(f.cluster_dims),
        "attribute_args": ", ".join(args),
        "attribute_arg0": args[0] if args else "",
        "params": params,
        "result": f.result,
        "overload_params": overload,
        RELATED_KEY: uses,
    }


def version_key(version: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """(6, 2) and (6, 2, 0) compare equal: pad to major.minor.patch."""
    if version is None:
        return None
    return (tuple(version) + (0, 0, 0))[:3]


def _v(text: str) -> tuple[int, ...] | None:
    return version_key(parse_version(text))


def api_status_applies(status: str, e: ApiEntry, rocm: tuple[int, ...]) -> bool:
    """Whether table entry ``e`` has ``status`` for a port to ROCm version ``rocm``."""
    rocm = version_key(rocm)
    added = version_key(e.hip_added_version)
    if status in ("hipify-unmapped", "roc-only", "unsupported"):
        # HIP has it under a name hipify does not know (hand_mapped.csv), from some release on
        hand = load_hand_mapped().get(e.cuda_name)
        by_hand = hand is not None and version_key(hand.hip_added_version or (0,)) <= rocm
        if status == "hipify-unmapped":
            return by_hand
        if status == "roc-only":  # a roc* library twin only (MIOpen for cuDNN): hipify leaves it
            return not e.hip_name and bool(e.roc_name) and not by_hand
        return e.no_hip_or_roc and not by_hand
    if status == "paste-renamed":
        return False  # a property of the use, not of the entry (match_api tests it)
    if status == "cuda-deprecated":
        return bool(e.cuda_deprecated) and not e.cuda_removed
    if status == "cuda-removed":
        return bool(e.cuda_removed)
    if status == "hip-newer":
        return bool(e.hip_name) and added is not None and added > rocm
    if status == "hip-deprecated":
        v = _v(e.hip_deprecated)
        return v is not None and v <= rocm
    if status == "hip-removed":
        v = _v(e.hip_removed)
        return v is not None and v <= rocm
    if status == "hip-experimental":
        v = _v(e.hip_experimental)
        return v is not None and v <= rocm and (added is None or added <= rocm)
    return False


def match_api(spec: MatchSpec, f: IdentFact, index: TUIndex, ctx) -> dict | None:
    """``ctx`` is the engine's apply context: it carries the table, claims and ROCm version."""
    e = ctx.table.get(f.name)
    if e is None:
        return None
    if spec.conds.get("skip_claimed", True) and f.name in ctx.claimed:
        return None
    if f.name in index.declared:  # the project defines this name itself: not a CUDA API use
        return None
    pasted_hip = ""
    if spec.conds["api_status"] == "paste-renamed":
        # reported where the macro's HIP arm, pasting HIP's prefix, builds a name HIP does not
        # declare (the table says which, for the prefix the name is pasted with)
        pasted = load_paste_missing().get(f.name) if f.pasted else None
        if pasted is None or pasted.prefix != f.pasted:
            return None
        pasted_hip = pasted.pasted_hip
    elif f.pasted:
        return None
    if not (
        _in(spec, "library", e.library)
        and _in(spec, "api_kind", e.kind)
        and e.library not in spec.conds.get("not_library", ())
    ):
        return None
    if not pasted_hip and not api_status_applies(spec.conds["api_status"], e, ctx.rocm_version):
        return None
    hand = load_hand_mapped().get(f.name)
    hip_name = e.hip_name or (hand.hip_name if hand else "")
    replacement = hip_name or e.roc_name
    return {
        "match": f.name,
        "name": f.name,
        "hip_name": hip_name,
        "roc_name": e.roc_name,
        "replacement": replacement or "none",
        "library": e.library,
        "api_kind": e.kind,
        "hip_added": e.hip_added or (hand.hip_added if hand else ""),
        "hip_deprecated": e.hip_deprecated,
        "hip_removed": e.hip_removed,
        "hip_experimental": e.hip_experimental,
        "cuda_deprecated": e.cuda_deprecated,
        "cuda_removed": e.cuda_removed,
        "pasted_hip": pasted_hip,
        # the HIPIFY tables give cuDNN's and cuTENSOR's own release numbers, the others CUDA's
        "versioned_by": _VERSIONED_BY.get(e.library, "CUDA"),
        "rocm_version": ".".join(map(str, ctx.rocm_version)),
    }


_VERSIONED_BY = {"cudnn": "cuDNN", "cutensor": "cuTENSOR"}


def match_smem(spec: MatchSpec, f: SharedBudget, index: TUIndex, ctx) -> dict | None:
    """A shared-memory budget against the LDS of the targets in scope (``ctx.targets``)."""
    if not _in(spec, "kind", f.kind) or not _not_re(spec, "not_expr_regex", f.expr):
        return None
    evaluated = spec.conds.get("evaluated")
    if evaluated is not None and evaluated != (f.bytes is not None):
        return None
    targets = getattr(ctx, "targets", ()) or ()
    over = [(a, lds) for a, lds in targets if f.bytes is not None and f.bytes > lds]
    fits = [a for a, lds in targets if f.bytes is not None and f.bytes <= lds]
    wanted = spec.conds.get("over_lds")
    if wanted is not None and wanted != bool(over):
        return None
    lds = sorted({lds for _, lds in over})
    return {
        "match": f.expr,
        "kind": f.kind,
        "kernel": f.kernel or "the kernel",
        "bytes": "?" if f.bytes is None else str(f.bytes),
        "kib": "?" if f.bytes is None else f"{round(f.bytes / 1024, 1):g} KiB",
        "expr": f.expr,
        "how": f.how,
        "targets": ", ".join(a for a, _ in over),
        "lds": " / ".join(f"{v // 1024} KiB" for v in lds),
        "fits": (f" (fits {', '.join(fits)})" if fits and over else ""),
    }


def match_function_ref(spec: MatchSpec, f: FunctionRefFact, index: TUIndex, _opts) -> dict | None:
    if not _re(spec, "name_regex", f.name):
        return None
    return {"match": f.name, "name": f.name, "space": f.space}


_QUOTED = re.compile(r"'([^']+)'")


def match_diagnostic(spec: MatchSpec, f: DiagnosticFact, index: TUIndex, _opts) -> dict | None:
    notes = " | ".join(f.notes)
    if not (
        _in(spec, "origin", f.origin) and _re(spec, "text_regex", f.text) and _re(spec, "note_regex", notes)
    ):
        return None
    quoted = _QUOTED.findall(f.text)  # the name a diagnostic is about is quoted last
    return {"match": f.text, "text": f.text, "notes": notes, "name": quoted[-1] if quoted else ""}


MATCHERS: dict[str, Callable[..., dict | None]] = {
    "call": match_call,
    "launch": match_launch,
    "asm": match_asm,
    "decl": match_decl,
    "ident": match_ident,
    "string": match_string,
    "literal": match_literal,
    "member": match_member,
    "assign": match_assign,
    "out_value": match_out_value,
    "include": match_include,
    "directive": match_directive,
    "build": match_build,
    "function": match_function,
    "api": match_api,
    "smem": match_smem,
    "function_ref": match_function_ref,
    "width": match_width,
    "diagnostic": match_diagnostic,
}


def common_ok(spec: MatchSpec, fact: Any, index: TUIndex) -> bool:
    """The keys every block shares: context, inactive branches, enclosing function, path."""
    context = getattr(fact, "context", None)
    if spec.contexts and context not in spec.contexts:
        return False
    if spec.not_contexts and context in spec.not_contexts:
        return False
    switched = bool(getattr(fact, "switch", ""))
    also = switched and spec.conds.get("also_switched", False)
    if getattr(fact, "from_inactive_branch", False) and not (spec.inactive or also):
        return False
    if switched != spec.conds.get("switch", False) and not also:
        return False
    if not _re(spec, "path_regex", fact.loc.path):
        return False
    function = getattr(fact, "function", "")
    if not _re(spec, "function_regex", function):
        return False
    wanted = spec.conds.get("function_calls")
    if wanted is not None and not (function and index.callees[function] & set(wanted)):
        return False
    unwanted = spec.conds.get("not_function_calls")
    if unwanted is not None and function and index.callees[function] & set(unwanted):
        return False
    unused = spec.conds.get("not_function_uses")
    if unused is not None and function:
        names = index.callees[function] | index.idents_in(fact.loc.path, function)
        if names & set(unused):
            return False
    width = spec.conds.get("unless_width_le")
    if (
        width is not None
        and function
        and index.widths_within(function, spec.conds.get("width_arg", ()), width)
    ):
        return False
    uses = spec.conds.get("tu_uses")
    if uses is not None and index.names_used.isdisjoint(uses):
        return False
    unused = spec.conds.get("not_tu_uses")
    if unused is not None and not index.names_used.isdisjoint(unused):
        return False
    tile = spec.conds.get("unless_tile_le")
    if (
        tile is not None
        and function
        and function in index.tile_functions(spec.conds.get("tile_templates", ()), tile)
    ):
        return False
    followed = spec.conds.get("unless_followed_by")
    if followed is not None and function and index.followed_by(fact.loc, function, followed):
        return False
    callbacks = spec.conds.get("in_callback_of")
    if callbacks is not None:
        if not function or not any(function in index.callbacks(k) for k in callbacks):
            return False
    included = spec.conds.get("unless_tu_includes_regex")
    if included is not None and any(included.search(name) for name in index.includes):
        return False
    unless = spec.conds.get("unless_file_calls")
    if unless is not None and index.all_callees & set(unless):
        return False
    return True
