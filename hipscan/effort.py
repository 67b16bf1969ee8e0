"""Porting effort on top of the findings and the dependency graph (model: docs/effort.md).

Each finding costs the hours its rule's effort class maps to in the effort profile, less for
repeats of one rule in one file, weighted by the rule's confidence and raised by the fan-in of
the file it sits in. Mechanical translation and build-system work are separate terms. Every
figure is a three-point range (low, likely, high) with its PERT mean, and the result is
deterministic: the same scan gives the same numbers and the same migration order.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath

import networkx as nx

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from hipscan.apitable import load_api_table, parse_version
from hipscan.graph import KERNEL, build_graph, dependents, file_dependency_graph
from hipscan.model import CONFIDENCES, EFFORT_CLASSES, ScanResult

CUDA_SUFFIXES = (".cu", ".cuh")
_DEVICE = ("global", "device", "host-device")


class ProfileError(ValueError):
    """A malformed effort profile: ``str(e)`` names the file and the key."""


@dataclass(frozen=True, slots=True)
class Hours:
    """A three-point estimate in hours."""

    low: float = 0.0
    likely: float = 0.0
    high: float = 0.0

    @property
    def mean(self) -> float:
        """PERT mean: (low + 4 * likely + high) / 6."""
        return (self.low + 4 * self.likely + self.high) / 6

    def __add__(self, other: Hours) -> Hours:
        return Hours(self.low + other.low, self.likely + other.likely, self.high + other.high)

    def scale(self, k: float) -> Hours:
        return Hours(self.low * k, self.likely * k, self.high * k)

    def to_dict(self) -> dict:
        return {k: round(v, 2) for k, v in self._items()}

    def _items(self):
        yield from (("low", self.low), ("likely", self.likely), ("high", self.high))
        yield ("mean", self.mean)


def total(hours) -> Hours:
    out = Hours()
    for h in hours:
        out = out + h
    return out


# ---------------------------------------------------------------------------------------------
# The profile


@dataclass(frozen=True, slots=True)
class EffortProfile:
    name: str
    hours: dict[str, Hours]
    repeat_decay: float
    repeat_floor: float
    project_decay: float  # per earlier file holding the same rule
    project_floor: float
    confidence: dict[str, float]
    fan_in_per_dependent: float
    fan_in_max_dependents: int
    translation_per_file: Hours
    translation_per_kloc: Hours
    translation_per_call: Hours
    build_per_template: Hours
    build_first: Hours
    build_hip_check: Hours
    build_per_library: Hours
    build_repeat_floor: float
    build_tool: dict[str, Hours]
    deprecated: dict[str, tuple[str, str]]  # category -> (class while HIP has it, API that tells)
    optional_factor: float
    optional_categories: frozenset[str]
    optional_switch: re.Pattern[str]
    blocker_weight: float
    blocker_cap: int
    hours_per_day: float


def _default_profile_text() -> str:
    return resources.files("hipscan.data").joinpath("effort_profile.toml").read_text("utf-8")


def _merge(base: dict, over: dict, where: str, source: str) -> dict:
    out = dict(base)
    for key, value in over.items():
        path = f"{where}.{key}" if where else key
        if key not in base:
            raise ProfileError(f"{source}: {path}: unknown key")
        if isinstance(base[key], dict):
            if not isinstance(value, dict):
                raise ProfileError(f"{source}: {path}: expected a table")
            out[key] = _merge(base[key], value, path, source)
        else:
            out[key] = value
    return out


def load_profile(user_file: Path | None = None) -> EffortProfile:
    """The built-in profile, with any keys of ``user_file`` (TOML) laid over it."""
    data = tomllib.loads(_default_profile_text())
    source = "effort_profile.toml"
    if user_file is not None:
        source = str(user_file)
        try:
            over = tomllib.loads(Path(user_file).read_text("utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ProfileError(f"{source}: -: {e}") from e
        data = _merge(data, over, "", source)
    return _profile_from(data, source)


def _profile_from(d: dict, source: str) -> EffortProfile:
    def rng(table: str, key: str) -> Hours:
        value = d[table][key]
        ok = (
            isinstance(value, list)
            and len(value) == 3
            and all(isinstance(v, (int, float)) and v >= 0 for v in value)
            and value[0] <= value[1] <= value[2]
        )
        if not ok:
            raise ProfileError(f"{source}: {table}.{key}: expected [low, likely, high], ascending")
        return Hours(*map(float, value))

    def num(table: str, key: str, lo: float = 0.0, hi: float = float("inf")) -> float:
        value = d[table][key]
        if not isinstance(value, (int, float)) or not lo <= value <= hi:
            raise ProfileError(f"{source}: {table}.{key}: expected a number in [{lo}, {hi}]")
        return float(value)

    def cls(value, where: str) -> str:
        if value not in EFFORT_CLASSES:
            raise ProfileError(f"{source}: {where}: expected one of {', '.join(EFFORT_CLASSES)}")
        return value

    deprecated = {}
    for category, entry in d.get("deprecated", {}).items():
        if not isinstance(entry, dict) or "while_present" not in entry or "api" not in entry:
            raise ProfileError(f"{source}: deprecated.{category}: expected while_present and api")
        deprecated[category] = (cls(entry["while_present"], f"deprecated.{category}"), str(entry["api"]))
    try:
        switch = re.compile(d["optional"]["switch_regex"])
    except re.error as e:
        raise ProfileError(f"{source}: optional.switch_regex: {e}") from e
    return EffortProfile(
        name=str(d.get("name", "custom")),
        hours={c: rng("hours", c) for c in EFFORT_CLASSES},
        repeat_decay=num("repeat", "decay", 0, 1),
        repeat_floor=num("repeat", "floor", 0, 1),
        project_decay=num("repeat", "project_decay", 0, 1),
        project_floor=num("repeat", "project_floor", 0, 1),
        confidence={c: num("confidence", c, 0, 1) for c in CONFIDENCES},
        fan_in_per_dependent=num("fan_in", "per_dependent"),
        fan_in_max_dependents=int(num("fan_in", "max_dependents")),
        translation_per_file=rng("translation", "per_file"),
        translation_per_kloc=rng("translation", "per_kloc"),
        translation_per_call=rng("translation", "per_renamed_call"),
        build_per_template=rng("build", "per_device_template"),
        build_first=rng("build", "first_build"),
        build_hip_check=rng("build", "hip_build_check"),
        build_per_library=rng("build", "per_library"),
        build_repeat_floor=num("build", "repeat_floor", 0, 1),
        build_tool={t: rng("build_file", t) for t in d["build_file"]},
        deprecated=deprecated,
        optional_factor=num("optional", "factor", 0, 1),
        optional_categories=frozenset(d["optional"]["categories"]),
        optional_switch=switch,
        blocker_weight=num("readiness", "blocker_weight", 0, 1),
        blocker_cap=int(num("readiness", "blocker_cap", 0, 100)),
        hours_per_day=num("calendar", "hours_per_day", 1, 24),
    )


# ---------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, slots=True)
class FindingEffort:
    index: int  # into ScanResult.findings
    hours: Hours
    repeat: int  # 0 for the first occurrence of its rule in its file
    fan_in: int  # project files depending on the finding's file
    factor: float  # repeat * confidence * fan-in multiplier applied to the class hours

    def to_dict(self) -> dict:
        return {
            "hours": self.hours.to_dict(),
            "repeat": self.repeat,
            "fan_in": self.fan_in,
            "factor": round(self.factor, 4),
        }


@dataclass(slots=True)
class FileEffort:
    path: str
    findings: Hours = Hours()  # its own findings
    translation: Hours = Hours()
    inherited: Hours = Hours()  # findings in files it depends on (not additive across files)
    inherited_findings: int = 0
    count: int = 0
    blockers: int = 0
    cuda: bool = False
    fan_in: int = 0

    @property
    def total(self) -> Hours:
        return self.findings + self.translation

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "findings": self.count,
            "blockers": self.blockers,
            "cuda": self.cuda,
            "fan_in": self.fan_in,
            "hours": self.total.to_dict(),
            "finding_hours": self.findings.to_dict(),
            "translation_hours": self.translation.to_dict(),
            "translation_parts": self.translation_parts,
            "inherited_hours": self.inherited.to_dict(),
            "inherited_findings": self.inherited_findings,
        }


@dataclass(frozen=True, slots=True)
class KernelEffort:
    name: str
    path: str
    line: int
    hours: Hours  # findings in the kernel and in every function it reaches
    findings: int
    reaches: int  # functions reachable through calls and launches

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "path": self.path,
            "line": self.line,
            "findings": self.findings,
            "reaches": self.reaches,
            "hours": self.hours.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class WorkPackage:
    """Files that must be ported together (a dependency cycle, or one file), leaves first."""

    number: int
    files: tuple[str, ...]
    depends_on: tuple[int, ...]
    hours: Hours
    findings: int
    blockers: int
    kernels: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "number": self.number,
            "files": list(self.files),
            "depends_on": list(self.depends_on),
            "hours": self.hours.to_dict(),
            "findings": self.findings,
            "blockers": self.blockers,
            "kernels": list(self.kernels),
        }


@dataclass(slots=True)
class EffortReport:
    profile: str
    findings: list[FindingEffort]
    files: dict[str, FileEffort]
    kernels: list[KernelEffort]
    directories: dict[str, Hours]
    manual: Hours
    translation: Hours
    build: Hours
    build_files: list[str]
    readiness: int
    readiness_parts: dict
    blockers: list[int]  # finding indices, severity "blocker", in path/line order
    order: list[WorkPackage] = field(default_factory=list)
    hours_per_day: float = 8.0
    bundled: Hours = Hours()  # bundled third-party trees, each swapped for its ROCm twin
    vendored: list = field(default_factory=list)  # VendoredTree, from the scan
    hip_build: list = field(default_factory=list)  # HipEvidence, from the scan
    build_parts: dict = field(default_factory=dict)  # what the build term is made of
    adjusted: dict = field(default_factory=dict)  # finding counts priced below their class, by why
    translation_parts: dict = field(default_factory=dict)  # likely hours of each translation term

    @property
    def total(self) -> Hours:
        return self.manual + self.translation + self.build + self.bundled

    @property
    def person_days(self) -> Hours:
        return self.total.scale(1 / self.hours_per_day)

    def dominant(self, findings: list, top: int = 3) -> list[tuple[str, float]]:
        """The largest shares of the likely hours: finding categories, translation, build, bundled."""
        parts: Counter = Counter()
        for fe in self.findings:
            parts[findings[fe.index].category] += fe.hours.likely
        templates = self.build_parts.get("device_templates", 0.0)
        parts["translation"] += self.translation.likely
        parts["device templates (first build)"] += templates
        parts["build"] += self.build.likely - templates
        parts["bundled code"] += self.bundled.likely
        whole = sum(parts.values()) or 1.0
        return [(k, v / whole) for k, v in parts.most_common(top) if v > 0]

    def to_dict(self, findings: list | None = None) -> dict:
        """As JSON; with the scan's ``findings``, blockers are listed by location, not index."""
        days = self.person_days
        blockers: list = list(self.blockers)
        if findings is not None:
            blockers = [
                {k: findings[i].to_dict()[k] for k in ("rule", "path", "line", "column", "message")}
                for i in self.blockers
            ]
        out = {
            "profile": self.profile,
            "hours": self.total.to_dict(),
            "person_days": days.to_dict(),
            "manual_hours": self.manual.to_dict(),
            "translation_hours": self.translation.to_dict(),
            "translation_parts": self.translation_parts,
            "build_hours": self.build.to_dict(),
            "build_parts": self.build_parts,
            "bundled_hours": self.bundled.to_dict(),
            "build_files": self.build_files,
            "hip_build": [e.to_dict() for e in self.hip_build],
            "vendored": [t.to_dict() for t in self.vendored],
            "priced_below_class": self.adjusted,
            "readiness": self.readiness,
            "readiness_parts": self.readiness_parts,
            "blockers": blockers,
            "directories": {d: h.to_dict() for d, h in sorted(self.directories.items())},
            "kernels": [k.to_dict() for k in self.kernels],
            "migration_order": [p.to_dict() for p in self.order],
        }
        if findings is not None:
            out["dominated_by"] = [{"part": k, "share": round(v, 3)} for k, v in self.dominant(findings)]
        return out


# ---------------------------------------------------------------------------------------------
# The model


def _cuda_files(result: ScanResult, outside: dict[str, list[tuple[int, int]]] | None = None) -> set[str]:
    """Files holding CUDA code: .cu/.cuh, or any device function (or its prototype), launch, CUDA
    identifier, asm, CUDA storage class or finding seen in them (a plain C++ file needs no translation; build
    files have their own term). Bundled third-party trees are priced apart. With ``outside``
    (per file, an optional feature's line ranges), only code outside those ranges counts, and
    findings do not."""

    def where(items) -> set[str]:
        if outside is None:
            return {x.loc.path for x in items}
        return {x.loc.path for x in items if not _in_ranges(outside.get(x.loc.path, []), x.loc.line)}

    paths = {f.path for f in result.files if f.path.endswith(CUDA_SUFFIXES)}
    for ff in result.facts:
        paths |= where(fn for fn in ff.functions if fn.space != "host")
        paths |= where(ff.launches)
        paths |= where(x for x in ff.idents if not x.from_inactive_branch)
        paths |= where(ff.asms)
        paths |= where(d for d in ff.decls if d.storage and d.context != "host")
        # a header declaring kernels or device functions (prototypes) is hipified too
        paths |= where(d for d in ff.decls if d.kind == "function" and d.context in _DEVICE)
    if outside is None:
        paths.update(f.path for f in result.findings)
    vendored = getattr(result, "vendored", ())
    return {p for p in paths if not any(t.contains(p) for t in vendored)} - set(_build_files(result))


def _build_files(result: ScanResult) -> list[str]:
    return sorted({b.loc.path for ff in result.facts for b in ff.builds})


@lru_cache(maxsize=1)
def _renamed() -> frozenset[str]:
    """CUDA API names hipify renames one for one (a HIP twin under another name)."""
    return frozenset(n for n, e in load_api_table().entries.items() if e.hip_name and e.hip_name != n)


def _renamed_calls(result: ScanResult) -> Counter:
    """Per file, the calls of CUDA API functions that hipify renames: nearly free work."""
    renamed = _renamed()
    seen: set[tuple] = set()
    out: Counter = Counter()
    for ff in result.facts:
        for c in ff.calls:
            key = (c.loc.path, c.loc.line, c.loc.column)
            if c.callee in renamed and key not in seen:
                seen.add(key)
                out[c.loc.path] += 1
    return out


def _device_templates(result: ScanResult) -> Counter:
    """Per file, device-side function templates (kernels included): hip-clang checks templates
    more strictly than nvcc (two-phase lookup, `template` disambiguators), which the first HIP
    build of template-heavy code runs into. Bundled trees are not counted."""
    seen: set[tuple] = set()
    out: Counter = Counter()
    vendored = getattr(result, "vendored", ())
    for ff in result.facts:
        for fn in ff.functions:
            key = (fn.loc.path, fn.loc.line)
            if fn.space != "host" and fn.is_template and key not in seen:
                seen.add(key)
                if any(t.contains(fn.loc.path) for t in vendored):
                    continue
                out[fn.loc.path] += 1
    return out


def _class_for(f, profile: EffortProfile, rocm: tuple[int, ...] | None) -> tuple[str, str]:
    """The effort class a finding is priced at, and why it differs from its rule's ('' if not).

    A deprecated API HIP still ships (texture references up to the release that removes them,
    per the API table) is a rename for the targeted ROCm, not the rule's rewrite.
    """
    entry = profile.deprecated.get(f.category)
    if entry is None:
        return f.effort, ""
    while_present, api = entry
    api_entry = load_api_table().entries.get(api)
    removed = parse_version(api_entry.hip_removed) if api_entry else None
    if removed is not None and (rocm is None or tuple(rocm) >= removed):
        return f.effort, ""
    if EFFORT_CLASSES.index(while_present) >= EFFORT_CLASSES.index(f.effort):
        return f.effort, ""
    return while_present, "deprecated, still in HIP"


def _optional_lines(result: ScanResult, profile: EffortProfile) -> dict[str, list[tuple[int, int]]]:
    """Per file, line ranges inside ``#ifdef USE_X``-style branches of an optional feature that
    the scan did not turn on: a port may keep that feature on the CUDA build only."""
    on = set(getattr(result, "auto_defines", ()))
    out: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for ff in result.facts:
        for b in ff.branches:
            kind, text = b.chain[-1] if b.chain else ("", "")
            name = text.strip()
            if kind == "if":
                m = re.fullmatch(r"defined\s*\(?\s*(\w+)\s*\)?", name)
                name = m.group(1) if m else ""
            if kind in ("ifdef", "if") and profile.optional_switch.fullmatch(name) and name not in on:
                out[b.loc.path].add((b.loc.line, b.end_line))
    return {p: sorted(r) for p, r in out.items()}


def _in_ranges(ranges: list[tuple[int, int]], line: int) -> bool:
    return any(lo < line < hi for lo, hi in ranges)


def _build_term(result: ScanResult, profile: EffortProfile, has_cuda: bool) -> tuple[Hours, dict]:
    """The build port priced from the build files that name CUDA and what they use: a first HIP
    build once (harder with each device template clang must accept), each such build file by its
    tool, each CUDA library it links. With a HIP build path already in place only checking it is
    left."""
    if not has_cuda:
        return Hours(), {}
    if any(e.kind == "build" for e in getattr(result, "hip_build", ())):
        return profile.build_hip_check, {"hip_build_check": profile.build_hip_check.likely}
    tools: dict[str, str] = {}
    libraries: set[str] = set()
    for ff in result.facts:
        for b in ff.builds:
            tools.setdefault(b.loc.path, b.tool)
            if b.kind == "library":
                libraries.add(b.value.lower())
    templates = sum(_device_templates(result).values())
    hours = profile.build_first + profile.build_per_template.scale(templates)
    parts = {"first_build": profile.build_first.likely}
    if templates:
        parts["device_templates"] = profile.build_per_template.likely * templates
    seen: Counter = Counter()
    for path in sorted(tools):
        # the k-th build file of one tool repeats a known change (200 sample CMakeLists.txt)
        k = seen[tools[path]]
        seen[tools[path]] += 1
        h = profile.build_tool.get(tools[path], profile.build_tool.get("make", Hours()))
        h = h.scale(max(profile.project_decay**k, profile.build_repeat_floor))
        hours = hours + h
        parts[path] = h.likely
    if libraries:
        lib_hours = profile.build_per_library.scale(len(libraries))
        hours = hours + lib_hours
        parts["libraries: " + ", ".join(sorted(libraries))] = lib_hours.likely
    return hours, {k: round(v, 2) for k, v in parts.items()}


def estimate(
    result: ScanResult,
    graph: nx.DiGraph | None = None,
    profile: EffortProfile | None = None,
    rocm_version: tuple[int, ...] | None = None,
) -> EffortReport:
    """The effort estimate of a scan (see docs/effort.md for the formula).

    ``rocm_version`` is the targeted release: deprecated APIs HIP still has there cost a rename.
    """
    profile = profile or load_profile()
    rocm_version = rocm_version or tuple(getattr(result, "rocm_version", ())) or None
    g = graph if graph is not None else build_graph(result)
    files_g = file_dependency_graph(g)
    fan_in_of = {p: len(dependents(files_g, p)) for p in files_g}
    optional = _optional_lines(result, profile)
    ported_build = any(e.kind == "build" for e in getattr(result, "hip_build", ()))

    # Per finding: class hours x repeat decay x confidence x fan-in validation.
    seen: Counter = Counter()
    adjusted: Counter = Counter()
    files_with: dict[str, list[str]] = {}  # rule -> files holding it, in path order
    order = sorted(range(len(result.findings)), key=lambda i: result.findings[i].sort_key)
    by_index: dict[int, FindingEffort] = {}
    required: set[str] = set()  # files with a finding outside an optional feature's branches
    for i in order:
        f = result.findings[i]
        n = seen[(f.rule, f.path)]
        seen[(f.rule, f.path)] += 1
        holders = files_with.setdefault(f.rule, [])
        if not holders or holders[-1] != f.path:
            holders.append(f.path)
        k = len(holders) - 1  # earlier files with the same rule: the fix is known by then
        fan_in = fan_in_of.get(f.path, 0)
        factor = (
            max(profile.repeat_decay**n, profile.repeat_floor)
            * max(profile.project_decay**k, profile.project_floor)
            * profile.confidence.get(f.confidence, 1.0)
            * (1 + profile.fan_in_per_dependent * min(fan_in, profile.fan_in_max_dependents))
        )
        if f.category in profile.optional_categories and _in_ranges(optional.get(f.path, []), f.line):
            factor *= profile.optional_factor
            adjusted["optional feature"] += 1
        else:
            required.add(f.path)
        if ported_build and f.category == "build-system":
            factor = 0.0  # the HIP build exists; the CUDA build keeps its own flags
            adjusted["HIP build exists"] += 1
        effort_class, why = _class_for(f, profile, rocm_version)
        if why:
            adjusted[why] += 1
        base = profile.hours.get(effort_class, profile.hours["medium"])
        by_index[i] = FindingEffort(i, base.scale(factor), n, fan_in, factor)
    per_finding = [by_index[i] for i in range(len(result.findings))]

    # Per file.
    cuda = _cuda_files(result)
    # a file that is CUDA code only through an optional feature's findings (Caffe's cuDNN layers
    # under USE_CUDNN) is translated at that feature's discount, as its findings are
    optional_only: set[str] = set()
    if optional:
        optional_only = {f.path for f in result.findings} - required - _cuda_files(result, outside=optional)
    hip_build = list(getattr(result, "hip_build", ()))
    hip_arms = {e.path for e in hip_build if e.kind == "source"}
    calls = _renamed_calls(result)
    lines = {f.path: f.lines for f in result.files}
    all_paths = sorted(set(lines) | {f.path for f in result.findings} | set(files_g) | cuda)
    vendored = list(getattr(result, "vendored", ()))
    all_paths = [p for p in all_paths if not any(t.contains(p) for t in vendored)]
    files = {p: FileEffort(p, cuda=p in cuda, fan_in=fan_in_of.get(p, 0)) for p in all_paths}
    for fe in per_finding:
        f = result.findings[fe.index]
        entry = files[f.path]
        entry.findings = entry.findings + fe.hours
        entry.count += 1
        entry.blockers += f.severity == "blocker"
    tparts: Counter = Counter()
    for p, entry in files.items():
        # a HIP build already compiles the shared code, and a file with HIP arms was ported by
        # hand: what is left there is its findings
        if entry.cuda and not ported_build and p not in hip_arms:
            terms = {
                "per_file": profile.translation_per_file,
                "per_kloc": profile.translation_per_kloc.scale(lines.get(p, 0) / 1000),
                "renamed_calls": profile.translation_per_call.scale(calls.get(p, 0)),
            }
            if p in optional_only:
                terms = {k: h.scale(profile.optional_factor) for k, h in terms.items()}
            entry.translation = total(terms.values())
            for k, h in terms.items():
                tparts[k] += h.likely
    for p in files_g:
        if p not in files:
            continue
        deps = [d for d in nx.descendants(files_g, p) if d in files]
        files[p].inherited = total(files[d].findings for d in sorted(deps))
        files[p].inherited_findings = sum(files[d].count for d in deps)

    directories: dict[str, Hours] = defaultdict(Hours)
    for p, entry in files.items():
        parent = str(PurePosixPath(p).parent)
        directories[parent] = directories[parent] + entry.total

    build_files = _build_files(result)
    build, build_parts = _build_term(result, profile, bool(cuda))
    manual = total(fe.hours for fe in per_finding)
    translation = total(files[p].translation for p in sorted(files))
    bundled = total(Hours(*t.hours) for t in vendored)

    blockers = [i for i in order if result.findings[i].severity == "blocker"]
    readiness, parts = _readiness(profile, manual, translation + build, files, cuda, blockers)

    report = EffortReport(
        profile=profile.name,
        findings=per_finding,
        files=files,
        kernels=_kernels(g, per_finding),
        directories=dict(directories),
        manual=manual,
        translation=translation,
        build=build,
        build_files=build_files,
        readiness=readiness,
        readiness_parts=parts,
        blockers=blockers,
        hours_per_day=profile.hours_per_day,
        bundled=bundled,
        vendored=vendored,
        hip_build=hip_build,
        build_parts=build_parts,
        adjusted=dict(sorted(adjusted.items())),
        translation_parts={k: round(tparts[k], 2) for k in sorted(tparts)},
    )
    report.order = migration_order(g, files_g, report)
    return report


def _readiness(profile, manual: Hours, mechanical: Hours, files, cuda, blockers) -> tuple:
    """Score 0-100: the mechanical share of the likely work, lowered by blocker-bearing files."""
    work = manual.likely + mechanical.likely
    ease = mechanical.likely / work if work else 1.0
    blocker_files = sum(1 for p in cuda if files[p].blockers)
    share = blocker_files / len(cuda) if cuda else 0.0
    score = 100 * ease * (1 - profile.blocker_weight * share)
    if blockers:
        score = min(score, profile.blocker_cap)
    parts = {
        "ease": round(ease, 4),
        "blocker_file_share": round(share, 4),
        "blocker_files": blocker_files,
        "cuda_files": len(cuda),
        "blocker_weight": profile.blocker_weight,
        "blocker_cap": profile.blocker_cap,
        "capped": bool(blockers) and score == profile.blocker_cap,
    }
    return int(round(score)), parts


def _kernels(g: nx.DiGraph, per_finding: list[FindingEffort]) -> list[KernelEffort]:
    out = []
    for node in sorted(n for n, d in g.nodes(data=True) if d["kind"] == KERNEL):
        reach = {
            m
            for m in nx.descendants(g, node)
            if g.nodes[m]["kind"] != "file"  # calls and launches only reach functions
        }
        idx = sorted({i for m in (node, *reach) for i in g.nodes[m]["findings"]})
        data = g.nodes[node]
        out.append(
            KernelEffort(
                name=data["qualname"],
                path=data["path"],
                line=data["line"],
                hours=total(per_finding[i].hours for i in idx),
                findings=len(idx),
                reaches=len(reach),
            )
        )
    out.sort(key=lambda k: (-k.hours.mean, k.path, k.line, k.name))
    return out


def migration_order(g: nx.DiGraph, files_g: nx.DiGraph, report: EffortReport) -> list[WorkPackage]:
    """Work packages leaves first: strongly connected file groups in dependency order."""
    cond = nx.condensation(files_g)
    members = {c: tuple(sorted(cond.nodes[c]["members"])) for c in cond}
    # cond has A -> B when A depends on B; reversed, a topological order puts B first.
    ordered = list(nx.lexicographical_topological_sort(cond.reverse(), key=lambda c: members[c]))
    number = {c: i + 1 for i, c in enumerate(ordered)}
    kernels_in: dict[str, list[str]] = defaultdict(list)
    for _, d in g.nodes(data=True):
        if d["kind"] == KERNEL:
            kernels_in[d["path"]].append(d["qualname"])
    packages = []
    for c in ordered:
        paths = members[c]
        entries = [report.files[p] for p in paths if p in report.files]
        packages.append(
            WorkPackage(
                number=number[c],
                files=paths,
                depends_on=tuple(sorted(number[s] for s in cond.successors(c))),
                hours=total(e.total for e in entries),
                findings=sum(e.count for e in entries),
                blockers=sum(e.blockers for e in entries),
                kernels=tuple(sorted(k for p in paths for k in kernels_in.get(p, ()))),
            )
        )
    return packages
