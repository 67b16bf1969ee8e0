"""Layout facts of one source file read from its bytes and tokens: logical lines, directives.

C++ splices a line ending in a backslash onto the next one before anything else, so "the start of
a line" that is safe to put a comment in front of is the start of a *logical* line that is not
inside a multi-line comment or raw string.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from hipscan.translate.lexing import LexedFile, Tok


def _ends_with_splice(data: bytes, line_start: int) -> bool:
    """Does the physical line that ends just before ``line_start`` end in a backslash?"""
    end = line_start - 1  # the '\n'
    if end < 0:
        return False
    i = end - 1
    while i >= 0 and data[i] in b" \t\r\f\v":
        i -= 1
    return i >= 0 and data[i] == ord("\\")


@dataclass(slots=True)
class Directive:
    keyword: str  # include | define | if | ifdef | ... ("" for a null directive)
    first: int  # index of the '#' token
    last: int  # index of the directive's last token (inclusive)
    branch: tuple[int, ...]  # the conditional branches it sits in


class SourceLayout:
    """Line and token geometry of a file; everything the rewriter and marker placement share."""

    def __init__(self, lexed: LexedFile) -> None:
        self.lexed = lexed
        self.data = lexed.data
        self.starts = lexed.line_starts
        self._tok_starts = [t.start for t in lexed.tokens]
        self.directives = self._directives()

    # -- lines ------------------------------------------------------------------------------
    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1 + 1

    def line_start(self, line: int) -> int:
        return self.starts[max(0, min(line, len(self.starts)) - 1)]

    def logical_start(self, offset: int) -> int:
        """Offset of the start of the logical line holding ``offset``."""
        line = self.line_of(offset)
        while line > 1 and _ends_with_splice(self.data, self.starts[line - 1]):
            line -= 1
        return self.starts[line - 1]

    def logical_end(self, offset: int) -> int:
        """Offset of the newline that ends the logical line holding ``offset`` (or EOF)."""
        line = self.line_of(offset)
        while line < len(self.starts) and _ends_with_splice(self.data, self.starts[line]):
            line += 1
        return self.starts[line] - 1 if line < len(self.starts) else len(self.data)

    def token_spanning(self, offset: int) -> Tok | None:
        """A token that starts before ``offset`` and ends after it (multi-line comment/string)."""
        i = bisect.bisect_left(self._tok_starts, offset) - 1
        if i >= 0:
            tok = self.lexed.tokens[i]
            if tok.start < offset < tok.end:
                return tok
        return None

    def safe_line(self, line: int) -> int:
        """The nearest line at or above ``line`` before which a ``//`` comment line is valid C++."""
        line = max(1, min(line, len(self.starts)))
        while True:
            start = self.starts[line - 1]
            tok = self.token_spanning(start)
            if tok is not None:
                line = self.line_of(tok.start)
                continue
            if line > 1 and _ends_with_splice(self.data, start):
                line -= 1
                continue
            return line

    def indentation(self, line: int) -> bytes:
        start = self.starts[line - 1]
        end = start
        while end < len(self.data) and self.data[end] in b" \t":
            end += 1
        return self.data[start:end]

    # -- preprocessor -----------------------------------------------------------------------
    def _directives(self) -> list[Directive]:
        toks = self.lexed.tokens
        out: list[Directive] = []
        stack: list[int] = []
        counter = 0
        i = 0
        while i < len(toks):
            tok = toks[i]
            if tok.text != "#" or tok.kind != "punct" or not self._first_on_line(tok.start):
                i += 1
                continue
            end = self.logical_end(tok.start)
            j = i
            while j + 1 < len(toks) and toks[j + 1].start < end:
                j += 1
            keyword = toks[i + 1].text if i + 1 <= j else ""
            if keyword in ("if", "ifdef", "ifndef"):
                counter += 1
                stack.append(counter)
            elif keyword in ("elif", "else", "elifdef", "elifndef") and stack:
                counter += 1
                stack[-1] = counter
            branch = tuple(stack)
            if keyword == "endif" and stack:
                stack.pop()
            out.append(Directive(keyword, i, j, branch))
            i = j + 1
        return out

    def _first_on_line(self, offset: int) -> bool:
        start = self.logical_start(offset)
        return self.data[start:offset].strip() == b""

    def directive_token_indices(self) -> set[int]:
        return {k for d in self.directives for k in range(d.first, d.last + 1)}


def header_name(lexed: LexedFile, d: Directive) -> tuple[str, bool, int, int] | None:
    """(name, angled, start, end) of the header an #include directive names."""
    toks = lexed.tokens
    if d.first + 2 > d.last:
        return None
    tok = toks[d.first + 2]
    if tok.kind == "literal" and tok.text.startswith('"') and tok.text.endswith('"'):
        return tok.text[1:-1], False, tok.start, tok.end
    if tok.text == "<":
        for k in range(d.first + 3, d.last + 1):
            if toks[k].text == ">":
                name = lexed.data[tok.end : toks[k].start].decode("utf-8", "replace")
                return name.strip(), True, tok.start, toks[k].end
    return None
