"""The library entry point: ``scan(paths, config) -> ScanResult``, usable without the CLI."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from hipscan.analysis.warp import derive as derive_widths
from hipscan.config import ScanConfig
from hipscan.facts import watch_strings
from hipscan.frontend import collect, discover
from hipscan.frontend.archmacros import (
    cuda_switches,
    hip_provided_names,
    never_defined,
    nvcc_only_sites,
    unused_macros,
    whole_file_switches,
)
from hipscan.frontend.buildfiles import build_defines
from hipscan.frontend.torchext import is_torch_extension
from hipscan.hipbuild import build_evidence, source_evidence
from hipscan.inventory import Inventory
from hipscan.model import FileResult, Finding, ScanResult
from hipscan.platforms import hip_build, hip_scenario, oldest_device_scenario
from hipscan.rules import RuleOptions, RuleSet, load_rules
from hipscan.rules.platforms import OffHipLines
from hipscan.vendored import VendoredTree, find_vendored, owner


class SourceLines:
    """Reads source lines for snippets, each file once."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @lru_cache(maxsize=256)  # noqa: B019 - one instance per scan
    def _lines(self, path: str) -> list[str]:
        p = Path(path)
        full = p if p.is_absolute() else self.root / p
        try:
            return full.read_bytes().decode("utf-8", "replace").splitlines()
        except OSError:
            return []

    def count(self, path: str) -> int:
        return len(self._lines(path))

    def __call__(self, path: str, line: int) -> str:
        lines = self._lines(path)
        return lines[line - 1] if 0 < line <= len(lines) else ""


# What the graph, the effort model, translation and the HIP-build evidence (branches) read of a
# file's facts after the rules ran; the rest (literals, directives, body ranges, host-side
# declarations, names the file declares) is dropped as each file is done, so the main process
# keeps per file only what those consumers need (effort: device-side declarations, active CUDA
# names). tests/test_determinism.py checks the reports are the same with every fact kept.
_DROPPED_AFTER_RULES = (
    "literals",
    "strings",
    "members",
    "assigns",
    "out_values",
    "directives",
    "uses",
    "subscripts",
    "widths",
)


def _kept(facts):
    for name in _DROPPED_AFTER_RULES:
        setattr(facts, name, [])
    facts.bodies, facts.suppressions, facts.configs = {}, {}, {}
    facts.header_diagnostics, facts.header_error_counts = {}, {}
    facts.declared = set()
    facts.decls = [d for d in facts.decls if d.context != "host"]
    facts.idents = [x for x in facts.idents if not x.from_inactive_branch]
    return facts


def rule_options(config: ScanConfig) -> RuleOptions:
    return RuleOptions(
        select=tuple(config.select),
        ignore=tuple(config.ignore),
        severity=dict(config.severity),
        rocm_version=tuple(config.rocm_version),
        offload_arch=tuple(config.offload_arch),
        include_low_confidence=config.include_low_confidence,
    )


def scan(
    paths: list[Path],
    config: ScanConfig | None = None,
    ruleset: RuleSet | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    keep_facts: bool = True,
) -> ScanResult:
    """Scan files and folders; the findings of a header are reported once."""
    config = config or ScanConfig()
    started = time.perf_counter()
    if not ruleset:  # (an empty set too, as before)
        cache_dir = config.cache_path() if config.use_cache else None
        ruleset = load_rules([Path(d) for d in config.rules_dirs], cache_dir=cache_dir)
    sources = discover([Path(p) for p in paths], config.excludes)
    trees: list[VendoredTree] = []
    if not config.include_vendored:
        trees = find_vendored(sources.root, sorted(sources.project_files | set(sources.build_files)))
        _leave_out(sources, trees)
    files = sorted(sources.project_files)
    switches = cuda_switches(files, tuple(config.defines) + tuple(config.undefines))
    if switches:  # the project's own "build the CUDA code" switches: that code is what is ported
        config = replace(config, defines=tuple(config.defines) + switches)
    guarded = whole_file_switches(files, tuple(config.defines) + tuple(config.undefines))
    if guarded:  # files wholly inside `#ifdef FEATURE`: parsed as the build that compiles them
        config = replace(config, file_defines=tuple((str(f), n) for f, n in sorted(guarded.items())))
    result = ScanResult(
        root=sources.root,
        auto_defines=list(switches),
        rocm_version=tuple(config.rocm_version),
        guard_defines={f.relative_to(sources.root).as_posix(): list(n) for f, n in guarded.items()},
    )
    inside: dict[str, int] = {}  # bundled tree -> findings in it (seen through project includes)
    given = tuple(config.defines)
    torch_extension = is_torch_extension(files, sources.build_files)
    build = hip_build().for_target(tuple(config.rocm_version)).for_torch_extension(torch_extension)
    hip_absent = never_defined(files, lambda a: hip_scenario(build, a), given)
    options = replace(
        rule_options(config),
        hip_names=hip_provided_names(files, sources.root),
        hip_absent=hip_absent,
        nvcc_only=nvcc_only_sites(files, hip_absent, sources.root),
        oldest_absent=never_defined(files, lambda a: oldest_device_scenario(build, a), given),
        torch_extension=torch_extension,
        unused_macros=unused_macros(files),
        build_defines=build_defines(sources.build_files),
    )
    lines = SourceLines(sources.root)
    seen: dict[tuple[str, str, int, int], int] = {}  # finding key -> position in findings
    file_results: dict[str, FileResult] = {}  # each file once: its own parse, else a carried header
    parsed: set[str] = set()
    header_diags: dict[str, set[str]] = {}
    header_errors: dict[str, int] = {}
    findings: list[Finding] = []
    inventory = Inventory()
    outside: set[int] = set()  # findings placed in a file their translation unit did not carry
    branches: list = []
    suppressions: dict[str, dict[int, frozenset[str]]] = {}
    watched = ruleset.watched_identifiers | watch_strings(ruleset.watched_strings)
    for facts in collect(sources, config, watched, progress):
        inventory.add(facts)
        for template in facts.templates:
            if template not in result.config_stand_ins:
                result.config_stand_ins.append(template)
        result.mode = facts.mode
        if facts.path != "<build files>":
            file_results[facts.path] = FileResult(
                path=facts.path,
                status=facts.status,
                lines=facts.lines,
                parse_seconds=facts.parse_seconds,
                diagnostics=facts.diagnostics,
                error_count=facts.error_count,
            )
            parsed.add(facts.path)
            # headers this translation unit carried: scanned too, as part of it
            for header in facts.files:
                if header != facts.path and header not in file_results and not owner(trees, header):
                    file_results[header] = FileResult(path=header, status="ok", lines=lines.count(header))
            for header, msgs in facts.header_diagnostics.items():
                header_diags.setdefault(header, set()).update(msgs)
                count = facts.header_error_counts.get(header, len(msgs))
                header_errors[header] = max(header_errors.get(header, 0), count)
        facts.widths = derive_widths(facts)  # the analysis stage: warp-width provenance
        branches.extend(facts.branches)
        suppressions.update(facts.suppressions)
        carried = set(facts.files) | {facts.path}
        for f in ruleset.apply(facts, options, lines):
            key = (f.rule, f.path, f.line, f.column)
            tree = owner(trees, f.path) if trees else None
            if tree is not None:
                if key not in seen:
                    seen[key] = -1  # inside a bundled tree: counted, not reported
                    inside[tree.path] = inside.get(tree.path, 0) + 1
                continue
            if key not in seen:
                seen[key] = len(findings)
                findings.append(f)
                if f.path not in carried or any(
                    r.role == "definition" and r.path not in carried for r in f.related
                ):
                    outside.add(len(findings) - 1)
            elif f.related and seen[key] >= 0:  # a root reached from several files: all uses
                at = seen[key]
                findings[at] = replace(findings[at], related=_merged(findings[at].related, f.related))
        if trees:
            _drop_bundled(facts, trees)
        if keep_facts:
            result.facts.append(_kept(facts))
    for path, fr in file_results.items():
        if path in parsed:
            continue
        # a header's status is its own: the errors located in it, whichever parse saw them
        diags = sorted(header_diags.get(path, ()))
        fr.error_count = max(header_errors.get(path, 0), len(diags))
        fr.diagnostics = diags[:20]
        fr.status = "parse-errors" if fr.error_count else "ok"
    result.files = list(file_results.values())
    if outside:
        off_hip = OffHipLines(
            branches,
            options.hip_absent,
            options.oldest_absent,
            lines,
            options.rocm_version,
            options.torch_extension,
        )
        findings = _settle_outside(findings, outside, off_hip, suppressions)
    result.files.sort(key=lambda r: r.path)
    result.findings = sorted(findings, key=lambda f: f.sort_key)
    result.vendored = [replace(t, findings=inside.get(t.path, 0)) for t in trees]
    result.hip_build = build_evidence(sources.root, sources.build_files) + source_evidence(result.facts)
    result.features = [use.to_dict() for use in inventory.rows()]
    result.seconds = time.perf_counter() - started
    return result


def _leave_out(sources, trees: list[VendoredTree]) -> None:
    """Bundled trees are not parsed as sources (their headers stay reachable for includes)."""

    def keep(p: Path) -> bool:
        try:
            return owner(trees, p.relative_to(sources.root).as_posix()) is None
        except ValueError:
            return True

    sources.sources = [p for p in sources.sources if keep(p)]
    sources.headers = [p for p in sources.headers if keep(p)]
    sources.build_files = [p for p in sources.build_files if keep(p)]


def _drop_bundled(facts, trees: list[VendoredTree]) -> None:
    """Remove what a parse saw inside bundled trees: their code is not the project's to port."""
    for name in facts.__slots__:
        value = getattr(facts, name)
        if isinstance(value, list) and value and hasattr(value[0], "loc"):
            setattr(facts, name, [x for x in value if owner(trees, x.loc.path) is None])
    facts.files = [p for p in facts.files if owner(trees, p) is None]


def _merged(a: tuple, b: tuple) -> tuple:
    out = dict.fromkeys(a)
    out.update(dict.fromkeys(b))
    return tuple(sorted(out, key=lambda r: (r.path, r.line, r.column)))


def _settle_outside(
    findings: list[Finding],
    outside: set[int],
    off_hip: OffHipLines,
    suppressions: dict[str, dict[int, frozenset[str]]],
) -> list[Finding]:
    """Findings a translation unit placed in a header whose facts another unit carries (the
    definition of a warp-width constant used here), or derived from a root there: judged with
    that header's #if branches and suppressions once every unit is read. A root the project
    defines per platform (`#ifdef __HIP_PLATFORM_AMD__ ... #else #define WARP 32`) is already
    ported, and so is what is derived from it."""
    out = []
    for i, f in enumerate(findings):
        if i in outside:
            places = [(f.path, f.line)] + [(r.path, r.line) for r in f.related if r.role == "definition"]
            if any(p in off_hip for p in places):
                continue
            marks = suppressions.get(f.path, {}).get(f.line)
            if marks and ("*" in marks or f.rule in marks or f.name in marks or f.category in marks):
                continue
        out.append(f)
    return out


# Headers a scan without the CUDA toolkit or a platform SDK lacks by design: their names are known
# to the shim's recovery, and -I would not help. Anything else missing is the project's own or a
# third-party dependency the user can point at.
_EXPECTED_MISSING = re.compile(
    r"^(cu|nv|NV|cuda|thrust/|cub/|npp|optix|cutlass/|cute/|GL/|EGL/|GLES|X11/|vulkan|windows\.h|d3d|dxgi|helper_gl)"
)
_NOT_FOUND = re.compile(r"'([^']+)' file not found")


def missing_headers(result: ScanResult) -> list[tuple[str, str]]:
    """(header, first file including it) per source whose parse missed a header that is neither
    a CUDA/NVIDIA library header nor a graphics SDK header."""
    out = []
    for f in result.files:
        for d in f.diagnostics:
            m = _NOT_FOUND.search(d)
            if m and not _EXPECTED_MISSING.match(m.group(1)):
                out.append((m.group(1), f.path))
                break
    return out


def scanned_sources(result: ScanResult) -> list[Path]:
    """Every file the scan parsed and the project headers they include: what translation covers."""
    root = result.root
    files = {root / f.path for f in result.files if f.status in ("ok", "parse-errors")}
    files |= {root / p for facts in result.facts for p in facts.inputs}
    return sorted(files)
