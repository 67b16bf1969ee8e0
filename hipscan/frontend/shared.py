"""Shared-memory sizes as the AST gives them, valued by clang's constant evaluation.

The front end only records what a size expression is and, where clang can evaluate it, its
value; ``hipscan.analysis.smem`` adds up a kernel's budget and falls back on the facts' own
constants (a `constexpr` member's initializer) where clang could not tell.
"""

from __future__ import annotations

import re

import clang.cindex as ci

from hipscan.facts import Loc, SharedSizeFact
from hipscan.frontend.clang import binary_operator

# The attribute a kernel's dynamic shared memory limit is raised with (runtime and driver API).
ATTRIBUTE_CALLEES = frozenset({"cudaFuncSetAttribute", "cuFuncSetAttribute"})
_MAX_DYNAMIC = re.compile(r"MaxDynamicSharedMemorySize|MAX_DYNAMIC_SHARED_SIZE_BYTES")
# The default dynamic shared memory limit above which CUDA needs the opt-in attribute.
OPT_IN_THRESHOLD = 48 * 1024
THRESHOLD_OPS = frozenset({">=", ">", "<", "<="})
_HOST_SPACES = frozenset({"host", "file", "host-device"})


def static_size(t: ci.Type) -> int | None:
    """Bytes of a fixed-size ``__shared__`` variable; None for dependent or incomplete types."""
    try:
        size = t.get_size()
    except ci.LibclangError:  # pragma: no cover - old bindings
        return None
    return size if size > 0 else None


def static_fact(t: ci.Type, storage: list[str], loc: Loc, space: str, fname: str) -> SharedSizeFact | None:
    """A kernel's (or device function's) own ``__shared__`` variable; ``extern __shared__`` arrays
    are the dynamic allocation and are sized by the launch instead."""
    if "shared" not in storage or "extern" in storage or space in ("host", "file"):
        return None
    return SharedSizeFact(
        kind="static",
        kernel="",
        expr=t.spelling,
        value=static_size(t),
        loc=loc,
        context=space,
        function=fname,
    )


def attribute_fact(
    callee: str,
    arguments: list[ci.Cursor],
    texts: tuple[str, ...],
    evaluate,
    identifier,
    loc: Loc,
    space: str,
    fname: str,
    spelled: str = "",
) -> SharedSizeFact | None:
    """``cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)``;
    ``spelled`` is the name written where the call is (a macro's, when the call is in its body)."""
    if callee not in ATTRIBUTE_CALLEES or len(arguments) < 3:
        return None
    # inside another macro's argument (`checkCudaErrors(cudaFuncSetAttribute(...))`) the
    # arguments have no text of their own: the names they refer to stand in for it
    texts = tuple(t or _referenced_name(a) for t, a in zip(texts, arguments, strict=False))
    if len(texts) < 3 or not _MAX_DYNAMIC.search(texts[1]):
        return None
    kernel = identifier(texts[0]) or ""
    if callee == "cuFuncSetAttribute":  # (function, attribute, value): the handle, not a name
        kernel = ""
    return SharedSizeFact(
        kind="dynamic-attribute",
        kernel=kernel,
        expr=texts[2],
        value=evaluate(arguments[2]),
        loc=loc,
        context=space,
        function=fname,
        macro=spelled if spelled and spelled != callee else "",
    )


def _referenced_name(cursor: ci.Cursor) -> str:
    """The first name an expression refers to (`(void *)k` -> k, an enumerator -> its name)."""
    for node in cursor.walk_preorder():
        if node.kind in (ci.CursorKind.DECL_REF_EXPR, ci.CursorKind.MEMBER_REF_EXPR) and node.spelling:
            return node.spelling
    return ""


def launch_fact(
    config_call: ci.Cursor,
    config: tuple[str, ...],
    kernel: str,
    evaluate,
    loc: Loc,
    space: str,
    fname: str,
) -> SharedSizeFact | None:
    """The third ``<<<grid, block, bytes>>>`` argument, when the launch writes one."""
    if len(config) < 3 or not config[2]:
        return None
    arguments = list(config_call.get_arguments())
    value = evaluate(arguments[2]) if len(arguments) >= 3 else None
    return SharedSizeFact(
        kind="launch", kernel=kernel, expr=config[2], value=value, loc=loc, context=space, function=fname
    )


def opt_in_fact(c: ci.Cursor, kids: list[ci.Cursor], evaluate, text, where, space: str, fname: str):
    """``if (smem >= 48 * 1024)``: a size compared with the 48 KiB default only opt-in code tests;
    the size side is recorded (valued when clang can), at the comparison."""
    if space not in _HOST_SPACES or len(kids) != 2 or binary_operator(c) not in THRESHOLD_OPS:
        return None
    left, right = kids
    if evaluate(right) == OPT_IN_THRESHOLD:
        size = left
    elif evaluate(left) == OPT_IN_THRESHOLD:
        size = right
    else:
        return None
    found = where(size)
    if found is None:
        return None
    return SharedSizeFact(
        kind="opt-in",
        kernel="",
        expr=text(size),
        value=evaluate(size),
        loc=found[0],
        context=space,
        function=fname,
    )
