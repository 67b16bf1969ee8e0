"""Values and names read from the source text of an expression.

Shared by the front end, the analyses and the rule matchers (which all sit above it), for what
clang's constant evaluation could not tell: ``96 * 1024``, ``0x18000u``, ``(void*)&tex``.
"""

from __future__ import annotations

import ast
import operator
import re

_IDENT = re.compile(r"[A-Za-z_]\w*")
_CAST = re.compile(r"^\(\s*[\w\s:*<>,]+\)\s*")
_INT_SUFFIX = re.compile(r"(?<=[0-9a-fA-F])[uUlL]+\b")

_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_WITH_OR = {**_BINOPS, ast.BitOr: operator.or_}


def arith(text: str, bit_or: bool = False) -> int | None:
    """Fold an integer expression already in Python spelling (``//`` for C's ``/``): ``+ - * // %
    << >>`` and unary signs (``|`` too with ``bit_or``); shifts beyond 64 bits are refused."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    ops = _WITH_OR if bit_or else _BINOPS

    def ev(n: ast.AST) -> int:
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.BinOp) and type(n.op) in ops:
            left, right = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.LShift | ast.RShift) and not 0 <= right <= 64:
                raise ValueError
            return ops[type(n.op)](left, right)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub | ast.UAdd):
            return -ev(n.operand) if isinstance(n.op, ast.USub) else ev(n.operand)
        raise ValueError

    try:
        return ev(node)
    except (ValueError, ZeroDivisionError):
        return None


def int_value(text: str) -> int | None:
    """Value of a constant integer expression such as ``96 * 1024`` or ``0x18000u``; else None."""
    t = _INT_SUFFIX.sub("", text.strip()).replace("/", "//")
    if not t or len(t) > 60:
        return None
    return arith(t)


def arg_identifier(text: str) -> str | None:
    """The variable an argument expression names: ``&tex`` / ``(void*)tex`` / ``tex[0]`` → tex."""
    t = text.strip()
    while True:
        t2 = _CAST.sub("", t).lstrip("&*( :")
        if t2 == t:
            break
        t = t2
    m = _IDENT.match(t)
    if not m:
        return None
    name = m.group(0)
    rest = t[m.end() :].lstrip()
    if rest.startswith("::"):  # qualified name: keep the last component
        return arg_identifier(rest[2:])
    return name
