"""Whether a lane test only chooses between values every thread of the block sees alike, or only
decides one step of a block-wide tree reduction (``block_step``, at the end).

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

import re
from collections.abc import Callable

import clang.cindex as ci

from hipscan.frontend.clang import FUNCTION_KINDS, first_overload

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
            (p for p in reversed(outer) if p.kind in FUNCTION_KINDS),
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
        if ref.semantic_parent is None or ref.semantic_parent.kind not in FUNCTION_KINDS:
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


# calls that make a thread wait for the whole block
BLOCK_BARRIERS = frozenset({"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"})
# warp-synchronous calls: a body holding one is warp code even if a block barrier follows
WARP_CALL_PREFIXES = ("__shfl", "shfl", "__ballot", "ballot", "__syncwarp", "__any", "__all", "__activemask")
_THREAD_BLOCK = ("thread_block", "cooperative_groups::thread_block", "cg::thread_block")
_CONST = re.compile(r"^const\s+|\s*&$")


def block_step(
    literal: ci.Cursor,
    parents: list[ci.Cursor],
    children: Callable[[ci.Cursor], list[ci.Cursor]],
) -> bool:
    """True when ``literal`` sits in the condition of an `if` whose body holds no warp-synchronous
    call and whose next statement is a block-wide barrier (`__syncthreads()`, `cg::sync(block)`,
    `block.sync()`): a step of a block-wide tree reduction, not code for one warp."""
    child = literal
    for i in range(len(parents) - 1, -1, -1):
        p = parents[i]
        if p.kind == K.IF_STMT:
            kids = children(p)
            if not kids or kids[0] != child or i == 0:
                return False
            if any(_warp_call(k, children) for k in kids[1:]):
                return False
            siblings = children(parents[i - 1])
            at = next((j for j, s in enumerate(siblings) if s == p), None)
            return at is not None and at + 1 < len(siblings) and _barrier(siblings[at + 1], children)
        if not p.kind.is_expression():
            return False
        child = p
    return False


def lockstep_fold(
    literal: ci.Cursor,
    parents: list[ci.Cursor],
    children: Callable[[ci.Cursor], list[ci.Cursor]],
) -> bool:
    """True when ``literal`` sits in the condition of an `if` with no `else` whose body folds
    values through `volatile` memory, or with `__syncwarp()` between the steps, and makes no other
    warp-synchronous call: `if (tid < 32) { s[tid] += s[tid + 32]; s[tid] += s[tid + 16]; ... }`,
    or a call of a helper that does the same (PyTorch3D's `WarpReduceMin`). That is the tail of a
    block reduction: its 32 lanes run in lockstep inside one 64-lane wavefront as well, so the
    code stays correct on AMD (ELPA's and PyTorch3D's ports kept it)."""
    body = _if_body(literal, parents, children)
    if body is None:
        return False
    calls = _calls(body, children)
    warp = _warp_names(calls)
    if warp - _WARP_BARRIER:
        return False
    helpers = [c for c in calls if c.spelling not in _WARP_BARRIER]
    if helpers:
        return all(_lockstep_helper(c, children) for c in helpers)
    return _shared_store(body, children, need_volatile=not warp)


def _if_body(literal: ci.Cursor, parents: list[ci.Cursor], children) -> ci.Cursor | None:
    """The body of the `if` (with no `else`) whose condition holds ``literal``, else None."""
    child = literal
    for p in reversed(parents):
        if p.kind == K.IF_STMT:
            kids = children(p)
            return kids[1] if len(kids) == 2 and kids[0] == child else None
        if not p.kind.is_expression():
            return None
        child = p
    return None


def _shared_store(c: ci.Cursor, children, need_volatile: bool) -> bool:
    """Whether the statement stores to an element (`s[tid] += s[tid + 16]`, `s[tid].x += ...`),
    through `volatile` memory when ``need_volatile`` (no `__syncwarp` orders the steps)."""
    stack = [c]
    while stack:
        n = stack.pop()
        if n.kind in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            lhs = children(n)[:1]
            while lhs and lhs[0].kind == K.MEMBER_REF_EXPR:  # `s[tid].x`: the element's own type
                lhs = children(lhs[0])[:1]
            if lhs and lhs[0].kind == K.ARRAY_SUBSCRIPT_EXPR:
                if not need_volatile or "volatile" in lhs[0].type.spelling:
                    return True
        stack.extend(children(n))
    return False


def _lockstep_helper(call: ci.Cursor, children) -> bool:
    """A call of a project helper that folds an element buffer through `volatile` memory, or
    with `__syncwarp` between its steps (PyTorch3D's `WarpReduceMin`), and makes no other warp
    call."""
    ref = call.referenced or _template_callee(call, children)
    definition = ref.get_definition() if ref is not None else None
    if definition is None:
        return False
    synced = _warp_names(_calls(definition, children))
    if synced - _WARP_BARRIER:
        return False
    params = [k for k in children(definition) if k.kind == K.PARM_DECL]
    volatile = any("volatile" in a.type.spelling for a in params)
    return (volatile or bool(synced)) and _shared_store(definition, children, need_volatile=not synced)


def guards_barrier(
    literal: ci.Cursor,
    parents: list[ci.Cursor],
    children: Callable[[ci.Cursor], list[ci.Cursor]],
) -> bool:
    """True when ``literal`` sits in the condition of an `if` with no `else` whose body is only a
    block-wide barrier (`if (offset > 16) __syncthreads();`): the barrier is skipped for the
    small steps, which then rely on a warp running in lockstep (TeaLeaf's and CloverLeaf's
    reduction templates)."""
    body = _if_body(literal, parents, children)
    if body is None:
        return False
    if body.kind == K.COMPOUND_STMT:
        stmts = children(body)
        if len(stmts) != 1:
            return False
        body = stmts[0]
    return _barrier(body, children)


def _calls(c: ci.Cursor, children) -> list[ci.Cursor]:
    out, stack = [], [c]
    while stack:
        n = stack.pop()
        if n.kind == K.CALL_EXPR:
            out.append(n)
        stack.extend(children(n))
    return out


def _template_callee(call: ci.Cursor, children) -> ci.Cursor | None:
    """The function template a dependent call names (`warp_reduce<T, blk>(s)` inside a template)."""
    kids = children(call)
    head = kids[0] if kids else None
    while head is not None and head.kind == K.UNEXPOSED_EXPR and children(head):
        head = children(head)[0]
    if head is None or head.kind != K.DECL_REF_EXPR:
        return None
    over = next((k for k in children(head) if k.kind == K.OVERLOADED_DECL_REF), None)
    return first_overload(over) if over is not None else None


_WARP_BARRIER = frozenset({"__syncwarp"})


def _warp_names(calls: list[ci.Cursor]) -> set[str]:
    """The warp-synchronous callees among ``calls``."""
    return {k.spelling for k in calls if k.spelling.startswith(WARP_CALL_PREFIXES)}


def _warp_call(c: ci.Cursor, children) -> bool:
    return bool(_warp_names(_calls(c, children)))


def _barrier(stmt: ci.Cursor, children) -> bool:
    while stmt.kind == K.UNEXPOSED_EXPR and children(stmt):
        stmt = children(stmt)[0]
    if stmt.kind != K.CALL_EXPR:
        return False
    if stmt.spelling in BLOCK_BARRIERS:
        return True
    if stmt.spelling != "sync":
        return False
    args = list(stmt.get_arguments())
    if args:  # cg::sync(block)
        return _is_block(args[0].type)
    kids = children(stmt)
    member = kids[0] if kids else None
    if member is not None and member.kind == K.MEMBER_REF_EXPR:  # block.sync()
        obj = children(member)
        while obj and obj[0].kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):  # the base-class cast
            obj = children(obj[0])
        return bool(obj) and _is_block(obj[0].type)
    return False


def _is_block(t: ci.Type) -> bool:
    return any(_CONST.sub("", n) in _THREAD_BLOCK for n in (t.spelling, t.get_canonical().spelling))
