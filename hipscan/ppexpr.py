"""Evaluate a preprocessor condition (`defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800`) under given
macro values, to tell whether an NVIDIA build and a HIP build take the same branch.

A tokenizer and precedence-climbing parser over the C preprocessor's integer expressions; the
directive text comes from the libclang token stream. A name with no given value is unknown rather
than 0 (the project may define it); unknowns propagate, except where `&&`, `||` or `?:` decide
without them (`defined(X) && UNKNOWN` is 0 when X is undefined).
"""

from __future__ import annotations

import operator
import re

_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|\d+)[uUlL]*|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%<>&|^!~()?:]))"
)
_BINARY = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "<": 7,
    "<=": 7,
    ">": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}


_OPS = {
    "||": lambda a, b: bool(a) or bool(b),
    "&&": lambda a, b: bool(a) and bool(b),
    "|": operator.or_,
    "^": operator.xor,
    "&": operator.and_,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": lambda a, b: int(a / b),  # C truncates toward zero
    "%": operator.mod,
}


class _Unknown(Exception):
    pass


_UNDEFINED = None  # marks a name known not to be defined


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise _Unknown
        out.append(m.group("num") or m.group("name") or m.group("op"))
        pos = m.end()
    return out


def evaluate(text: str, values: dict[str, int], undefined: tuple[str, ...] = ()) -> int | None:
    """The condition's value with ``values`` defined and ``undefined`` not (an undefined name is
    0, as in the preprocessor); a name in neither makes it unknown (None) unless the operators
    around it decide."""
    try:
        toks = _tokens(text)
        pos, val = _expr(toks, 0, {**dict.fromkeys(undefined, _UNDEFINED), **values}, 0)
        if pos != len(toks):
            return None
        return val
    except (_Unknown, IndexError, ZeroDivisionError):
        return None


def _expr(toks: list[str], pos: int, values: dict[str, int | None], min_prec: int) -> tuple[int, int | None]:
    pos, left = _unary(toks, pos, values)
    while pos < len(toks):
        op = toks[pos]
        if op == "?" and min_prec == 0:
            pos, a = _expr(toks, pos + 1, values, 0)
            if toks[pos] != ":":
                raise _Unknown
            pos, b = _expr(toks, pos + 1, values, 0)
            left = None if left is None else (a if left else b)
            continue
        prec = _BINARY.get(op)
        if prec is None or prec < min_prec:
            break
        pos, right = _expr(toks, pos + 1, values, prec + 1)
        left = _apply(op, left, right)
    return pos, left


def _apply(op: str, a: int | None, b: int | None) -> int | None:
    if op == "&&" and (a == 0 or b == 0):
        return 0
    if op == "||" and ((a is not None and a != 0) or (b is not None and b != 0)):
        return 1
    if a is None or b is None:
        return None
    if op in ("/", "%") and b == 0:
        raise ZeroDivisionError
    return int(_OPS[op](a, b))


def _unary(toks: list[str], pos: int, values: dict[str, int | None]) -> tuple[int, int | None]:
    tok = toks[pos]
    if tok == "(":
        pos, val = _expr(toks, pos + 1, values, 0)
        if toks[pos] != ")":
            raise _Unknown
        return pos + 1, val
    if tok in ("!", "~", "-", "+"):
        pos, val = _unary(toks, pos + 1, values)
        if val is None:
            return pos, None
        return pos, {"!": int(not val), "~": ~val, "-": -val, "+": val}[tok]
    if tok == "defined":
        paren = toks[pos + 1] == "("
        name = toks[pos + 2] if paren else toks[pos + 1]
        end = pos + 4 if paren else pos + 2
        if paren and toks[pos + 3] != ")":
            raise _Unknown
        if name not in values:
            return end, None
        return end, int(values[name] is not _UNDEFINED)
    if tok[0].isdigit():
        return pos + 1, int(tok, 0) if not (len(tok) > 1 and tok[0] == "0" and tok[1].isdigit()) else int(
            tok, 8
        )
    if tok[0].isalpha() or tok[0] == "_":
        if tok in values:
            value = values[tok]
            return pos + 1, 0 if value is _UNDEFINED else value
        if pos + 1 < len(toks) and toks[pos + 1] == "(":  # a function-like macro: skip its call
            depth, j = 0, pos + 1
            while j < len(toks):
                depth += {"(": 1, ")": -1}.get(toks[j], 0)
                if depth == 0:
                    return j + 1, None
                j += 1
            raise _Unknown
        return pos + 1, None
    raise _Unknown


def same_branch(text: str, reference: dict[str, int], removed: tuple[str, ...]) -> bool | None:
    """Whether the condition has the same truth value in the reference build and in one where
    ``removed`` macros are not defined (None when either cannot be evaluated)."""
    a = evaluate(text, reference)
    b = evaluate(text, {k: v for k, v in reference.items() if k not in removed}, removed)
    if a is None or b is None:
        return None
    return bool(a) == bool(b)
