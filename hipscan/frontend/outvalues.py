"""Values an API call writes through a pointer argument, followed to where the function reads them.

`cudaRuntimeGetVersion(&v)` hands back CUDA's version as 1000*major + 10*minor; HIP's twin hands back
HIP's own (10000000*major + 100000*minor + patch). What matters for a port is where the value is
decoded or compared (`v / 1000`, `v >= 11020`), so the uses are read from the enclosing function's
AST: a binary operator with the variable on one side and an integer literal on the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import clang.cindex as ci

from hipscan.frontend.clang import FUNCTION_KINDS, VALUE_WRAPPERS, binary_operator

K = ci.CursorKind
# arithmetic that decodes a version number and comparisons that test one
OPERATORS = frozenset({"/", "%", "<", "<=", ">", ">=", "==", "!="})


@dataclass(frozen=True, slots=True)
class OutValueUse:
    var: str
    op: str
    literal: int
    node: ci.Cursor  # the binary operator
    path: tuple[ci.Cursor, ...] = ()  # the nodes above it, ``fn`` first


def unwrap(c: ci.Cursor) -> ci.Cursor:
    """The node under casts, parentheses and other single-child wrappers."""
    while c.kind in VALUE_WRAPPERS:
        kids = list(c.get_children())
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def written_variable(arg: ci.Cursor) -> ci.Cursor | None:
    """The local variable an argument written `&v` points at."""
    node = unwrap(arg)
    if node.kind != K.UNARY_OPERATOR:
        return None
    kids = list(node.get_children())
    if len(kids) != 1:
        return None
    inner = unwrap(kids[0])
    if inner.kind != K.DECL_REF_EXPR or inner.referenced is None:
        return None
    if inner.referenced.kind not in (K.VAR_DECL, K.PARM_DECL):
        return None
    return inner.referenced


def enclosing_function(parents: list[ci.Cursor]) -> ci.Cursor | None:
    return next((p for p in reversed(parents) if p.kind in FUNCTION_KINDS), None)


def written_variables(
    arguments: list[ci.Cursor], parents: list[ci.Cursor]
) -> Iterator[tuple[ci.Cursor, ci.Cursor]]:
    """(the enclosing function, the local) for each `&v` argument of a call."""
    fn = enclosing_function(parents)
    if fn is None:
        return
    for arg in arguments:
        var = written_variable(arg)
        if var is not None:
            yield fn, var


def uses(fn: ci.Cursor, var: ci.Cursor, evaluate_int, ops: frozenset[str] = OPERATORS) -> list[OutValueUse]:
    """Binary operators (of ``ops``) in ``fn`` between ``var`` and an integer constant, in
    preorder, each with the nodes above it."""
    out: list[OutValueUse] = []
    target = var.hash
    stack: list[tuple[ci.Cursor, tuple[ci.Cursor, ...]]] = [(fn, ())]
    while stack:
        n, above = stack.pop()
        path = above + (n,)
        kids = list(n.get_children())
        stack.extend((k, path) for k in reversed(kids))
        if n.kind != K.BINARY_OPERATOR or len(kids) != 2:
            continue
        op = binary_operator(n)
        if op not in ops:
            continue
        a, b = (unwrap(k) for k in kids)
        for side, other in ((a, b), (b, a)):
            if (
                side.kind == K.DECL_REF_EXPR
                and side.referenced is not None
                and side.referenced.hash == target
            ):
                value = evaluate_int(other)
                if value is not None:
                    out.append(OutValueUse(var.spelling, op, value, n, path))
                break
    return out
