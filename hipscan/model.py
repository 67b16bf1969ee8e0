"""Results that flow out of the rule engine into the graph, effort model, reports and translator."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

SEVERITIES = ("info", "low", "medium", "high", "blocker")  # ascending
CONFIDENCES = ("low", "medium", "high")
EFFORT_CLASSES = ("trivial", "small", "medium", "large", "rewrite")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str  # stable id, e.g. "HIP1001"
    name: str  # rule slug, e.g. "device-side-launch"
    category: str  # one of the categories in design.md
    severity: str  # info | low | medium | high | blocker
    confidence: str  # low | medium | high
    effort: str  # trivial | small | medium | large | rewrite
    path: str  # posix, relative to the scan root
    line: int
    column: int
    message: str
    function: str = ""  # enclosing function, for the call graph
    snippet: str = ""  # the source line, stripped
    fix: str = ""  # short remediation
    # other places the finding reaches (a warp-width constant's uses): RelatedLoc records with
    # path, line, column and role
    related: tuple = ()

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.rule)

    def to_dict(self) -> dict:
        return {
            "rule": self.rule,
            "name": self.name,
            "category": self.category,
            "severity": self.severity,
            "confidence": self.confidence,
            "effort": self.effort,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "function": self.function,
            "snippet": self.snippet,
            "fix": self.fix,
            **(
                {
                    "related": [
                        {"path": r.path, "line": r.line, "column": r.column, "role": r.role}
                        for r in self.related
                    ]
                }
                if self.related
                else {}
            ),
        }


@dataclass(slots=True)
class FileResult:
    path: str
    status: str  # ok | parse-errors | skipped: why | error: why
    lines: int = 0
    parse_seconds: float = 0.0
    diagnostics: list[str] = field(default_factory=list)
    error_count: int = 0

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "status": self.status,
            "lines": self.lines,
            "parse_seconds": round(self.parse_seconds, 4),
            "error_count": self.error_count,
            "diagnostics": self.diagnostics[:5],
        }


@dataclass(slots=True)
class ScanResult:
    root: Path
    files: list[FileResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    facts: list = field(default_factory=list)  # list[FileFacts], for graph/translate
    seconds: float = 0.0
    mode: str = "shim"
    auto_defines: list[str] = field(default_factory=list)  # project CUDA switches the scan turned on
    # file -> feature switches its whole-contents guard needs, defined for its parse
    guard_defines: dict[str, list[str]] = field(default_factory=dict)
    # config-header templates a parse read a stand-in of (the build generates the header)
    config_stand_ins: list[str] = field(default_factory=list)
    vendored: list = field(default_factory=list)  # list[VendoredTree]: bundled trees left out
    hip_build: list = field(default_factory=list)  # list[HipEvidence]: signs of an existing HIP build
    rocm_version: tuple[int, ...] = ()  # the targeted ROCm release the scan was run for

    def vendored_owner(self, path: str):
        """The bundled tree ``path`` lies in, or None."""
        for t in self.vendored:
            if t.contains(path):
                return t
        return None

    # the CUDA features the code uses (hipscan.inventory): dicts of FeatureUse.to_dict()
    features: list[dict] = field(default_factory=list)
