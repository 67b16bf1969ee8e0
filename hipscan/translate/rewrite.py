"""Token-exact CUDA -> HIP edits for one file.

Only identifier tokens are renamed, so text inside comments and string literals (each a single
token) is never touched. Every edit replaces a byte range of the original file; none crosses a
newline, so the edited file keeps the original line numbering and markers can be added after.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, field

from hipscan.translate.lexing import AstLaunch, LexedFile, Tok
from hipscan.translate.mapping import HipMap
from hipscan.translate.result import IncludeChange, Unconverted
from hipscan.translate.source import Directive, SourceLayout, header_name

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}
# first tokens of an argument that is already cast (C-style or named cast)
_CASTS = frozenset({"(", "reinterpret_cast", "static_cast", "const_cast"})
_NULLS = frozenset({"0", "NULL", "nullptr", "0L", "0UL"})

# (including file's output-relative path, include name, angled) -> new include name, or None
# when the name is not a project file; the rewriter asks this for every #include it sees.
ProjectIncludes = Callable[[str, bool, int], str | None]  # (name, angled, line) -> new name


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    """Do two edits collide? An insertion (empty range) collides only strictly inside a range."""
    if a0 == a1 and b0 == b1:
        return False
    if a0 == a1:
        return b0 < a0 < b1
    if b0 == b1:
        return a0 < b0 < a1
    return a0 < b1 and b0 < a1


@dataclass(frozen=True, slots=True)
class Edit:
    start: int
    end: int
    text: bytes


@dataclass(slots=True)
class Rewrite:
    edits: list[Edit] = field(default_factory=list)
    converted: Counter = field(default_factory=Counter)
    renamed: dict[str, str] = field(default_factory=dict)
    unconverted: list[Unconverted] = field(default_factory=list)
    manual: list[Unconverted] = field(default_factory=list)  # renamed calls still to complete
    includes: list[IncludeChange] = field(default_factory=list)
    symbols_wrapped: int = 0
    args_cast: int = 0
    default_args_added: int = 0
    args_dropped: int = 0  # null arguments for parameters HIP does not have
    compile_flags: list[str] = field(default_factory=list)  # hipcc flags its headers need
    launches_rewritten: int = 0
    launches_kept: int = 0

    def apply(self, data: bytes) -> bytes:
        out, pos = [], 0
        for e in sorted(self.edits, key=lambda e: (e.start, e.end)):
            out.append(data[pos : e.start])
            out.append(e.text)
            pos = e.end
        out.append(data[pos:])
        return b"".join(out)


class Rewriter:
    """Computes the edits for one lexed file; call :meth:`run` once."""

    def __init__(
        self,
        lexed: LexedFile,
        layout: SourceLayout,
        hipmap: HipMap,
        *,
        launch_syntax: str = "chevron",
        project_names: frozenset[str] = frozenset(),
        project_include: ProjectIncludes = lambda name, angled, line: None,
    ) -> None:
        self.lx = lexed
        self.toks = lexed.tokens
        self.layout = layout
        self.map = hipmap
        self.launch_syntax = launch_syntax
        self.project_names = project_names
        self.project_include = project_include
        self.out = Rewrite()
        self._taken: list[tuple[int, int]] = []
        self._index = {t.start: k for k, t in enumerate(self.toks)}

    # -- edits ------------------------------------------------------------------------------
    def _edit(self, start: int, end: int, text: str) -> bool:
        """Record an edit unless it overlaps one already made or would join two lines."""
        if b"\n" in self.lx.data[start:end]:
            return False
        if any(_overlaps(start, end, s, e) for s, e in self._taken):
            return False
        self._taken.append((start, end))
        self.out.edits.append(Edit(start, end, text.encode("utf-8")))
        return True

    def run(self) -> Rewrite:
        in_directive = self._includes()
        self._identifiers(in_directive)
        self._symbol_calls()
        self._arg_casts()
        self._default_args()
        self._null_args()
        self._index_casts()
        self._member_casts()
        if self.launch_syntax == "hip":
            self._launches()
        else:
            self.out.launches_kept = sum(1 for t in self.toks if t.kind == "punct" and t.text == "<<<")
        return self.out

    # -- includes ---------------------------------------------------------------------------
    def _includes(self) -> set[int]:
        """Rewrite #include lines; returns the token indices of include directives."""
        skip: set[int] = set()
        seen: dict[str, list[tuple[int, ...]]] = {}
        for d in self.layout.directives:
            if d.keyword not in ("include", "include_next", "import"):
                continue
            skip.update(range(d.first, d.last + 1))
            header = header_name(self.lx, d)
            if header is None:
                continue
            name, angled, start, end = header
            line = self.layout.line_of(start)
            new, why = self._map_include(name, angled, line)
            key = new if new is not None else name
            spelled = f"<{name}>" if angled else f'"{name}"'
            if new == "":
                self._drop(d, end, f"{spelled} is not needed with HIP")
                self.out.includes.append(IncludeChange(line, name, "", "dropped"))
                continue
            if why == "mapped" and any(d.branch[: len(p)] == p for p in seen.get(key, [])):
                self._drop(d, end, f"{spelled} duplicates an include above once translated")
                self.out.includes.append(IncludeChange(line, name, "", "duplicate"))
                continue
            seen.setdefault(key, []).append(d.branch)
            flags = self.map.header_flags.get(name, ()) if new is None else ()
            self.out.compile_flags += [f for f in flags if f not in self.out.compile_flags]
            if new is not None and new != name:
                text = f"<{new}>" if angled else f'"{new}"'
                if self._edit(start, end, text):
                    self.out.includes.append(IncludeChange(line, name, new, why))
        return skip

    def _map_include(self, name: str, angled: bool, line: int) -> tuple[str | None, str]:
        project = self.project_include(name, angled, line)
        if project is not None:
            return project, "project"
        if name in self.map.headers:
            return self.map.headers[name], "mapped"
        return None, ""

    def _drop(self, d: Directive, header_end: int, why: str) -> None:
        start = self.toks[d.first].start
        self._edit(start, header_end, f"/* hipscan: {why} */")

    # -- identifiers ------------------------------------------------------------------------
    def _identifiers(self, skip: set[int]) -> None:
        toks = self.toks
        for i, tok in enumerate(toks):
            if tok.kind != "identifier" or i in skip:
                continue
            name = tok.text
            if name in self.map.keep or name in self.project_names:
                continue
            if tok.start in self.lx.declaration_names:
                continue  # the project declares something of this name right here
            prev = toks[i - 1] if i > 0 else None
            if prev is not None and prev.text in (".", "->"):
                continue  # a member of some object, not the API name
            if prev is not None and prev.text == "::" and self._user_qualified(i - 1):
                continue
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if name in self.map.namespaces and (
                (nxt is not None and nxt.text == "::") or (prev is not None and prev.text == "namespace")
            ):
                self._rename(tok, self.map.namespaces[name])
                continue
            if name in self.map.struct_tags and self._struct_tag(i):
                continue
            target = self._arity_rename(i) or self.map.names.get(name)
            if target is not None:
                self._rename(tok, target)
                if name in self.map.manual_args and nxt is not None and nxt.text == "(":
                    line, col = self.lx.line_col(tok.start)
                    self.out.manual.append(Unconverted(name, line, col, self.map.manual_args[name]))
            elif name in self.map.unsupported:
                line, col = self.lx.line_col(tok.start)
                self.out.unconverted.append(Unconverted(name, line, col))

    def _struct_tag(self, i: int) -> bool:
        """`struct cudaGraphicsResource *r` -> `hipGraphicsResource *r` (HIP's is a typedef)."""
        toks = self.toks
        prev = toks[i - 1] if i > 0 else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if prev is None or prev.text != "struct" or nxt is None or nxt.text in (";", "{"):
            return False
        name = toks[i].text
        if self._edit(prev.start, toks[i].end, self.map.struct_tags[name]):
            self.out.converted[name] += 1
            self.out.renamed[name] = self.map.struct_tags[name]
        return True

    def _user_qualified(self, colons: int) -> bool:
        """``X::name`` where X is a user namespace or class (not ``::name`` or ``cub::name``)."""
        if colons == 0:
            return False
        qual = self.toks[colons - 1]
        if qual.kind != "identifier":
            return qual.text == ">"  # Foo<T>::name: a member of a user template
        return qual.text not in self.map.namespaces and qual.text not in self.map.names

    def _rename(self, tok: Tok, target: str) -> None:
        if self._edit(tok.start, tok.end, target):
            self.out.converted[tok.text] += 1
            self.out.renamed[tok.text] = target

    # -- device symbols and kernel pointers ----------------------------------------------------
    def _symbol_calls(self) -> None:
        for tok, start, end in self._call_args(self.map.symbol_calls):
            first = self._token_at(start)
            if first is None or first.text == "HIP_SYMBOL":
                continue
            if first.kind == "literal" and first.text.endswith('"'):
                line, col = self.lx.line_col(first.start)
                self.out.unconverted.append(
                    Unconverted(tok.text, line, col, "symbol named by a string (removed in CUDA 5)")
                )
                continue
            if self._edit(start, start, "HIP_SYMBOL(") and self._edit(end, end, ")"):
                self.out.symbols_wrapped += 1

    def _arg_casts(self) -> None:
        """Cast an argument HIP declares narrower than CUDA (a kernel as ``const void*``...)."""
        for tok, args in self._calls(self.map.arg_casts):
            index, cast = self.map.arg_casts[tok.text]
            if index >= len(args):
                continue
            start, end = args[index]
            first = self._token_at(start)
            if first is None or first.text in _CASTS:
                continue  # already a cast: (const void *)k, reinterpret_cast<...>(k)
            self._cast(start, end, cast)

    def _cast(self, start: int, end: int, cast: str) -> None:
        """Wrap the argument at [start, end) as `cast(argument)`."""
        if self._edit(start, start, f"{cast}(") and self._edit(end, end, ")"):
            self.out.args_cast += 1

    def _default_args(self) -> None:
        """Spell out trailing arguments CUDA's C++ API defaults and HIP's does not."""
        for tok, args in self._calls(self.map.default_args):
            arity, tail = self.map.default_args[tok.text]
            first = arity - len(tail)
            if not first <= len(args) < arity:
                continue
            extra = "".join(f", {t}" for t in tail[len(args) - first :])
            end = args[-1][1]
            if self._edit(end, end, extra):
                self.out.default_args_added += 1

    def _index_casts(self) -> None:
        """Cast built-in index arguments of min/max to CUDA's `unsigned int`."""
        for _tok, args in self._calls(self.map.index_casts):
            for start, end in args:
                if self.map.index_members.fullmatch(self._text(start, end)):
                    self._cast(start, end, self.map.index_cast)

    def _member_casts(self) -> None:
        """`h.x` of a half2 -> `reinterpret_cast<half&>(h.x)` (HIP declares the member narrower)."""
        for start, end, rtype, member, const in self.lx.members:
            members, cast, const_cast = self.map.member_casts[rtype]
            if member not in members:
                continue
            k = self._index.get(start)
            if k is not None and k >= 2 and self.toks[k - 1].text == "(" and self.toks[k - 2].text == ">":
                continue  # already inside a cast's parentheses
            self._cast(start, end, const_cast if const else cast)

    def _text(self, start: int, end: int) -> str:
        return self.lx.data[start:end].decode("utf-8", "replace").strip()

    def _null_args(self) -> None:
        """Drop a null argument for a parameter HIP's counterpart does not have."""
        for tok, args in self._calls(self.map.null_args):
            index = self.map.null_args[tok.text]
            if index + 1 >= len(args):
                continue
            start, end = args[index]
            if self._text(start, end) not in _NULLS:
                continue  # a real callback: kept, and reported by the scan
            if self._edit(start, args[index + 1][0], ""):
                self.out.args_dropped += 1

    def _arity_rename(self, i: int) -> str | None:
        """The other HIP name of a CUDA overload HIP splits by argument count, if this is one."""
        rule = self.map.arity_renames.get(self.toks[i].text)
        if rule is None or i + 1 >= len(self.toks) or self.toks[i + 1].text != "(":
            return None
        args = self.lx.call_args.get(self.toks[i].start) or self._split_args(i + 1)
        return rule[1] if args is not None and len(args) == rule[0] else None

    def _calls(self, names: Container[str]) -> Iterator[tuple[Tok, list[tuple[int, int]]]]:
        """Each call to one of ``names``: the name token and its arguments' byte ranges."""
        toks = self.toks
        for i, tok in enumerate(toks):
            if tok.kind != "identifier" or tok.text not in names:
                continue
            if i + 1 >= len(toks) or toks[i + 1].text != "(":
                continue
            args = self.lx.call_args.get(tok.start) or self._split_args(i + 1)
            if args:
                yield tok, list(args)

    def _call_args(self, calls: dict[str, int]) -> Iterator[tuple[Tok, int, int]]:
        """(name token, start, end) of the argument at the index ``calls`` gives for the call."""
        for tok, args in self._calls(calls):
            index = calls[tok.text]
            if index < len(args):
                yield tok, args[index][0], args[index][1]

    def _token_at(self, offset: int) -> Tok | None:
        k = self._index.get(offset)
        return None if k is None else self.toks[k]

    def _match(self, i: int) -> int | None:
        """Index of the bracket closing the one at token ``i``."""
        depth = 0
        for k in range(i, len(self.toks)):
            text = self.toks[k].text
            if text in _OPEN:
                depth += 1
            elif text in _CLOSE:
                depth -= 1
                if depth == 0:
                    return k
        return None

    def _split_args(self, open_index: int, close_index: int | None = None) -> list[tuple[int, int]] | None:
        """Byte ranges of the comma-separated arguments between two brackets (tokens only)."""
        close = close_index if close_index is not None else self._match(open_index)
        if close is None:
            return None
        args: list[tuple[int, int]] = []
        depth, first, last = 0, None, None
        for k in range(open_index + 1, close):
            tok = self.toks[k]
            if tok.kind == "comment":
                continue
            if tok.text in _OPEN:
                depth += 1
            elif tok.text in _CLOSE:
                depth -= 1
            if depth == 0 and tok.text == ",":
                if first is None:
                    return None
                args.append((first.start, last.end))
                first = last = None
                continue
            first = first or tok
            last = tok
        if first is not None:
            args.append((first.start, last.end))
        return args

    # -- kernel launches --------------------------------------------------------------------
    def _launches(self) -> None:
        index = self._index
        for k, tok in enumerate(self.toks):
            if tok.kind != "punct" or tok.text != "<<<":
                continue
            site = self.lx.launches.get(tok.start) or self._token_launch(k)
            if site is None or not self._emit_launch(site, index):
                self.out.launches_kept += 1
            else:
                self.out.launches_rewritten += 1

    def _token_launch(self, k: int) -> AstLaunch | None:
        """Read ``kernel<<<config>>>(args)`` from tokens alone (macro bodies, unknown kernels)."""
        toks = self.toks
        close = next((j for j in range(k + 1, len(toks)) if toks[j].text == ">>>"), None)
        if close is None or close + 1 >= len(toks) or toks[close + 1].text != "(":
            return None
        start = self._kernel_start(k)
        if start is None:
            return None
        config = self._split_args(k, close)
        rparen = self._match(close + 1)
        if config is None or rparen is None:
            return None
        args = self._split_args(close + 1, rparen)
        if args is None:
            return None
        kernel = (toks[start].start, toks[k - 1].end)
        return AstLaunch(
            kernel, toks[k].start, toks[close].start, tuple(config), tuple(args), toks[rparen].end
        )  # template: told by the kernel's spelling and the file's own templates

    def _kernel_start(self, k: int) -> int | None:
        """Token index where the kernel expression before ``<<<`` (token ``k``) starts."""
        toks = self.toks
        j = k - 1
        while j >= 0:
            tok = toks[j]
            if tok.text == ">":  # template arguments: walk back to the matching '<'
                depth = 0
                while j >= 0:
                    t = toks[j].text
                    depth += t == ">"
                    depth -= t == "<"
                    depth += 2 * (t == ">>")
                    if depth == 0:
                        break
                    j -= 1
                j -= 1
                if j < 0:
                    return None
                tok = toks[j]
            if tok.kind != "identifier" and tok.text != ")":
                return None
            if tok.text == ")":
                depth = 0
                while j >= 0:
                    depth += toks[j].text == ")"
                    depth -= toks[j].text == "("
                    if depth == 0:
                        break
                    j -= 1
                if j < 0:
                    return None
            if j >= 2 and toks[j - 1].text == "::":
                j -= 2
                continue
            if j >= 1 and toks[j - 1].text == "::":
                return j - 1
            return j
        return None

    def _emit_launch(self, site: AstLaunch, index: dict[int, int]) -> bool:
        """``k<<<g, b, s, q>>>(args)`` -> ``hipLaunchKernelGGL(k, dim3(g), dim3(b), s, q, args)``.

        The spelling is hipify-clang's: grid and block wrapped in ``dim3(...)`` unless already
        so, shared memory and stream defaulting to 0, a template kernel in HIP_KERNEL_NAME(...).
        Edits never join lines: where the launch head spans lines, each piece is edited in place.
        """
        close = index.get(site.close)
        if close is None or close + 1 >= len(self.toks) or self.toks[close + 1].text != "(":
            return False
        if not 2 <= len(site.config) <= 4:
            return False
        lparen = self.toks[close + 1]
        rparen = site.end - 1
        kernel_text = self._edited(site.kernel[0], site.kernel[1])
        named = site.template or "<" in kernel_text or kernel_text.rsplit("::", 1)[-1] in self.lx.templates
        config = [self._edited(s, e) for s, e in site.config]
        for k in (0, 1):
            if not config[k].startswith("dim3("):
                config[k] = f"dim3({config[k]})"
        config += ["0"] * (4 - len(config))
        kernel = f"HIP_KERNEL_NAME({kernel_text})" if named else kernel_text
        head = f"hipLaunchKernelGGL({kernel}, {', '.join(config)}"
        head_end = site.args[0][0] if site.args else rparen
        if b"\n" not in self.lx.data[site.kernel[0] : head_end]:
            if not self._replace(site.kernel[0], head_end, head + (", " if site.args else "")):
                return False
            tail = site.args[-1][1] if site.args else None
            if tail is not None and self.lx.data[tail:rparen].strip() == b"":
                self._replace(tail, rparen, "")
            return True
        pieces = [
            (site.kernel[0], site.kernel[0], "hipLaunchKernelGGL(" + ("HIP_KERNEL_NAME(" if named else ""))
        ]
        pieces.append((site.open, site.open + 3, (")" if named else "") + ", "))
        for s, e in site.config[:2]:
            if not self._edited(s, e).startswith("dim3("):
                pieces += [(s, s, "dim3("), (e, e, ")")]
        pieces.append((site.close, site.close + 3, "".join(f", {c}" for c in config[len(site.config) :])))
        pieces.append((lparen.start, lparen.end, ", " if site.args else ""))
        for s, e, _ in pieces:
            if any(_overlaps(s, e, ts, te) for ts, te in self._taken):
                return False
        for s, e, text in pieces:
            self._edit(s, e, text)
        return True

    def _edited(self, start: int, end: int) -> str:
        """The text of [start, end) with the edits already made inside it applied."""
        inside = sorted(
            (
                e
                for e in self.out.edits
                if start <= e.start and e.end <= end and (e.start, e.end) != (end, end)
            ),
            key=lambda e: e.start,
        )
        out, pos = [], start
        for e in inside:
            out.append(self.lx.data[pos : e.start])
            out.append(e.text)
            pos = e.end
        out.append(self.lx.data[pos:end])
        return b"".join(out).decode("utf-8", "replace").strip()

    def _replace(self, start: int, end: int, text: str) -> bool:
        """Replace [start, end) by ``text``, taking over the edits made inside it (their effect
        is in ``text``); refused where an edit straddles the range or the range spans lines."""
        if b"\n" in self.lx.data[start:end]:
            return False
        inside = [
            e for e in self.out.edits if start <= e.start and e.end <= end and (e.start, e.end) != (end, end)
        ]
        for s, e in self._taken:
            straddles = _overlaps(start, end, s, e) and not (start <= s and e <= end)
            if straddles:
                return False
        for e in inside:
            self.out.edits.remove(e)
            self._taken.remove((e.start, e.end))
        return self._edit(start, end, text)
