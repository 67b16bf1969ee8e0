"""Whether a comparison with the warp width stays true when the width grows from 32 to 64.

`static_assert(MAX_WARPS <= WARP_SIZE)` with `MAX_WARPS = MAX_BLOCK_SIZE / WARP_SIZE` (SUNDIALS'
block reduction) bounds a count by the width: at 64 the left side halves and the right side
doubles, so the assertion still holds and needs no edit. `static_assert(kWarpSize == 32)` or
`n >= kWarpSize` do not. The answer comes from the direction in which each side moves with the
width, read from the AST: literals are constant, the width's own name grows, a constant's
initialiser is followed, and `+ - * /` combine directions (operands taken as positive, as
block sizes and counts are). Anything else, a macro expanding to more than the width itself
included, is undecided, and undecided is "no".
"""

from __future__ import annotations

from collections.abc import Callable

import clang.cindex as ci

from hipscan.frontend.clang import VALUE_WRAPPERS

K = ci.CursorKind
# after the comparison is written "smaller OP larger": which side must not grow / not shrink
_UPPER = {"<": (0, 1), "<=": (0, 1), ">": (1, 0), ">=": (1, 0)}
_DEPTH = 4


class Direction:
    """How an integer expression moves when the width grows: +1, -1, 0 or None (unknown)."""

    def __init__(
        self,
        root: str,
        children: Callable[[ci.Cursor], list[ci.Cursor]],
        binary_operator: Callable[[ci.Cursor], str],
        macro_at: Callable[[ci.Cursor], str],
        macro_reaches: Callable[[str], bool],
    ) -> None:
        self.root = root
        self.children = children
        self.binary_operator = binary_operator
        self.macro_at = macro_at
        self.macro_reaches = macro_reaches

    def of(self, c: ci.Cursor, depth: int = _DEPTH) -> int | None:
        kind = c.kind
        if kind in VALUE_WRAPPERS:
            kids = self.children(c)
            return self.of(kids[-1], depth) if kids else None
        if kind == K.INTEGER_LITERAL:
            name = self.macro_at(c)
            if not name or name[0].isdigit():
                return 0
            if name == self.root:
                return 1
            return None if self.macro_reaches(name) else 0
        if kind == K.DECL_REF_EXPR:
            ref = c.referenced
            if ref is None or ref.kind != K.VAR_DECL:
                return None
            if ref.spelling == self.root:
                return 1
            if depth == 0:
                return None
            init = [k for k in self.children(ref) if k.kind.is_expression()]
            return self.of(init[-1], depth - 1) if init else None
        if kind == K.BINARY_OPERATOR:
            kids = self.children(c)
            if len(kids) != 2:
                return None
            a, b = self.of(kids[0], depth), self.of(kids[1], depth)
            if a is None or b is None:
                return None
            op = self.binary_operator(c)
            if op in ("+", "*"):
                return _combine(a, b)
            if op in ("-", "/"):
                return _combine(a, -b)
        return None


def _combine(a: int, b: int) -> int | None:
    if a == 0 or b == 0 or a == b:
        return a or b
    return None  # one grows, the other shrinks


def holds_wider(comparison: ci.Cursor, op: str, direction: Direction) -> bool:
    """True when ``comparison`` (``lhs OP rhs``, OP one of < <= > >=) stays true with the width at
    64: the side that must stay smaller does not grow and the other does not shrink."""
    sides = _UPPER.get(op)
    kids = direction.children(comparison)
    if sides is None or len(kids) != 2:
        return False
    small, large = direction.of(kids[sides[0]]), direction.of(kids[sides[1]])
    return small is not None and large is not None and small <= 0 <= large and (small, large) != (0, 0)
