"""The libclang front end: find sources, parse them (in worker processes), produce facts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from hipscan.config import ScanConfig
from hipscan.facts import FileFacts
from hipscan.frontend.archmacros import derived_macros
from hipscan.frontend.buildfiles import load_compile_commands, scan_build_file
from hipscan.frontend.cache import FactsCache
from hipscan.frontend.clang import ParseSetup, clang_args, make_setup, setup_digest
from hipscan.frontend.confighdr import MAX_TEMPLATE_BYTES, render
from hipscan.frontend.discover import SourceSet, discover, header_index
from hipscan.frontend.extract import relpath
from hipscan.frontend.parse import ParseJob, read_source
from hipscan.frontend.parse import parse_file as _parse_job
from hipscan.frontend.pool import run_jobs

__all__ = ["clang_args", "collect", "discover", "make_setup", "parse_file", "SourceSet"]


def parse_file(
    path: Path, root: Path, config: ScanConfig | None = None, watched: frozenset[str] = frozenset()
) -> FileFacts:
    """Parse one file in this process (no worker, no timeout): for tests and tools."""
    config = config or ScanConfig()
    setup = make_setup(config)
    path, root = Path(path).resolve(), Path(root).resolve()
    project, index, device_macros, generated = _project_context(discover([root], config.excludes))
    job = ParseJob(
        str(path),
        str(root),
        project_files=project | {str(path)},
        header_index=index,
        generated=generated,
        device_macros=device_macros,
    )
    return _parse_job(job, setup, watched, config.max_file_size)


def _project_context(
    sources: SourceSet,
) -> tuple[frozenset[str], dict[str, tuple[str, ...]], frozenset[str], dict[str, tuple[str, str]]]:
    """What every parse of this tree shares: its files (which includes are project code), where
    each header name lives, the macros that mean "nvcc's device pass", and stand-ins for the
    config headers the build would generate (see confighdr)."""
    project = frozenset(str(p) for p in sources.project_files)
    generated: dict[str, tuple[str, str]] = {}
    for header, template in sorted(sources.config_templates.items()):
        data, _why = read_source(template, MAX_TEMPLATE_BYTES)
        if data is not None:
            generated[str(header)] = (str(template), render(data))
    index = header_index(sources.project_files | set(sources.config_templates))
    return project, index, derived_macros(sorted(sources.project_files)), generated


MAX_BLANKED = 32  # headers whose bodies a parse may blank

FACT_LISTS = (
    "functions",
    "calls",
    "launches",
    "asms",
    "decls",
    "idents",
    "strings",
    "literals",
    "members",
    "assigns",
    "out_values",
    "includes",
    "directives",
    "branches",
    "shared_sizes",
    "function_refs",
    "uses",
    "subscripts",
    "clang_errors",
)


def _carried(facts: FileFacts, root: Path, files: list[str]) -> set[tuple[str, str]]:
    return {(str(root / f), facts.configs.get(f, "")) for f in files}


def _drop_taken_headers(facts: FileFacts, covered: set[tuple[str, str]], root: Path) -> None:
    """Two workers may take the same header in the same configuration at once; keep the facts of
    the translation unit first in the scan's order (results are taken in that order, whatever
    order the workers finish in, so the same scan always gives the same findings)."""
    taken = {
        f for f in facts.files if f != facts.path and (str(root / f), facts.configs.get(f, "")) in covered
    }
    if not taken:
        return
    for name in FACT_LISTS:
        setattr(
            facts, name, [x for x in getattr(facts, name) if x.loc.path not in taken or _used_here(x, taken)]
        )
    facts.suppressions = {k: v for k, v in facts.suppressions.items() if k not in taken}
    facts.files = [f for f in facts.files if f not in taken]


def _used_here(fact, taken: set[str]) -> bool:
    """A call this unit placed in a taken header's macro body but wrote through a use of its own:
    the use is this unit's fact, whichever unit carries the header (the scan merges the uses)."""
    return any(r.role == "macro use" and r.path not in taken for r in getattr(fact, "related", ()))


def in_order(results: Iterator[FileFacts], paths: list[str]) -> Iterator[FileFacts]:
    """Results that arrive in completion order, handed on in the order of ``paths``."""
    rank = {p: i for i, p in enumerate(paths)}
    waiting: dict[int, list[FileFacts]] = {}
    following = 0
    for facts in results:
        waiting.setdefault(rank.get(facts.path, len(paths)), []).append(facts)
        while following in waiting:
            yield from waiting.pop(following)
            following += 1
    for i in sorted(waiting):  # results with no rank (never expected): after the others
        yield from waiting[i]


def collect(
    sources: SourceSet,
    config: ScanConfig,
    watched: frozenset[str],
    progress: Callable[[int, int, str], None] | None = None,
) -> Iterator[FileFacts]:
    """Facts for every source (then every CUDA header no source included), then build files.

    Each file is parsed once; a header's facts come from the first translation unit that
    includes it with a given set of active #if branches, so a block only some includers enable
    is seen too, and a finding is reported once however many files include the header.
    """
    # the precompiled shim is set up once a file needs parsing: a warm cache needs no clang at all
    setup: ParseSetup = make_setup(config, precompile=False)
    precompiled = not config.use_pch
    root = sources.root
    flags: dict[str, tuple[str, ...]] = {}
    if config.compile_commands:
        flags = load_compile_commands(Path(config.compile_commands), root)
    for path, names in config.file_defines:  # a file only ever compiled with these switches on
        flags[path] = flags.get(path, ()) + tuple(f"-D{n}" for n in names)
    # the project set also keys the cache
    project, index, device_macros, generated = _project_context(sources)
    covered: set[tuple[str, str]] = set()  # (header, configuration) pairs some finished parse took
    owned: set[tuple[str, str]] = set()  # ... and those whose facts a result already handed out
    bodies: dict[str, tuple[tuple[int, int], ...]] = {}  # covered header -> blankable bodies
    includers: dict[str, int] = {}  # header -> translation units that read it so far

    def jobs_for(files: list[Path]) -> list[ParseJob]:
        return [
            ParseJob(
                str(f),
                str(root),
                args=flags.get(str(f), ()),
                project_files=project,
                header_index=index,
                generated=generated,
                device_macros=device_macros,
            )
            for f in files
        ]

    def before(job: ParseJob) -> ParseJob:
        job.skip_headers = frozenset(covered)
        # headers whose facts are taken, those most files include first (a project's helper
        # headers): later parses may blank their function bodies
        popular = sorted((n, h) for h, n in includers.items() if h in bodies)[-MAX_BLANKED:]
        job.blank_bodies = {h: bodies[h] for _n, h in popular}
        return job

    cache = (
        FactsCache(config.cache_path() / "facts", setup_digest(setup, watched, device_macros | project))
        if config.use_cache
        else None
    )

    def cached(files: list[Path]) -> tuple[list[FileFacts], list[Path]]:
        """Entries still valid. A hit that relies on a header another file's entry carries stays
        a hit only while that entry is one too (checked to a fixpoint)."""
        if cache is None:
            return [], files
        entries: dict[Path, FileFacts] = {}
        for f in files:
            facts = cache.get(f, root, flags.get(str(f), ()))
            if facts is not None:
                entries[f] = facts
        while True:
            carried = set(covered).union(*(_carried(e, root, e.files) for e in entries.values()))
            broken = [f for f, e in entries.items() if not _carried(e, root, e.inputs) <= carried]
            if not broken:
                break
            for f in broken:
                del entries[f]
        return [entries[f] for f in files if f in entries], [f for f in files if f not in entries]

    def absorb(facts: FileFacts) -> None:
        """What later parses may skip or blank, learnt from a finished (or cached) file."""
        covered.update(_carried(facts, root, facts.files))
        for rel, ranges in facts.bodies.items():
            bodies.setdefault(str(root / rel), tuple(ranges))
        for rel in facts.inputs:
            includers[str(root / rel)] = includers.get(str(root / rel), 0) + 1

    def hand_out(facts: FileFacts) -> FileFacts:
        """A result in the scan's order: a header another unit earlier in that order carries in
        the same configuration is that unit's (the lowest such unit always takes it: nothing
        before it in the order covered it when it was dispatched)."""
        _drop_taken_headers(facts, owned, root)
        owned.update(_carried(facts, root, facts.files))
        return facts

    total = len(sources.sources) + len(sources.headers)
    done = 0
    for path, why in sources.skipped:
        yield FileFacts(path=relpath(path, root), status=why)
    for phase in (sources.sources, None):  # noqa: B007
        if phase is None:
            seen = {path for path, _config in covered}
            phase = [h for h in sources.headers if str(h) not in seen]
            total = len(sources.sources) + len(phase)
        hits, misses = cached(phase)
        for facts in hits:  # before any parse starts: what they carry need not be parsed again
            absorb(hand_out(facts))
            done += 1
            if progress:
                progress(done, total, facts.path)
            yield facts
        if misses and not precompiled:
            setup, precompiled = make_setup(config), True
        fresh = run_jobs(
            jobs_for(misses),
            setup,
            watched,
            config.max_file_size,
            config.effective_jobs(),
            config.timeout,
            before,
            on_result=absorb,
            max_memory=config.max_memory,
        )
        for facts in in_order(fresh, [relpath(f, root) for f in misses]):
            hand_out(facts)
            if cache is not None:
                cache.put(root / facts.path, root, flags.get(str(root / facts.path), ()), facts)
            done += 1
            if progress:
                progress(done, total, facts.path)
            yield facts
    builds = FileFacts(path="<build files>", status="ok", mode=setup.mode)
    for b in sources.build_files:
        builds.builds.extend(scan_build_file(b, relpath(b, root)))
    builds.files = sorted({f.loc.path for f in builds.builds})
    yield builds
