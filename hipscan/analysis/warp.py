"""Warp-width provenance: where a 32-lane assumption is written and every place it flows to.

Input: one translation unit's facts: the uses of named constants with their chains
(``ConstUseFact``), the literals the front end keeps (``LiteralFact``), array subscripts, calls and
functions. Output: ``WidthFact`` records the rules match (``fact = "width"``):

- a *sink* per use of a warp-width value (32, 31, 5, 16, a 32-bit full mask) or of a value
  derived from one (``kWarpSize * 6 / 8``), with the root it came from and its role: array
  dimension, comparison, loop bound, operand, call argument, launch shape, ``__launch_bounds__``,
  template argument, ``static_assert``;
- for an array sized by such a value, how it is indexed, also inside a function the array is
  passed to (``__shared__ float buf[32]`` handed to a reduction helper that reads ``buf[lane]``);
- a *definition* per named root, at the place its value is written, listing every use it reaches
  (reported once there; the uses become related locations).

Which of these is a porting problem, and how bad, is the rules' business (rules/warp-size.toml,
rules/warp-sync.toml); this module only follows values. ``warpSize``, ``__AMDGCN_WAVEFRONT_SIZE``
and ``hipDeviceProp_t::warpSize`` are not constants the front end can evaluate, so a chain
through them ends before it starts.
"""

from __future__ import annotations

import re
from collections import defaultdict

from hipscan.exprtext import arg_identifier, int_value
from hipscan.facts import (
    ConstUseFact,
    FileFacts,
    LiteralFact,
    Loc,
    NamedValue,
    RelatedLoc,
    WidthFact,
)
from hipscan.frontend.warpflow import ROOT_VALUES

MAX_SUBSCRIPTS = 6  # index expressions kept per array
_NAME = re.compile(r"[A-Za-z_]\w*")


def role_text(sink: str, op: str, index: int, other: str, callee_macro: str = "") -> str:
    """How a use is shown beside its root (and what `reaches_regex` reads)."""
    if sink == "arg":
        return f"argument {index} of {op}" + (f" through {callee_macro}" if callee_macro else "")
    if sink == "launch":
        return "launch shape" + (f" ({op} argument {index})" if op == "<<<>>>" and index >= 0 else f" ({op})")
    if sink == "template-arg":
        return f"template argument of {op}"
    if sink == "array-dim":
        return f"size of {other}"
    if sink in ("compare", "loop-bound"):
        return f"{'loop bound' if sink == 'loop-bound' else 'comparison'} with {other}".rstrip()
    if sink == "binop":
        return f"operand of {op} with {other}".rstrip()
    if sink == "init":
        return f"initialises {other}"
    if sink == "launch-bounds":
        return "__launch_bounds__"
    if sink == "static-assert":
        return "static_assert"
    return sink


def _root(chain: tuple[NamedValue, ...]) -> NamedValue | None:
    """The name on a chain where a warp-width value is written: the last one holding one."""
    for named in reversed(chain):
        if named.value in ROOT_VALUES:
            return named
    return None


def derive(facts: FileFacts) -> list[WidthFact]:
    """Every warp-width sink and definition of one translation unit."""
    sinks: list[WidthFact] = []
    for u in facts.uses:
        sinks.extend(_from_use(u))
    sinks.extend(_literal_sinks(facts.literals))
    sinks.extend(_launch_bounds(facts, sinks))
    sinks = _with_subscripts(facts, sinks)
    sinks = _beside(facts, sinks)
    return sinks + _definitions(facts, sinks) + _mask_types(facts)


def _from_use(u: ConstUseFact) -> list[WidthFact]:
    if u.chain:
        root = _root(u.chain)
        if root is None:
            return []
        root_name, root_value, root_loc, root_kind = root.name, root.value, root.loc, root.kind
        chain = " <- ".join(n.name for n in u.chain[: u.chain.index(root) + 1])
    else:
        if u.value not in ROOT_VALUES and u.value != 64:
            return []
        root_name, root_value, root_loc, root_kind, chain = "", u.value, None, "literal", ""
    return [
        WidthFact(
            sink=u.role,
            value=u.value,
            root=root_name,
            root_value=root_value,
            root_loc=root_loc,
            root_kind=root_kind,
            loc=u.loc,
            context=u.context,
            function=u.function,
            op=u.op,
            index=u.index,
            other=u.other,
            expr=u.expr,
            chain=chain,
            decl_type=u.decl_type,
            storage=u.storage,
            confidence="medium" if u.guessed else "high",
            callee_macro=u.callee_macro,
            holds_wider=u.holds_wider,
            written=u.other if not u.chain else root.written if root else "",
            related=((RelatedLoc.at(root_loc, "definition"),) if root_loc else ()),
        )
    ]


def _literal_sinks(literals: list[LiteralFact]) -> list[WidthFact]:
    """Literals written at the sink: arrays sized with a warp width (`float buf[32]`, followed to
    their subscripts) and lane thresholds a fraction of 32 (`lane < 24`, `lane < 16`)."""
    out = []
    for lit in literals:
        if lit.macro or not lit.spelling[:1].isdigit():
            continue  # a macro's value, or a constant expression: followed from its name
        if lit.role == "array-dim" and lit.value in (32, 16, 64):
            sink = "array-dim"
        elif lit.role in ("compare", "loop-bound") and lit.value in (16, 24):
            sink = lit.role
        else:
            continue
        out.append(
            WidthFact(
                sink=sink,
                op=lit.op,
                value=lit.value,
                root="",
                root_value=lit.value,
                root_loc=None,
                root_kind="literal",
                loc=lit.loc,
                context=lit.context,
                function=lit.function,
                other=lit.other,
                expr=lit.expr,
                decl_type=lit.other_type,
                written=lit.spelling,
            )
        )
    return out


def _launch_bounds(facts: FileFacts, sinks: list[WidthFact]) -> list[WidthFact]:
    """`__launch_bounds__(kWarpSize * kWarpSize)`: the attribute is not in the AST, so its text is
    read with the names this translation unit's chains know."""
    known: dict[str, tuple[int, NamedValue]] = {}  # name -> (its value, the root it comes from)
    for u in facts.uses:
        root = _root(u.chain)
        if root is None:
            continue
        for n in u.chain:
            known.setdefault(n.name, (n.value, root))
        if u.role == "init" and u.other:  # `kNumThreads = kWarpSize * kNumWarps`
            known.setdefault(u.other, (u.value, root))
    if not known:
        return []
    out = []
    for fn in facts.functions:
        if not fn.launch_bounds:
            continue
        text = fn.launch_bounds[0]
        roots = [known[n][1] for n in _NAME.findall(text) if n in known]
        if not roots:
            continue
        root = roots[0]
        value = int_value(
            _NAME.sub(lambda m: str(known[m.group(0)][0]) if m.group(0) in known else "x", text)
        )
        out.append(
            WidthFact(
                sink="launch-bounds",
                value=value if value is not None else root.value,
                root=root.name,
                root_value=root.value,
                root_loc=root.loc,
                root_kind=root.kind,
                loc=fn.loc,
                context=fn.space,
                function=fn.name,
                op="__launch_bounds__",
                expr=text,
                written=root.written,
                related=(RelatedLoc.at(root.loc, "definition"),),
            )
        )
    return out


def _with_subscripts(facts: FileFacts, sinks: list[WidthFact]) -> list[WidthFact]:
    """An array sized by a warp-width value: how it is indexed, directly or in a function it is
    passed to (then at most medium confidence: the helper may be called with other buffers)."""
    if not any(s.sink == "array-dim" for s in sinks):
        return sinks
    direct: dict[tuple[str, str], list[str]] = defaultdict(list)  # (function, array) -> indexes
    by_param: dict[tuple[str, int], list[str]] = defaultdict(list)  # (function, param) -> indexes
    for s in facts.subscripts:
        direct[(s.function, s.base)].append(s.index)
        if s.param >= 0:
            by_param[(s.function, s.param)].append(s.index)
    out = []
    for s in sinks:
        if s.sink != "array-dim":
            out.append(s)
            continue
        found: list[tuple[str, str]] = []  # (index, via)
        scopes = [s.function] if s.function else sorted({f for f, _ in direct})
        for fn in scopes:
            found.extend((ix, "") for ix in direct.get((fn, s.other), ()))
        for c in facts.calls:
            if c.function not in scopes:
                continue
            for i, a in enumerate(c.args):
                if a and arg_identifier(a) == s.other and a.strip().startswith(s.other):
                    found.extend((ix, c.callee) for ix in by_param.get((c.callee, i), ()))
        if not found:
            out.append(s)
            continue
        seen = set()
        for ix, via in found:
            if (ix, via) in seen:
                continue
            seen.add((ix, via))
            if len(seen) > MAX_SUBSCRIPTS:
                break
            out.append(_replace(s, subscript=ix, via=via, confidence="medium" if via else s.confidence))
    return out


def _beside(facts: FileFacts, sinks: list[WidthFact]) -> list[WidthFact]:
    """What else in the same function uses a warp-width value ("role other op value" strings):
    a 32-lane tile matters only where something beside it takes the tile for the warp."""
    around: dict[str, list[str]] = defaultdict(list)
    for lit in facts.literals:
        if lit.function and lit.role in ("binop", "compare", "loop-bound", "array-dim"):
            around[lit.function].append(f"{lit.role} {lit.other} {lit.op} {lit.value}")
    for s in sinks:
        if s.function and s.sink in ("binop", "compare", "loop-bound", "array-dim"):
            around[s.function].append(f"{s.sink} {s.other} {s.op} {s.value}")
    for u in facts.uses:
        if u.role == "hardware" and u.function:  # the device's own width is used here
            around[u.function].append("hardware warpSize")
    if not around:
        return sinks
    return [_replace(s, beside=tuple(around.get(s.function, ()))) if s.function else s for s in sinks]


def _definitions(facts: FileFacts, sinks: list[WidthFact]) -> list[WidthFact]:
    """One fact per named root, at its definition, with every use it reaches as related."""
    groups: dict[tuple[str, Loc], list[WidthFact]] = defaultdict(list)
    first: dict[tuple[str, Loc], WidthFact] = {}
    for s in sinks:
        if s.root and s.root_loc is not None:
            key = (s.root, s.root_loc)
            groups[key].append(s)
            first.setdefault(key, s)
    # functions that vote across the whole wavefront (a ballot's lanes are the hardware's, not a
    # 32-lane logical group's): a width used beside one is taken for the hardware warp
    voting = {c.function for c in facts.calls if c.function and c.callee in _WAVE_VOTES}
    out = []
    for key, uses in groups.items():
        name, loc = key
        head = first[key]
        votes = sorted({u.function for u in uses if u.function in voting})
        related, seen = [], set()
        for u in sorted(uses, key=lambda u: (u.loc.path, u.loc.line, u.loc.column)):
            where = (u.loc.path, u.loc.line, u.loc.column)
            if where in seen or where == (loc.path, loc.line, loc.column):
                continue
            seen.add(where)
            related.append(RelatedLoc(*where, role_text(u.sink, u.op, u.index, u.other, u.callee_macro)))
        out.append(
            WidthFact(
                sink="definition",
                value=head.root_value,
                root=name,
                root_value=head.root_value,
                root_loc=loc,
                root_kind=head.root_kind,
                loc=loc,
                context="file",
                function="",
                expr=head.written,
                written=head.written,
                confidence="medium" if all(u.confidence == "medium" for u in uses) else "high",
                related=tuple(related),
                beside=tuple(f"wave vote in {f}" for f in votes),
            )
        )
    out.extend(_macro_definitions(facts, {loc for _name, loc in groups}))
    return out


def _mask_types(facts: FileFacts) -> list[WidthFact]:
    """A project typedef of a 32-bit integer that lane masks are kept in (`hypre_mask`,
    `bitmask_t`): one fact at the typedef with every call that hands it a mask or takes one from
    it, when one of them is a warp-sync intrinsic or a ballot (not a bit count alone)."""
    groups: dict[tuple[str, Loc], list] = defaultdict(list)
    for c in facts.calls:
        if c.mask_typedef and c.mask_typedef_loc is not None:
            groups[(c.mask_typedef, c.mask_typedef_loc)].append(c)
    out = []
    for (name, loc), calls in groups.items():
        if not any(c.callee.endswith("_sync") or c.callee in _MASK_SOURCES for c in calls):
            continue
        related, seen = [], set()
        for c in sorted(calls, key=lambda c: (c.loc.path, c.loc.line, c.loc.column)):
            where = (c.loc.path, c.loc.line, c.loc.column)
            if where not in seen:
                seen.add(where)
                role = f"result of {c.callee}" if c.callee in _MASK_SOURCES else f"argument 0 of {c.callee}"
                related.append(RelatedLoc(*where, role))
        out.append(
            WidthFact(
                sink="mask-type",
                value=32,
                root=name,
                root_value=32,
                root_loc=loc,
                root_kind="typedef",
                loc=loc,
                context="file",
                function="",
                op=calls[0].callee,
                related=tuple(related),
                written=name,
            )
        )
    return out


# calls whose result is a lane mask (a typedef holding it is 32 bits too narrow)
_MASK_SOURCES = frozenset({"__ballot", "__activemask", "__lanemask_lt"})
_WAVE_VOTES = frozenset({"__ballot", "__ballot_sync", "__any_sync", "__all_sync", "__any", "__all"})


def _macro_definitions(facts: FileFacts, done: set[Loc]) -> list[WidthFact]:
    """A width macro no code of this translation unit uses directly but another definition is
    built from (`#define MAX_WARPS (MAX_THREADS / WARP_SIZE)`): its value flows on from there."""
    defines = [d for d in facts.directives if d.kind == "define"]
    out = []
    for d in defines:
        name, _, body = d.text.partition(" ")
        if d.loc in done or not name or "(" in name:
            continue
        value = int_value(re.sub(r"//.*|/\*.*?\*/", "", body).strip() or "x")
        if value not in ROOT_VALUES:
            continue
        related = tuple(
            RelatedLoc.at(o.loc, f"in the definition of {o.text.split(' ')[0]}")
            for o in defines
            if o is not d and name in o.names[1:]
        )
        if not related:
            continue
        out.append(
            WidthFact(
                sink="definition",
                value=value,
                root=name,
                root_value=value,
                root_loc=d.loc,
                root_kind="macro",
                loc=d.loc,
                context="file",
                function="",
                expr=body.strip(),
                written=body.strip(),
                related=related,
            )
        )
    return out


def _replace(fact: WidthFact, **changes) -> WidthFact:
    from dataclasses import replace

    return replace(fact, **changes)
