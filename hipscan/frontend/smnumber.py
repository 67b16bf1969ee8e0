"""Where an SM number built from the compute capability (`prop.major * 10 + prop.minor`) goes.

On ROCm, `hipDeviceProp_t::major/minor` come from the gfx number (gfx90a 9.0, gfx942 9.4,
gfx1100 11.0), so the composed number is 90, 94 or 110: Hopper or later to every NVIDIA
threshold, table or `-arch=sm_XX` flag it meets. Only a comparison with a threshold below sm_70
(`version < 13`: "no double precision") treats AMD like any recent NVIDIA GPU, so a number that
only ever meets such thresholds is an old-GPU check with nothing to port.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import clang.cindex as ci

from hipscan.frontend.clang import COMPARE_OPS, FUNCTION_KINDS, VALUE_WRAPPERS, binary_operator, same_node
from hipscan.frontend.outvalues import unwrap

K = ci.CursorKind
ARITHMETIC = frozenset({"+", "-", "*", "|"})
USES = frozenset({K.DECL_REF_EXPR, K.CALL_EXPR})  # a variable's reads, a function's calls
OLD_GPU = "old-gpu"
NVIDIA = "nvidia"


def scale_of(mul: ci.Cursor, member: ci.Cursor, evaluate: Callable[[ci.Cursor], int | None]) -> int:
    """10 or 100 when ``mul`` is `major * 10` / `100 * major`; 0 otherwise."""
    if mul.kind != K.BINARY_OPERATOR or binary_operator(mul) != "*":
        return 0
    kids = list(mul.get_children())
    if len(kids) != 2:
        return 0
    other = kids[1] if _inside(member, kids[0]) else kids[0]
    value = evaluate(other)
    return value if value in SCALES else 0


def classify(
    mul: ci.Cursor,
    parents: list[ci.Cursor],
    scale: int,
    evaluate: Callable[[ci.Cursor], int | None],
    text: Callable[[ci.Cursor], str],
) -> tuple[str, str]:
    """(the expression to show, OLD_GPU or NVIDIA) for the SM number ``mul`` starts."""
    limit = 7 * scale  # sm_70: the oldest architecture ROCm-era code still tells apart
    at = next((i for i in range(len(parents) - 1, -1, -1) if parents[i] == mul), None)
    if at is None:
        return text(mul), NVIDIA
    node, i = mul, at
    while i > 0 and (
        parents[i - 1].kind in VALUE_WRAPPERS
        or (parents[i - 1].kind == K.BINARY_OPERATOR and binary_operator(parents[i - 1]) in ARITHMETIC)
    ):
        i -= 1
        node = parents[i]
    up = parents[i - 1] if i > 0 else None
    if up is not None and up.kind == K.BINARY_OPERATOR and binary_operator(up) in COMPARE_OPS:
        return text(up), _verdict([_threshold(up, node, evaluate)], limit)
    decl = _stored_in(up, node)
    if decl is None and up is not None and up.kind == K.RETURN_STMT:
        # `int getDeviceVersion() { return major * 100 + minor * 10; }`: judged at its calls
        decl = next((p for p in reversed(parents) if p.kind in FUNCTION_KINDS), None)
    if decl is None:
        return text(node), NVIDIA  # passed on, printed, kept in a field: out of sight
    scope = _scope(decl, parents)
    if scope is None:
        return text(node), NVIDIA
    return text(node), _verdict(list(_compared(scope, decl, evaluate)), limit)


def _verdict(thresholds: list[int | None], limit: int) -> str:
    if thresholds and all(t is not None and t < limit for t in thresholds):
        return OLD_GPU
    return NVIDIA


def _threshold(cmp: ci.Cursor, side: ci.Cursor, evaluate) -> int | None:
    kids = list(cmp.get_children())
    if len(kids) != 2:
        return None
    other = kids[1] if same_node(kids[0], side) or _inside(side, kids[0]) else kids[0]
    return evaluate(other)


def _stored_in(up: ci.Cursor | None, node: ci.Cursor) -> ci.Cursor | None:
    """The variable a `T v = ...;` or `v = ...;` puts the number in."""
    if up is None:
        return None
    if up.kind == K.VAR_DECL:
        return up
    if up.kind == K.BINARY_OPERATOR and binary_operator(up) == "=":
        lhs = next(iter(up.get_children()), None)
        while lhs is not None and lhs.kind in VALUE_WRAPPERS:
            lhs = next(iter(lhs.get_children()), None)
        if lhs is not None and lhs.kind == K.DECL_REF_EXPR and lhs.referenced is not None:
            ref = lhs.referenced
            return ref if ref.kind == K.VAR_DECL else None
    return None


def _scope(decl: ci.Cursor, parents: list[ci.Cursor]) -> ci.Cursor | None:
    """The function a local lives in; for a file-scope variable or a function, the translation
    unit (its part in this file)."""
    owner = decl.semantic_parent
    if decl.kind == K.VAR_DECL and owner is not None and owner.kind in FUNCTION_KINDS:
        return next((p for p in reversed(parents) if p.kind in FUNCTION_KINDS), None)
    return decl.translation_unit.cursor


def _compared(scope: ci.Cursor, decl: ci.Cursor, evaluate) -> Iterator[int | None]:
    """Each threshold a read of ``decl`` (or a call of it) is compared with (None: a use that is
    no comparison)."""
    where = decl.location.file.name if decl.location.file else None
    for ref, chain in _refs(scope, decl, [], where):
        node, up = ref, None
        for p in reversed(chain):
            if p.kind in VALUE_WRAPPERS:
                node = p
                continue
            up = p
            break
        if up is not None and up.kind == K.BINARY_OPERATOR and binary_operator(up) == "=":
            first = next(iter(up.get_children()), None)
            if first is not None and (same_node(first, node) or same_node(first, ref)):
                continue  # the store itself
        if up is not None and up.kind == K.BINARY_OPERATOR and binary_operator(up) in COMPARE_OPS:
            yield _threshold(up, node, evaluate)
        else:
            yield None


def _refs(c: ci.Cursor, decl: ci.Cursor, chain: list[ci.Cursor], where: str | None):
    for k in c.get_children():
        if c.kind == K.TRANSLATION_UNIT and (k.location.file is None or k.location.file.name != where):
            continue
        if k.kind in USES and k.referenced is not None and k.referenced == decl:
            yield k, chain + [c]
            continue
        yield from _refs(k, decl, chain + [c], where)


def _inside(inner: ci.Cursor, outer: ci.Cursor) -> bool:
    """Whether ``inner`` lies within ``outer``'s extent (the operand that holds the member)."""
    a, b = inner.extent, outer.extent
    return (
        a.start.file is not None
        and b.start.file is not None
        and a.start.file.name == b.start.file.name
        and b.start.offset <= a.start.offset
        and a.end.offset <= b.end.offset
    )


SCALES = (10, 100)  # `major * 10 + minor`, `100 * major + 10 * minor`

# the attribute queries that hand back the compute capability's major number through a pointer
# (`cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)`)
MAJOR_ATTRIBUTES = frozenset(
    {"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", "cudaDevAttrComputeCapabilityMajor"}
)


def names_major_attribute(arg: ci.Cursor) -> bool:
    """The argument names the compute capability's major-number attribute."""
    node = unwrap(arg)
    return node.kind == K.DECL_REF_EXPR and node.spelling in MAJOR_ATTRIBUTES
