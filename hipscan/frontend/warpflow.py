"""Named integer constants and the places they are used, for the warp-width analysis.

The warp width is usually written once (`#define WARP 32`, `constexpr int kWarpSize = 32`, an
enumerator, a static member, a template parameter's default) and used everywhere else by name.
This module records, while the extractor walks a translation unit, each use of such a name (and
of constant mask expressions such as ``~0u`` passed to a watched call) with its syntactic role and
the chain of names back to where its value is written. Values come from clang's constant
evaluation (``clang_Cursor_Evaluate``) for declarations and expressions; macro bodies, which clang
does not evaluate, are read from the source and folded with ``int_value``. A name whose value
cannot be told (a call, ``warpSize``, a macro with arguments) ends its chain there, quietly.
"""

from __future__ import annotations

import os
import re
import weakref
from typing import TYPE_CHECKING

import clang.cindex as ci

from hipscan.facts import ConstUseFact, Loc, NamedValue, SubscriptFact
from hipscan.frontend.bound import Direction, holds_wider
from hipscan.frontend.clang import (
    COMPARE_OPS,
    CONFIG_FUNCTIONS,
    FUNCTION_KINDS,
    VALUE_WRAPPERS,
    binary_operator,
    file_location_ptr,
)

if TYPE_CHECKING:
    from hipscan.frontend.extract import Extractor

K = ci.CursorKind
# The values a chain must reach to matter: warp width, lane mask, log2, half warp, 32-bit mask.
ROOT_VALUES = frozenset({32, 31, 5, 16, 0xFFFFFFFF})
INT_TYPES = frozenset(
    {
        ci.TypeKind.INT,
        ci.TypeKind.UINT,
        ci.TypeKind.LONG,
        ci.TypeKind.ULONG,
        ci.TypeKind.LONGLONG,
        ci.TypeKind.ULONGLONG,
        ci.TypeKind.SHORT,
        ci.TypeKind.USHORT,
    }
)
_WRAPS = frozenset(k.value for k in VALUE_WRAPPERS)
_FUNCTIONS = frozenset(k.value for k in FUNCTION_KINDS)
_IMPLICIT = frozenset({K.UNEXPOSED_EXPR.value, K.PAREN_EXPR.value})
_UNARY = K.UNARY_OPERATOR.value
_BINARY = K.BINARY_OPERATOR.value
_COMPOUND = K.COMPOUND_ASSIGNMENT_OPERATOR.value
_VAR = K.VAR_DECL.value
_FIELD = K.FIELD_DECL.value
_ALIASES = frozenset({K.TYPE_ALIAS_DECL.value, K.TYPEDEF_DECL.value})
_CALL = K.CALL_EXPR.value
_DECL_REF = K.DECL_REF_EXPR.value
_LITERAL = K.INTEGER_LITERAL.value
_STATIC_ASSERT = K.STATIC_ASSERT.value
_SUBSCRIPT = K.ARRAY_SUBSCRIPT_EXPR.value
_RETURN = K.RETURN_STMT.value
_FOR = K.FOR_STMT.value
_TEMPLATE_REF = K.TEMPLATE_REF.value
_NTTP = K.TEMPLATE_NON_TYPE_PARAMETER.value
_OVERLOADED = K.OVERLOADED_DECL_REF.value
_NAMESPACE_REF = K.NAMESPACE_REF.value
_TEMPLATE_PARAMS = frozenset(
    k.value for k in (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TEMPLATE_PARAMETER)
)
_ENUMERATOR = K.ENUM_CONSTANT_DECL.value
_PARM = K.PARM_DECL.value
_FUNCTION = K.FUNCTION_DECL.value
_COMPOUND_STMT = K.COMPOUND_STMT.value
_SHARED = K.CUDASHARED_ATTR
ARITH = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "|", "&", "^"})
_IDENT = re.compile(rb"[A-Za-z_]\w*")
_MACRO_BODY = re.compile(r"^[\s\w()+\-*/%<>&|^~]*$")
_NAME = re.compile(r"[A-Za-z_]\w*")
MAX_CHAIN = 8


class Flow:
    """Per translation unit: the integer constants seen so far and the uses of them."""

    def __init__(self, ex: Extractor) -> None:
        # a weak reference: a cycle with the extractor would keep the libclang translation unit
        # alive until the garbage collector runs (a parse's whole memory, per file)
        self.ex = weakref.proxy(ex)
        self.names: set[str] = set()  # constants declared so far (a use needs its declaration first)
        self._chains: dict[int, tuple[NamedValue, ...] | None] = {}  # declaration hash -> chain
        self._macro_chains: dict[str, tuple[NamedValue, ...] | None] = {}
        self._seen: set[tuple[str, int, int, str]] = set()
        self._hardware_seen: set[str] = set()
        self._params: dict[int, list[str]] = {}
        self._data: dict[str, tuple[str, bytes] | None] = {}

    # -- what is declared --------------------------------------------------------------------
    def declare(self, c: ci.Cursor, t: ci.Type | None = None) -> None:
        """A variable, enumerator or template parameter that may hold an integer constant."""
        kid = c._kind_id
        if kid == _ENUMERATOR:
            self.names.add(c.spelling)
        elif kid == _NTTP:
            self.names.add(c.spelling)
        elif kid == _VAR:
            t = t if t is not None else c.type
            if t.is_const_qualified() and t.get_canonical().kind in INT_TYPES:
                self.names.add(c.spelling)
        elif kid == _FUNCTION and c.spelling and _returned_constant(c, self.ex_children) is not None:
            # `constexpr unsigned threads_per_warp() { return 32u; }`: a width by another name
            self.names.add(c.spelling)
        elif kid == _PARM and c.spelling:
            # `unsigned mask = kFullWarpMask`: the value every call that leaves it out passes
            t = t if t is not None else c.type
            kids = self.ex_children(c)
            if kids and kids[-1].kind.is_expression() and t.get_canonical().kind in INT_TYPES:
                self.names.add(c.spelling)

    # -- where a file's text is --------------------------------------------------------------
    def _file(self, ptr: int) -> tuple[str, bytes] | None:
        """(path relative to the root, bytes) of a project file, carried by this TU or not."""
        name = self.ex._name(ptr)
        if name in self._data:
            return self._data[name]
        entry = self.ex.files.get(name)
        out: tuple[str, bytes] | None = None
        if entry is not None:
            out = (entry[0], entry[1].data)
        else:
            norm = os.path.normpath(name)
            if norm in self.ex.project and self.ex.root:
                try:
                    with open(norm, "rb") as fh:
                        out = (os.path.relpath(norm, self.ex.root).replace(os.sep, "/"), fh.read())
                except OSError:
                    out = None
        self._data[name] = out
        return out

    def _where(self, c: ci.Cursor) -> tuple[Loc, bytes, int] | None:
        ptr, line, col, off = file_location_ptr(c.location)
        f = self._file(ptr) if ptr else None
        if f is None:
            return None
        return Loc(f[0], line, col), f[1], off

    # -- chains ------------------------------------------------------------------------------
    def chain_of(self, target: ci.Cursor) -> tuple[NamedValue, ...] | None:
        key = target.hash
        if key in self._chains:
            return self._chains[key]
        self._chains[key] = None  # a cycle ends here
        out = self._chain(target)
        self._chains[key] = out
        return out

    def _chain(self, target: ci.Cursor) -> tuple[NamedValue, ...] | None:
        kid = target._kind_id
        init: ci.Cursor | None = None
        kind = "var"
        if kid == _VAR:
            from hipscan.frontend.extract import evaluate_int

            value = evaluate_int(target)
            kids = self.ex_children(target)
            init = kids[-1] if kids and kids[-1].kind.is_expression() else None
        elif kid == _ENUMERATOR:
            value = target.enum_value
            kids = self.ex_children(target)
            init = kids[-1] if kids else None
            kind = "enumerator"
        elif kid == _FUNCTION:
            init = _returned_constant(target, self.ex_children)
            if init is None:
                return None
            from hipscan.frontend.extract import evaluate_int

            value = evaluate_int(init)
            kind = "function"
        elif kid in (_NTTP, _PARM):
            from hipscan.frontend.extract import evaluate_int

            kids = self.ex_children(target)
            init = kids[-1] if kids and kids[-1].kind.is_expression() else None
            value = evaluate_int(init) if init is not None else None
            kind = "template-param" if kid == _NTTP else "param"
        else:
            return None
        if value is None:
            return None
        # a function's value is written at its `return` (where a port edits it), not its name
        where = self._where(init if kind == "function" and init is not None else target)
        if where is None:
            return None  # a library's constant, not the project's
        loc, data, _off = where
        written = self.ex.text(init, 80) if init is not None else ""
        me = NamedValue(target.spelling, loc, value & 0xFFFFFFFFFFFFFFFF, kind, written)
        best: tuple[NamedValue, ...] = ()
        if init is not None:
            for sub in self._refs(init):
                if sub and (not best or (sub[-1].value in ROOT_VALUES and best[-1].value not in ROOT_VALUES)):
                    best = sub
        return ((me,) + best)[:MAX_CHAIN]

    def ex_children(self, c: ci.Cursor) -> list[ci.Cursor]:
        from hipscan.frontend.extract import children

        return children(c)

    def _refs(self, expr: ci.Cursor, budget: int = 40) -> list[tuple[NamedValue, ...]]:
        """Chains of the names an initialiser uses (constants and value macros)."""
        out: list[tuple[NamedValue, ...]] = []
        stack = [expr]
        while stack and budget > 0:
            budget -= 1
            n = stack.pop()
            kid = n._kind_id
            if kid == _DECL_REF:
                target = n.referenced
                if target is not None and target._kind_id in (_VAR, _ENUMERATOR, _NTTP):
                    chain = self.chain_of(target)
                    if chain:
                        out.append(chain)
                continue
            if kid == _LITERAL:
                name = self._macro_at(n)
                if name:
                    chain = self.macro_chain(name)
                    if chain:
                        out.append(chain)
                continue
            stack.extend(reversed(self.ex_children(n)))
        return out

    def _macro_at(self, c: ci.Cursor) -> str:
        """The macro name written where a literal is (its expansion point), or ""."""
        where = self._where(c)
        if where is None:
            return ""
        _loc, data, off = where
        m = _IDENT.match(data, off)
        return m.group(0).decode("ascii", "replace") if m else ""

    def macro_chain(self, name: str, depth: int = 0) -> tuple[NamedValue, ...] | None:
        """An object-like project macro whose body folds to an integer: its chain."""
        if name in self._macro_chains:
            return self._macro_chains[name]
        self._macro_chains[name] = None
        out = self._macro(name, depth)
        self._macro_chains[name] = out
        return out

    def _macro(self, name: str, depth: int) -> tuple[NamedValue, ...] | None:
        from hipscan.exprtext import int_value

        self.ex.macro_literal("", 0)  # builds the table of project macro definitions
        macros = self.ex._macros or {}
        definition = macros.get(name)
        if definition is None or depth > MAX_CHAIN:
            return None
        ptr, line, _col, off = file_location_ptr(definition.location)
        f = self._file(ptr)
        if f is None:
            return None
        rel, data = f
        after = off + len(name.encode())
        if data[after : after + 1] == b"(":
            return None  # a macro with arguments: the chain ends
        end = data.find(b"\n", after)
        while end > 0 and data[end - 1 : end] == b"\\":
            end = data.find(b"\n", end + 1)
        body = data[after : end if end >= 0 else len(data)].decode("utf-8", "replace")
        body = re.sub(r"//.*|/\*.*?\*/", " ", body).replace("\\\n", " ").strip()
        if not body or len(body) > 80 or not _MACRO_BODY.match(body):
            return None
        sub: tuple[NamedValue, ...] = ()
        text = body

        def replace(m: re.Match[str]) -> str:
            nonlocal sub
            word = m.group(0)
            if word[0].isdigit():
                return word
            if word in ("unsigned", "int", "long", "uint32_t", "int32_t", "size_t"):
                return ""
            chain = self.macro_chain(word, depth + 1)
            if chain is None:
                raise ValueError(word)
            if not sub or (chain[-1].value in ROOT_VALUES and sub[-1].value not in ROOT_VALUES):
                sub = chain
            return f"({chain[0].value})"

        try:
            text = re.sub(r"\b[0-9A-Za-z_]\w*\b", replace, body)
        except ValueError:
            return None
        text = re.sub(r"\(\s*\)", "", text).replace("~", "-1-")  # ~x == -1 - x
        value = int_value(text)
        if value is None:
            return None
        if value < 0 and not re.search(r"(?i)ll\b|int64|long\s+long", body):
            value &= 0xFFFFFFFF  # `(unsigned)-1`, `~0u`: a 32-bit all-ones
        line_start = data.rfind(b"\n", 0, off) + 1
        hash_col = data.find(b"#", line_start, off)
        col = (hash_col - line_start + 1) if hash_col >= 0 else 1
        me = NamedValue(name, Loc(rel, line, col), value & 0xFFFFFFFFFFFFFFFF, "macro", body)
        return ((me,) + sub)[:MAX_CHAIN]

    # -- uses --------------------------------------------------------------------------------
    def ref(self, c: ci.Cursor, space: str, fname: str, parents: list[ci.Cursor]) -> None:
        """A DECL_REF_EXPR: a use when it names an integer constant."""
        name = c.spelling
        if name == "warpSize":
            self._hardware(c, space, fname)
            return
        if name not in self.names:
            return
        target = c.referenced
        if target is None or target._kind_id not in (_VAR, _ENUMERATOR, _NTTP, _PARM, _FUNCTION):
            return
        if target._kind_id == _FUNCTION:
            # the value is the call's: `threadIdx.x % threads_per_warp()`
            i = len(parents) - 1
            while i >= 0 and parents[i]._kind_id in _IMPLICIT:
                i -= 1
            if i < 0 or parents[i]._kind_id != _CALL or list(parents[i].get_arguments()):
                return
            c, parents = parents[i], parents[:i]
        chain = self.chain_of(target)
        if chain and _matters(chain):
            self.use(c, name, chain, space, fname, parents)

    def _hardware(self, c: ci.Cursor, space: str, fname: str) -> None:
        """A use of `warpSize` (the hardware width): once per function, so that a 32-lane group
        beside it can be told to be taken for the hardware warp."""
        if fname in self._hardware_seen:
            return
        self._hardware_seen.add(fname)
        where = self._where(c)
        if where is not None:
            self._record(ConstUseFact("warpSize", 0, where[0], space, fname, role="hardware"))

    def literal(self, c: ci.Cursor, space: str, fname: str, parents: list[ci.Cursor]) -> None:
        """An integer literal: a use of a value macro when the use site shows a macro name, and
        a template argument (`cub::WarpReduce<T, 32>`, `tiled_partition<32>`) when bare."""
        where = self._where(c)
        if where is None:
            return
        loc, data, off = where
        first = data[off : off + 1]
        if first.isalpha() or first == b"_":
            m = _IDENT.match(data, off)
            name = m.group(0).decode("ascii", "replace") if m else ""
            chain = self.macro_chain(name) if name else None
            if chain and _matters(chain):
                self.use(c, name, chain, space, fname, parents, loc)
            return
        if not parents:
            return
        p = parents[-1]
        if p._kind_id == _DECL_REF or (p._kind_id in (_VAR, _FIELD, *_ALIASES) and self._template_ref(p, c)):
            from hipscan.frontend.extract import evaluate_int

            value = evaluate_int(c)
            if value in ROOT_VALUES or value == 64:
                self.use(c, "", (), space, fname, parents, loc, value)

    def mask_argument(
        self,
        call: ci.Cursor,
        callee: str,
        arguments: list[ci.Cursor],
        space: str,
        fname: str,
        through: str = "",
    ) -> None:
        """A constant argument of a watched call written as an expression (`~0u`, `-1`,
        `static_cast<uint32_t>(-1)`): bare literals and names are recorded by their own paths.
        ``through``: the project wrapper the call names, which hands this argument to ``callee``."""
        from hipscan.frontend.extract import evaluate_int

        for i, a in enumerate(arguments[:1]):
            inner = a  # past implicit conversions (to the parameter's type) and parentheses
            while inner._kind_id in _IMPLICIT:
                nxt = self.ex_children(inner)
                if len(nxt) != 1:
                    break
                inner = nxt[0]
            if inner._kind_id in (_LITERAL, _DECL_REF) or inner._kind_id in _IMPLICIT:
                continue
            value = evaluate_int(inner)
            if value is None:
                continue
            where = self._where(inner)
            if where is None:
                continue
            self._record(
                ConstUseFact(
                    name="",
                    value=value & 0xFFFFFFFFFFFFFFFF,
                    loc=where[0],
                    context=space,
                    function=fname,
                    role="arg",
                    op=callee,
                    index=i,
                    expr=self.ex.text(call, 200),
                    other=self.ex.text(inner, 80),
                    decl_type=inner.type.spelling,
                    callee_macro="" if through else self.ex.callee_macro(call, callee),
                )
            )

    def _template_parameter(self, ref: ci.Cursor, arg: ci.Cursor) -> tuple[str, str]:
        """For `launch<32, 4, T>(...)`: the function template's name and the name of the template
        parameter this argument sets (`kNThreads`), also for a dependent call in a template."""
        from hipscan.frontend.clang import first_overload
        from hipscan.frontend.extract import _lib

        kids = self.ex_children(ref)
        head = [k for k in kids if k._kind_id in (_OVERLOADED, _NAMESPACE_REF, _TEMPLATE_REF)]
        args = [k for k in kids if k._kind_id not in (_OVERLOADED, _NAMESPACE_REF, _TEMPLATE_REF)]
        start = _span(arg)[0]
        index = next((n for n, a in enumerate(args) if _span(a)[0] == start), -1)
        name, template = ref.spelling, None
        overloaded = next((k for k in head if k._kind_id == _OVERLOADED), None)
        if overloaded is not None:
            name = overloaded.spelling
            template = first_overload(overloaded)
        else:
            target = ref.referenced
            if target is not None:
                template = _lib.clang_getSpecializedCursorTemplate(target)
                if template is not None and template.kind != K.FUNCTION_TEMPLATE:
                    template = target if target.kind == K.FUNCTION_TEMPLATE else None
        if template is None or index < 0:
            return name, ""
        params = [k for k in self.ex_children(template) if k._kind_id in _TEMPLATE_PARAMS]
        return name, params[index].spelling if index < len(params) else ""

    def _template_ref(self, decl: ci.Cursor, c: ci.Cursor) -> bool:
        for k in self.ex_children(decl):
            if k._kind_id == _TEMPLATE_REF:
                return True
            if k == c:
                return False
        return False

    def _record(self, fact: ConstUseFact) -> None:
        key = (fact.loc.path, fact.loc.line, fact.loc.column, fact.name)
        if key in self._seen:
            return
        self._seen.add(key)
        self.ex.facts.uses.append(fact)

    def use(
        self,
        c: ci.Cursor,
        name: str,
        chain: tuple[NamedValue, ...],
        space: str,
        fname: str,
        parents: list[ci.Cursor],
        loc: Loc | None = None,
        value: int | None = None,
    ) -> None:
        from hipscan.frontend.extract import evaluate_int

        if loc is None:
            where = self._where(c)
            if where is None:
                return
            loc = where[0]
        if (loc.path, loc.line, loc.column, name) in self._seen:
            return
        child = c
        folded = c  # the largest constant expression around the use
        i = len(parents) - 1
        while i >= 0:
            p = parents[i]
            pk = p._kind_id
            if pk in _WRAPS or pk == _UNARY:
                child, i = p, i - 1
                continue
            if pk == _BINARY and binary_operator(p) in ARITH:
                kids = self.ex_children(p)
                others = [k for k in kids if k != child]
                if others and evaluate_int(others[0]) is not None:
                    child = folded = p  # constant arithmetic: a value derived from the name
                    i -= 1
                    continue
            break
        if value is None:
            value = chain[0].value if folded is c else evaluate_int(folded)
        if value is None:
            return
        role, op, index, other, decl_type, storage = "other", "", -1, "", "", ()
        callee_macro = ""
        holds = False
        p = parents[i] if i >= 0 else None
        pk = p._kind_id if p is not None else -1
        if pk in (_BINARY, _COMPOUND):
            op = binary_operator(p)
            kids = self.ex_children(p)
            others = [k for k in kids if k != child]
            other = self.ex.text(others[0], 120) if others else ""
            if op in COMPARE_OPS:
                role = (
                    "loop-bound" if any(q._kind_id == _FOR for q in parents[max(0, i - 2) : i]) else "compare"
                )
                if any(q._kind_id == _STATIC_ASSERT for q in parents[max(0, i - 2) : i]):
                    role = "static-assert"
                    holds = self._holds_wider(p, op, chain)
            else:
                role = "binop"
        elif pk in _ALIASES and self._template_ref(p, child):
            role, other = "template-arg", p.spelling
            op = next((k.spelling for k in self.ex_children(p) if k._kind_id == _TEMPLATE_REF), "")
        elif pk in (_VAR, _FIELD):
            other, decl_type = p.spelling, p.type.spelling
            if any(k.kind == _SHARED for k in self.ex_children(p)):
                storage = ("shared",)
            if self._template_ref(p, child):
                role = "template-arg"
                op = next((k.spelling for k in self.ex_children(p) if k._kind_id == _TEMPLATE_REF), "")
            elif pk == _VAR and self._initialises(p, child):
                role = "init"
            else:
                role = "array-dim"
        elif pk == _NTTP:
            role, other = "init", p.spelling
        elif pk == _CALL:
            callee = p.spelling
            index = _position(list(p.get_arguments()), child)
            if callee == "dim3":
                role, op = "launch", "dim3"
                for q in reversed(parents[max(0, i - 3) : i]):
                    if q._kind_id == _CALL and q.spelling in CONFIG_FUNCTIONS:
                        op = "<<<>>>"
                        index = _position(list(q.get_arguments()), p)
                        break
            elif callee in CONFIG_FUNCTIONS:
                role, op = "launch", "<<<>>>"
            else:
                from hipscan.frontend.extract import callee_name

                role, op = "arg", callee or callee_name(p)
                if name and name in self.ex.text(p, 400):  # the name is written at the call
                    callee_macro = self.ex.callee_macro(p, op)
                intrinsic = self.ex.through_mask_wrapper(p, op, index)
                if intrinsic:  # the mask of the intrinsic the project's wrapper calls
                    op, index, callee_macro = intrinsic, 0, ""
        elif pk == _DECL_REF:
            role = "template-arg"
            op, other = self._template_parameter(p, child)
        elif pk == _STATIC_ASSERT:
            role = "static-assert"
        elif pk == _SUBSCRIPT:
            role = "subscript"
            base = self.ex_children(p)
            other = self.ex.text(base[0], 80) if base else ""
        elif pk == _RETURN:
            role = "return"
        self._record(
            ConstUseFact(
                name=name,
                value=value & 0xFFFFFFFFFFFFFFFF,
                loc=loc,
                context=space,
                function=fname,
                role=role,
                op=op,
                index=index,
                other=other,
                expr=self.ex.whole_expression(c, parents),
                decl_type=decl_type,
                storage=storage,
                chain=chain,
                guessed=any(n.kind == "template-param" for n in chain),
                callee_macro=callee_macro,
                holds_wider=holds,
            )
        )

    def _holds_wider(self, comparison: ci.Cursor, op: str, chain: tuple[NamedValue, ...]) -> bool:
        """Whether an asserted comparison with the width stays true at 64 (hipscan.frontend.bound)."""
        root = next((n.name for n in reversed(chain) if n.value in ROOT_VALUES), "")
        if not root:
            return False

        def reaches(name: str) -> bool:
            found = self.macro_chain(name)
            return found is None or any(n.name == root for n in found)

        return holds_wider(
            comparison, op, Direction(root, self.ex_children, binary_operator, self._macro_at, reaches)
        )

    def _initialises(self, decl: ci.Cursor, expr: ci.Cursor) -> bool:
        where = self.ex.loc(decl)
        if where is None:
            return False
        return self.ex._is_initializer(decl, expr, where[1], where[2])

    # -- subscripts --------------------------------------------------------------------------
    def subscript(
        self, c: ci.Cursor, kids: list[ci.Cursor], space: str, fname: str, parents: list[ci.Cursor]
    ) -> None:
        if len(kids) != 2:
            return
        base = kids[0]
        while base._kind_id in _WRAPS or base._kind_id == _SUBSCRIPT:
            inner = self.ex_children(base)
            if not inner:
                return
            base = inner[0]
        if base._kind_id != _DECL_REF:
            return
        index = self.ex.text(kids[1], 80)
        if not index:
            return
        where = self.ex.loc(c)
        if where is None:
            return
        name = base.spelling
        param = -1
        target = base.referenced
        if target is not None and target._kind_id == _PARM:
            fn = next((q for q in reversed(parents) if q._kind_id in _FUNCTIONS), None)
            if fn is not None:
                names = self._params.get(fn.hash)
                if names is None:
                    names = self._params[fn.hash] = [
                        k.spelling for k in self.ex_children(fn) if k._kind_id == _PARM
                    ]
                param = names.index(name) if name in names else -1
        self.ex.facts.subscripts.append(
            SubscriptFact(base=name, param=param, index=index, loc=where[0], context=space, function=fname)
        )


def _span(c: ci.Cursor) -> tuple[int, int]:
    ext = c.extent
    return ext.start.offset, ext.end.offset


def _position(arguments: list[ci.Cursor], node: ci.Cursor) -> int:
    """Which argument ``node`` is, or contains (cursors from different walks do not compare
    equal, so extents are compared; an argument's extent covers its implicit conversions)."""
    start, end = _span(node)
    for n, a in enumerate(arguments):
        s, e = _span(a)
        if s <= start and end <= e:
            return n
    return -1


def _returned_constant(fn: ci.Cursor, kids_of) -> ci.Cursor | None:
    """The expression a parameterless function returns when its body is that one `return`."""
    if list(fn.get_arguments() or ()) or not fn.is_definition():
        return None
    body = next((k for k in kids_of(fn) if k._kind_id == _COMPOUND_STMT), None)
    stmts = kids_of(body) if body is not None else []
    if len(stmts) != 1 or stmts[0]._kind_id != _RETURN:
        return None
    value = kids_of(stmts[0])
    return value[0] if len(value) == 1 and value[0].kind.is_expression() else None


def _matters(chain: tuple[NamedValue, ...]) -> bool:
    """A chain matters when some name on it holds a warp-width value."""
    return any(n.value in ROOT_VALUES for n in chain)
