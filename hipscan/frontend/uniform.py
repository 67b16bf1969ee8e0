"""Whether a lane test only chooses between values every thread of the block sees alike.

`v = threadIdx.x % 32 == 0 ? prefix[s] : identity` hands each warp's first lane a value that does
not depend on the thread (mamba's selective scan seeds cub's per-warp scan this way). On a
64-wide wavefront lane 32 is picked too and gets the same value as lane 0: every lane the
wavefront needs still has it, so the width is harmless there, unlike a lane test that decides
which thread writes or which per-lane slot is read. This module answers the narrow question for
the front end: is a literal inside the condition of a `?:` whose two arms are thread-invariant.

Thread-invariant is judged on the AST, conservatively: an arm may read kernel parameters,
globals, `__shared__` variables and locals whose initialiser and every assignment are
thread-invariant in turn; `threadIdx`, lane intrinsics, shuffles and ballots, parameters of a
device function (its caller's per-thread values) or a local without an initialiser are not.
"""

from __future__ import annotations

from collections.abc import Callable

import clang.cindex as ci

K = ci.CursorKind

# names whose value differs between the threads of a block
THREAD_NAMES = frozenset({"threadIdx", "__lane_id", "__laneid", "laneid"})
THREAD_CALL_PREFIXES = ("__shfl", "__ballot", "__activemask", "__any", "__all", "__match", "__reduce")
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
_DEPTH = 4


def selects_uniform(
    literal: ci.Cursor,
    parents: list[ci.Cursor],
    children: Callable[[ci.Cursor], list[ci.Cursor]],
    binary_operator: Callable[[ci.Cursor], str],
) -> bool:
    """True when ``literal`` sits in the condition of a conditional operator (through other
    expressions only) whose two result arms are thread-invariant."""
    child = literal
    for i in range(len(parents) - 1, -1, -1):
        p = parents[i]
        if p.kind == K.CONDITIONAL_OPERATOR:
            kids = children(p)
            if len(kids) != 3 or kids[0] != child:
                return False
            walk = _Walk(parents[:i], children, binary_operator)
            return all(walk.invariant(k, _DEPTH) for k in kids[1:])
        if not p.kind.is_expression():
            return False
        child = p
    return False


class _Walk:
    def __init__(self, outer: list[ci.Cursor], children, binary_operator) -> None:
        self.children = children
        self.binary_operator = binary_operator
        fn = next(
            (p for p in reversed(outer) if p.kind in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD)),
            None,
        )
        self.function = fn
        self.kernel = fn is not None and any(k.kind == K.CUDAGLOBAL_ATTR for k in children(fn))
        self._assigned: dict[int, list[ci.Cursor]] | None = None

    def invariant(self, c: ci.Cursor, depth: int) -> bool:
        if c.kind == K.CALL_EXPR and c.spelling.startswith(THREAD_CALL_PREFIXES):
            return False
        if c.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR) and c.spelling in THREAD_NAMES:
            return False
        if c.kind == K.DECL_REF_EXPR:
            ref = c.referenced
            if ref is not None and not self.declared_invariant(ref, depth):
                return False
        return all(self.invariant(k, depth) for k in self.children(c))

    def declared_invariant(self, ref: ci.Cursor, depth: int) -> bool:
        if ref.kind == K.PARM_DECL:
            return self.kernel  # a kernel's arguments are the same for every thread
        if ref.kind != K.VAR_DECL:
            return ref.spelling not in THREAD_NAMES  # functions, enumerators, fields
        if ref.semantic_parent is None or ref.semantic_parent.kind not in (
            K.FUNCTION_DECL,
            K.FUNCTION_TEMPLATE,
            K.CXX_METHOD,
        ):
            return ref.spelling not in THREAD_NAMES  # globals, namespace and static members
        kids = self.children(ref)
        if any(k.kind == K.CUDASHARED_ATTR for k in kids):
            return True  # one copy for the whole block
        if depth == 0:
            return False
        init = [k for k in kids if k.kind.is_expression()]
        if not init:
            return False  # set later, by code this walk does not follow
        sources = init + self.assigned().get(ref.hash, [])
        return all(self.invariant(s, depth - 1) for s in sources)

    def assigned(self) -> dict[int, list[ci.Cursor]]:
        """Right-hand sides assigned to each local in the enclosing function, by declaration."""
        if self._assigned is None:
            self._assigned = {}
            if self.function is not None:
                self._collect(self.function)
        return self._assigned

    def _collect(self, c: ci.Cursor) -> None:
        if c.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            kids = self.children(c)
            if len(kids) == 2 and self.binary_operator(c) in ASSIGN_OPS:
                target = _target(kids[0], self.children)
                if target is not None:
                    self._assigned.setdefault(target.hash, []).append(kids[1])
        for k in self.children(c):
            self._collect(k)


def _target(c: ci.Cursor, children) -> ci.Cursor | None:
    """The variable an assignment writes (through parentheses and casts), if a plain name."""
    while c.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) and children(c):
        c = children(c)[0]
    if c.kind == K.DECL_REF_EXPR and c.referenced is not None:
        return c.referenced
    return None
