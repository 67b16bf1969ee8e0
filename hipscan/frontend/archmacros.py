"""Macros that stand for "nvcc's device pass": ``__CUDA_ARCH__`` and what projects derive from it.

Code such as ``#ifdef TURING_MMA_AVAILABLE`` (where ``common.cuh`` defines that macro only under
``#if __CUDA_ARCH__ >= 750``) is inactive in a host-side parse just like ``#if __CUDA_ARCH__``
itself, and holds the same inline PTX. The front end reads such blocks from the token stream, so
it needs to know which macros are derived. Preprocessor directives are not in the AST; this is a
line scan of directives (comments and continuation lines handled), iterated to a fixpoint.
"""

from __future__ import annotations

import re
from pathlib import Path

BASE = frozenset({"__CUDA_ARCH__", "__CUDA_ARCH_LIST__", "__CUDA_ARCH_FEAT_SM90_ALL"})
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif|define)\b(.*)$")
NAME = re.compile(r"[A-Za-z_]\w*")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _directives(text: str) -> list[tuple[str, str]]:
    text = COMMENT.sub(" ", text.replace("\\\r\n", " ").replace("\\\n", " "))
    out = []
    for line in text.splitlines():
        m = DIRECTIVE.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def derived_macros(files: list[Path], limit: int = 2_000_000) -> frozenset[str]:
    """BASE plus every macro a project file defines inside a block conditioned on one of them."""
    parsed: list[list[tuple[str, str]]] = []
    for f in files:
        try:
            data = f.read_bytes()[:limit]
        except OSError:
            continue
        if b"#" not in data:
            continue
        parsed.append(_directives(data.decode("utf-8", "replace")))
    arch = set(BASE)
    while True:
        found: set[str] = set()
        for directives in parsed:
            stack: list[bool] = []  # per open #if chain: does any of its conditions name an arch macro
            for kind, rest in directives:
                names = set(NAME.findall(rest))
                if kind in ("if", "ifdef", "ifndef"):
                    stack.append(bool(names & arch))
                elif kind == "elif" and stack:
                    stack[-1] = stack[-1] or bool(names & arch)
                elif kind == "endif" and stack:
                    stack.pop()
                elif kind == "define" and any(stack):
                    m = NAME.match(rest.strip())
                    if m:
                        found.add(m.group(0))
        if found <= arch:
            return frozenset(arch)
        arch |= found
