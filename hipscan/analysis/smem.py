"""Shared-memory budgets by constant evaluation: what each kernel asks of the LDS.

The front end records every shared-memory size it meets (``SharedSizeFact``: a kernel's fixed
``__shared__`` variables, the dynamic size raised by ``cudaFuncSetAttribute``, the third
``<<<>>>`` argument, the size an ``if (smem >= 48 * 1024)`` opt-in test compares) with clang's
value where clang could evaluate it. This module adds up a kernel's budget (its own and its
device functions' static arrays plus the dynamic size), values what clang could not from the
facts' own constants (the initializer of a ``constexpr`` member such as
``Kernel_traits::kSmemSize``), and says how each number was found, so a rule can compare it with
the LDS of the AMD targets in scope (``hipscan/data/lds.toml``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import tomllib

from hipscan.exprtext import arith
from hipscan.facts import FileFacts, Loc, SharedSizeFact

# sizeof of the builtin and CUDA vector types a shared-memory size is usually written with.
_SIZEOF = {
    "char": 1,
    "signed char": 1,
    "unsigned char": 1,
    "int8_t": 1,
    "uint8_t": 1,
    "bool": 1,
    "short": 2,
    "unsigned short": 2,
    "int16_t": 2,
    "uint16_t": 2,
    "half": 2,
    "__half": 2,
    "__nv_bfloat16": 2,
    "int": 4,
    "unsigned": 4,
    "unsigned int": 4,
    "int32_t": 4,
    "uint32_t": 4,
    "float": 4,
    "__half2": 4,
    "__nv_bfloat162": 4,
    "long long": 8,
    "unsigned long long": 8,
    "int64_t": 8,
    "uint64_t": 8,
    "size_t": 8,
    "double": 8,
    "float2": 8,
    "int2": 8,
    "float4": 16,
    "int4": 16,
    "uint4": 16,
    "double2": 16,
}
_SIZEOF_RE = re.compile(r"\bsizeof\s*\(\s*([A-Za-z_][\w\s]*?)\s*\)")
_NAME = re.compile(r"(?:[A-Za-z_]\w*\s*::\s*)*([A-Za-z_]\w*)(?:\s*<[^<>()]*>)?")
_SUFFIX = re.compile(r"(?<=[0-9a-fA-F])[uUlL]+\b")
_CAST = re.compile(
    r"\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?(?:int|long|size_t|std::size_t|uint32_t|int64_t)\s*\)"
)


@dataclass(frozen=True, slots=True)
class SharedBudget:
    """What one construct asks of the LDS: the rules' ``fact = "smem"``.

    ``bytes`` is None when neither clang nor the facts' constants give the size.
    """

    kind: str  # dynamic-attribute | launch | static | opt-in
    kernel: str
    bytes: int | None
    expr: str  # the size as written
    how: str  # how the number was found, for the message
    loc: Loc
    context: str
    function: str
    macro: str = ""  # the project macro the construct is written in, if any


@lru_cache(maxsize=1)
def lds_targets() -> dict[str, tuple[int, str, bool]]:
    """arch -> (LDS bytes per workgroup, product name, in the default scope)."""
    text = resources.files("hipscan.data").joinpath("lds.toml").read_text("utf-8")
    table = tomllib.loads(text)["targets"]
    return {
        k: (int(v["lds"]), str(v.get("name", "")), bool(v.get("default", False))) for k, v in table.items()
    }


def targets_in_scope(archs: tuple[str, ...] = ()) -> tuple[tuple[str, int], ...]:
    """(arch, LDS bytes) of the chosen targets (feature suffixes such as ``:xnack+`` ignored),
    or of the default ones. Raises ValueError naming an unknown target."""
    table = lds_targets()
    if not archs:
        return tuple((a, v[0]) for a, v in table.items() if v[2])
    out = []
    for raw in archs:
        arch = raw.split(":", 1)[0].strip()
        if arch not in table:
            raise ValueError(f"unknown AMD target {raw!r} (known: {', '.join(table)})")
        out.append((arch, table[arch][0]))
    return tuple(dict.fromkeys(out))


class Constants:
    """Integer constants the facts hold: variables and members with an initializer."""

    def __init__(self, facts: FileFacts) -> None:
        found: dict[str, set[str]] = defaultdict(set)
        for d in facts.decls:
            if d.init and d.kind in ("var", "field", "template-param"):
                found[d.name].add(d.init)
        # a name written with different values (two traits' kSmemSize) says nothing alone
        self.inits: dict[str, str] = {k: next(iter(v)) for k, v in found.items() if len(v) == 1}

    def value(self, text: str, depth: int = 0) -> int | None:
        """Value of a size expression, names replaced by their initializers (a few levels deep)."""
        if depth > 4 or not text or len(text) > 200:
            return None
        t = _SUFFIX.sub("", text.strip())
        t = _CAST.sub("", t)
        t = t.replace("static_cast<size_t>", "").replace("static_cast<int>", "")
        t = _SIZEOF_RE.sub(lambda m: str(_SIZEOF.get(" ".join(m.group(1).split()), "sizeof")), t)
        if "sizeof" in t:
            return None

        def name_value(m: re.Match[str]) -> str:
            name = m.group(1)
            if name.isdigit():
                return m.group(0)
            init = self.inits.get(name)
            v = self.value(init, depth + 1) if init else None
            if v is None:
                raise LookupError(name)
            return str(v)

        try:
            t = _NAME.sub(name_value, t)
        except LookupError:
            return None
        return arith(t.replace("/", "//"), bit_or=True)


def _static_totals(facts: FileFacts) -> dict[str, int | None]:
    """Per function: bytes of its own fixed ``__shared__`` variables and those of the device
    functions it calls in this translation unit (None when one of them has no fixed size)."""
    own: dict[str, int | None] = defaultdict(int)
    for s in facts.shared_sizes:
        if s.kind == "static":
            prev = own[s.function]
            own[s.function] = None if prev is None or s.value is None else prev + s.value
    callees: dict[str, set[str]] = defaultdict(set)
    for c in facts.calls:
        if c.context in ("global", "device", "host-device") and c.callee in own:
            callees[c.function].add(c.callee)

    def total(fn: str, seen: frozenset[str]) -> int | None:
        value = own.get(fn, 0)
        for callee in callees.get(fn, ()):
            if callee in seen or value is None:
                continue
            sub = total(callee, seen | {callee})
            value = None if sub is None else value + sub
        return value

    kernels = {f.name for f in facts.functions if f.space == "global"}
    return {k: total(k, frozenset({k})) for k in kernels | set(own)}


def shared_budgets(facts: FileFacts) -> list[SharedBudget]:
    """The budgets of one translation unit's facts, one per construct a port edits."""
    if not facts.shared_sizes:
        return []
    consts = Constants(facts)
    statics = _static_totals(facts)
    by_function: dict[str, list[SharedSizeFact]] = defaultdict(list)
    for s in facts.shared_sizes:
        by_function[s.function].append(s)
    out: list[SharedBudget] = []
    for sizes in by_function.values():
        attributes = [s for s in sizes if s.kind == "dynamic-attribute"]
        opt_ins = [s for s in sizes if s.kind == "opt-in"]
        opt_in_value = next(
            (_valued(s, consts)[0] for s in opt_ins if _valued(s, consts)[0] is not None), None
        )
        raised = {s.kernel for s in attributes}
        for s in attributes:
            value, how = _valued(s, consts)
            if value is None and opt_in_value is not None:
                value, how = opt_in_value, "the size its `>= 48 * 1024` opt-in test compares"
            out.append(_with_static(s, value, how, statics))
        for s in sizes:
            if s.kind == "launch":
                if s.kernel in raised or (not s.kernel and attributes):
                    continue  # the attribute call is the construct a port changes
                value, how = _valued(s, consts)
                if value is not None:
                    out.append(_with_static(s, value, how, statics))
            elif s.kind == "opt-in" and not attributes:
                value, how = _valued(s, consts)
                if value is not None:
                    out.append(SharedBudget("opt-in", "", value, s.expr, how, s.loc, s.context, s.function))
    out.extend(_static_budgets(facts, statics))
    return out


def _valued(s: SharedSizeFact, consts: Constants) -> tuple[int | None, str]:
    if s.value is not None:
        return s.value, "evaluated by clang"
    value = consts.value(s.expr)
    if value is not None:
        return value, "from the constants it is written with"
    return None, "not a compile-time constant here"


def _with_static(
    s: SharedSizeFact, value: int | None, how: str, statics: dict[str, int | None]
) -> SharedBudget:
    static = statics.get(s.kernel) if s.kernel else None
    if value is not None and static:
        how = f"{how}; plus {static} bytes of the kernel's own __shared__ arrays"
        value += static
    return SharedBudget(s.kind, s.kernel, value, s.expr, how, s.loc, s.context, s.function, s.macro)


def _static_budgets(facts: FileFacts, statics: dict[str, int | None]) -> list[SharedBudget]:
    """One budget per kernel whose fixed ``__shared__`` arrays (its own and its device
    functions') add up to a known size, at its largest array."""
    largest: dict[str, SharedSizeFact] = {}
    for s in facts.shared_sizes:
        if s.kind == "static" and s.value is not None:
            cur = largest.get(s.function)
            if cur is None or s.value > (cur.value or 0):
                largest[s.function] = s
    out = []
    for f in facts.functions:
        total = statics.get(f.name)
        if f.space != "global" or not total or f.name not in largest:
            continue
        at = largest[f.name]
        how = "the sum of its fixed __shared__ arrays"
        out.append(SharedBudget("static", f.name, total, at.expr, how, at.loc, at.context, f.name))
    return out
