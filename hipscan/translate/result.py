"""What translating one file produced; ``to_dict`` feeds the JSON and HTML readiness reports."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Unconverted:
    """A CUDA name the API table knows but HIP has no equivalent for; the code keeps it."""

    name: str
    line: int
    column: int
    reason: str = "no HIP equivalent"

    def to_dict(self) -> dict:
        return {"name": self.name, "line": self.line, "column": self.column, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Marker:
    """A ``// HIPSCAN`` comment line written above ``line`` (original numbering)."""

    rule: str
    line: int  # the finding's line in the original file
    output_line: int  # where the comment sits in the emitted file
    text: str

    def to_dict(self) -> dict:
        return {
            "rule": self.rule,
            "line": self.line,
            "output_line": self.output_line,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class IncludeChange:
    line: int
    old: str
    new: str  # "" when the include was commented out
    why: str  # mapped | project | dropped | duplicate

    def to_dict(self) -> dict:
        return {"line": self.line, "old": self.old, "new": self.new, "why": self.why}


@dataclass(slots=True)
class LineMap:
    """Emitted lines are the original lines plus inserted comment lines; this maps between them.

    ``inserted`` holds (original line, number of lines inserted just before it), sorted.
    """

    inserted: list[tuple[int, int]] = field(default_factory=list)

    def to_output(self, line: int) -> int:
        return line + sum(n for at, n in self.inserted if at <= line)

    def to_original(self, out_line: int) -> tuple[int, bool]:
        """(original line, True when ``out_line`` is an inserted comment line)."""
        shift = 0
        for at, n in self.inserted:
            first_inserted = at + shift
            if out_line < first_inserted:
                break
            if out_line < first_inserted + n:
                return at, True
            shift += n
        return out_line - shift, False

    def to_dict(self) -> dict:
        return {"inserted": [[at, n] for at, n in self.inserted]}


@dataclass(slots=True)
class FileTranslation:
    source: str  # posix path relative to the scanned root
    output: str  # posix path relative to the output directory
    status: str = "written"  # written | unchanged | skipped: why | error: why
    converted: dict[str, int] = field(default_factory=dict)  # CUDA name -> count
    renamed: dict[str, str] = field(default_factory=dict)  # CUDA name -> HIP name
    unconverted: list[Unconverted] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    includes: list[IncludeChange] = field(default_factory=list)
    symbols_wrapped: int = 0
    args_cast: int = 0  # arguments cast to the narrower type HIP declares (kernel -> const void*)
    default_args_added: int = 0  # calls given the trailing arguments only CUDA defaults
    args_dropped: int = 0  # null arguments for parameters HIP's counterpart does not have
    compile_flags: list[str] = field(default_factory=list)  # hipcc flags its headers need
    # preprocessor blocks (first line, #endif line, lines of #if/#elif/#else), original lines:
    # a compile error inside one is explained by a finding on the directive that chose the branch
    conditionals: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)
    launches_rewritten: int = 0
    launches_kept: int = 0  # left as <<<>>> (the default, or not rewritable)
    line_map: LineMap = field(default_factory=LineMap)
    include_dirs: list[str] = field(default_factory=list)  # output-relative dirs it needs (-I)
    # (original line, output-relative header) of each project #include, and the original lines of
    # each identifier: verify follows a name the compiler cannot find to the #if that removed it
    include_lines: list[tuple[int, str]] = field(default_factory=list)
    ident_lines: dict[str, list[int]] = field(default_factory=dict)
    has_cuda: bool = False  # anything CUDA-specific seen (converted, unconverted, launch, include)
    is_header: bool = False
    parse_seconds: float = 0.0

    @property
    def project_includes(self) -> list[str]:
        """Output-relative project headers it includes, in order."""
        return [out for _line, out in self.include_lines]

    @property
    def converted_count(self) -> int:
        return sum(self.converted.values())

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "output": self.output,
            "status": self.status,
            "converted_count": self.converted_count,
            "converted": dict(sorted(self.converted.items())),
            "renamed": dict(sorted(self.renamed.items())),
            "unconverted": [u.to_dict() for u in self.unconverted],
            "markers": [m.to_dict() for m in self.markers],
            "includes": [i.to_dict() for i in self.includes],
            "symbols_wrapped": self.symbols_wrapped,
            "args_cast": self.args_cast,
            "default_args_added": self.default_args_added,
            "args_dropped": self.args_dropped,
            "compile_flags": self.compile_flags,
            "launches_rewritten": self.launches_rewritten,
            "launches_kept": self.launches_kept,
            "line_map": self.line_map.to_dict(),
            "has_cuda": self.has_cuda,
            "is_header": self.is_header,
        }
