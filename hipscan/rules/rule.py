"""A loaded rule: its catalogue text plus the parsed match blocks, and its documentation page."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hipscan.rules.schema import ArgCond, MatchSpec


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    category: str
    severity: str
    confidence: str
    title: str
    message: str
    explanation: str
    remediation: str
    hipify: str
    effort: str
    match: tuple[MatchSpec, ...]
    fix: str = ""
    references: tuple[str, ...] = ()
    example_cuda: str = ""
    example_hip: str = ""
    tags: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()
    claims_regex: re.Pattern[str] | None = None
    fallback: bool = False
    once_per_line: bool = False
    once_per_file: bool = False
    once_per_name: bool = False  # one finding per file and named API; later uses are related
    once_per_chain: bool = False  # one finding per #if/#elif/#else chain (directive rules)
    fixed_in_rocm: tuple[int, ...] | None = None
    hip_compiled_only: bool = False  # quiet in every #if branch a HIP build skips
    reports_hip_skip: bool = False  # the finding is the skip: not quieted where a HIP build skips
    quiet_in_torch_extension: bool = False  # torch.utils.cpp_extension's build already fixes it
    # not reported where the project's build files define one of these macros (the fix it asks for)
    unless_build_defines: tuple[str, ...] = ()
    default_enabled: bool = True  # off unless --select names it (its id, name, category or tag)
    source: str = ""  # the rule file it came from

    @property
    def is_api_rule(self) -> bool:
        """Driven by the CUDA→HIP API table rather than by a list of names."""
        return any(m.fact == "api" for m in self.match)

    def selected_by(self, key: str) -> bool:
        """``key`` is this rule's id, an id prefix ("HIP1"), its name, its category or a tag."""
        return (
            key == self.name
            or key == self.category
            or key in self.tags
            or (key.upper().startswith("HIP") and self.id.startswith(key.upper()))
        )

    @property
    def short_fix(self) -> str:
        """``Finding.fix``: the explicit ``fix``, else the first sentence of the remediation."""
        if self.fix:
            return self.fix
        first = self.remediation.strip().split("\n\n")[0].replace("\n", " ")
        end = first.find(". ")
        return first if end < 0 else first[: end + 1]

    def doc_markdown(self, level: int = 2) -> str:
        """The rule's documentation page (``hipscan explain`` and ``docs/rules.md``)."""
        h = "#" * level
        out = [f"{h} {self.id} `{self.name}`: {self.title}", ""]
        meta = [
            f"category `{self.category}`",
            f"severity **{self.severity}**",
            f"confidence {self.confidence}",
            f"effort {self.effort}",
        ]
        if self.fixed_in_rocm:
            meta.append("applies to ROCm below " + ".".join(map(str, self.fixed_in_rocm)))
        if self.quiet_in_torch_extension:
            meta.append("not reported in PyTorch extensions")
        if self.unless_build_defines:
            meta.append(
                "not reported where the build defines "
                + ", ".join(f"`{m}`" for m in self.unless_build_defines)
            )
        if not self.default_enabled:
            meta.append(f"off by default (`--select {self.id}` turns it on)")
        out += [" · ".join(meta), ""]
        out += [f"{h}# What it finds", "", _describe_matches(self), ""]
        out += [f"{h}# Why it breaks on ROCm", "", self.explanation.strip(), ""]
        out += [f"{h}# What to do", "", self.remediation.strip(), ""]
        out += [f"{h}# What hipify does", "", self.hipify.strip(), ""]
        if self.example_cuda:
            out += [f"{h}# CUDA", "", "```cuda", self.example_cuda.strip("\n"), "```", ""]
        if self.example_hip:
            out += [f"{h}# HIP", "", "```cpp", self.example_hip.strip("\n"), "```", ""]
        if self.references:
            out += [f"{h}# References", ""] + [f"- <{r}>" for r in self.references] + [""]
        return "\n".join(out).rstrip() + "\n"


def _fmt(value) -> str:
    if hasattr(value, "pattern"):
        return f"`/{value.pattern}/`"
    if isinstance(value, tuple):
        if value and isinstance(value[0], ArgCond):
            return "; ".join(_fmt_arg(a) for a in value)
        return ", ".join(f"`{v}`" for v in value)
    return f"`{value}`"


def _fmt_arg(arg) -> str:
    parts = []
    keys = ("regex", "not_regex", "int_gt", "int_le", "decl_type_regex", "not_decl_type_regex")
    for key in (*keys, "decl_init_regex", "type_regex", "not_type_regex", "constant"):
        v = getattr(arg, key)
        if v is not None:
            parts.append(f"{key} {_fmt(v)}")
    for key in ("decl_storage", "not_decl_storage"):
        v = getattr(arg, key)
        if v:
            parts.append(f"{key} {_fmt(v)}")
    return f"argument {arg.index}: " + ", ".join(parts)


def _describe_matches(rule: Rule) -> str:
    lines = []
    for spec in rule.match:
        parts = [f"`{spec.fact}` facts"]
        if spec.contexts:
            parts.append("in " + ", ".join(sorted(spec.contexts)) + " code")
        if spec.not_contexts:
            parts.append("not in " + ", ".join(sorted(spec.not_contexts)) + " code")
        for key, value in spec.conds.items():
            parts.append(f"{key.replace('_', ' ')} {_fmt(value)}")
        if spec.inactive:
            parts.append("also in preprocessor-inactive device branches")
        if spec.confidence:
            parts.append(f"(confidence {spec.confidence})")
        lines.append("- " + "; ".join(parts))
    return "\n".join(lines)
