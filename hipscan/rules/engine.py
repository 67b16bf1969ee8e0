"""Load rule files and apply them to one translation unit's facts, yielding findings."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from hipscan.analysis.smem import shared_budgets, targets_in_scope
from hipscan.apitable import ApiTable, load_api_table, load_torch_renames
from hipscan.facts import CallFact, DeclFact, FileFacts, IdentFact, LiteralFact, RelatedLoc
from hipscan.model import SEVERITIES, Finding
from hipscan.platforms import hip_build
from hipscan.resources import rules_dir
from hipscan.rules.matchers import AT_KEY, FACT_LISTS, MATCHERS, RELATED_KEY, TUIndex, common_ok, version_key
from hipscan.rules.platforms import OffHipLines
from hipscan.rules.rule import Rule
from hipscan.rules.schema import MatchSpec, RuleFileError, read_rule_file

# API-table rules watch names for any target from this ROCm release on.
OLDEST_ROCM = (5, 0)


@dataclass(frozen=True)
class RuleOptions:
    """What the user asked for: which rules, which severities, which ROCm release."""

    select: tuple[str, ...] = ()  # ids, id prefixes, names, categories or tags; empty = all
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)  # id/name/category -> severity
    rocm_version: tuple[int, ...] = (6, 4)
    include_low_confidence: bool = True
    # names the project defines itself for its HIP build (hipscan.frontend.archmacros)
    hip_names: frozenset[str] = frozenset()
    # project macros defined only in branches a HIP build / the oldest NVIDIA device pass skips
    # (hipscan.frontend.archmacros.never_defined): which branches those builds take
    hip_absent: frozenset[str] = frozenset()
    oldest_absent: frozenset[str] = frozenset()
    # of hip_absent, the macros defined only under a test of the CUDA compiler, each with a file
    # that defines it (archmacros.nvcc_only_sites)
    nvcc_only: frozenset[tuple[str, str]] = frozenset()
    offload_arch: tuple[str, ...] = ()  # AMD targets in scope (gfx942, ...); empty = the defaults
    # a PyTorch C++/CUDA extension: its build hipifies with torch.utils.hipify, whose table maps
    # some names the HIPIFY tables do not (hipscan.frontend.torchext)
    torch_extension: bool = False
    # macros the project defines but never names elsewhere (archmacros.unused_macros)
    unused_macros: frozenset[str] = frozenset()
    # macros the project's build files define (buildfiles.build_defines)
    build_defines: frozenset[str] = frozenset()

    def __post_init__(self):
        for key, sev in self.severity.items():
            if sev not in SEVERITIES:
                raise ValueError(f"severity override {key}={sev}: not one of {SEVERITIES}")

    def __hash__(self) -> int:  # dict field: hash what identifies the selection
        return hash((self.select, self.ignore, tuple(sorted(self.severity.items()))))


@dataclass(frozen=True)
class _ApplyContext:
    table: ApiTable
    claimed: frozenset[str]
    rocm_version: tuple[int, ...]
    targets: tuple[tuple[str, int], ...] = ()  # (AMD target, LDS bytes) in scope
    nvcc_only: frozenset[tuple[str, str]] = frozenset()  # RuleOptions.nvcc_only
    # macros torch's hipify rewrites to HIP ones in a PyTorch extension (`__CUDACC__`)
    torch_defined: frozenset[str] = frozenset()
    unused_macros: frozenset[str] = frozenset()  # RuleOptions.unused_macros


# Fact kinds whose facts an analysis derives from the translation unit's facts.
DERIVED: dict[str, Callable[[FileFacts], list]] = {"smem": shared_budgets}


# Per fact kind: the block condition that lists exact values and the fact field it tests. Blocks
# are indexed by those values, so a fact is tried only against the blocks that can match it (a
# literal 32 never meets a block for 0xffffffff); blocks without the condition are tried on all.
INDEX_KEYS = {
    "call": ("callee", "callee"),
    "ident": ("name", "name"),
    "literal": ("value", "value"),
    "decl": ("kind", "kind"),
    "directive": ("kind", "kind"),
    "include": ("name", "name"),
    "member": ("member", "member"),
    "build": ("kind", "kind"),
    "width": ("sink", "sink"),
}


class RuleSet:
    """The loaded rules plus the indexes ``apply`` needs to stay fast on large files."""

    def __init__(self, rules: Iterable[Rule], table: ApiTable | None = None):
        self.rules: list[Rule] = sorted(rules, key=lambda r: r.id)
        self.table = table if table is not None else load_api_table()
        self._torch_table: ApiTable | None = None
        self._by_id = {r.id: r for r in self.rules}
        self._by_name = {r.name: r for r in self.rules}
        self._order = {r.id: i for i, r in enumerate(self.rules)}
        claimed: set[str] = set()
        watched: set[str] = set()
        strings: set[str] = set()  # string-literal patterns the front end records literals for
        for r in self.rules:
            claimed.update(r.claims)
            for spec in r.match:
                # names a block asks the file not to use: found by the token pass too
                watched.update(spec.get("unless_file_calls", ()))
                watched.update(spec.get("tu_uses", ()))
                watched.update(spec.get("not_tu_uses", ()))
                watched.update(spec.get("not_function_uses", ()))
                if spec.fact == "ident":
                    watched.update(spec.get("name", ()))
                    watched.update(spec.get("unless_in_function", ()))
                    claimed.update(spec.get("name", ()))
                elif spec.fact == "call":
                    claimed.update(spec.get("callee", ()))
                elif spec.fact == "assign":
                    watched.update(spec.get("lhs_type", ()))
                elif spec.fact == "out_value":  # "&name": follow what the call writes
                    watched.update("&" + s for s in spec.get("source", ()))
                elif spec.fact == "string":
                    strings.add(spec.get("text_regex").pattern)
                elif spec.fact == "member" and spec.get("anywhere"):
                    # read wherever it is read, not only in a comparison or arithmetic: ".name"
                    # (no identifier token is spelled so) tells the front end to keep those reads
                    watched.update("." + m for m in spec.get("member", ()))
        claim_res = [r.claims_regex for r in self.rules if r.claims_regex is not None]
        if claim_res:
            claimed.update(n for n in self.table.entries if any(p.fullmatch(n) for p in claim_res))
        self.claimed = frozenset(claimed)
        for r in self.rules:
            for spec in r.match:
                if spec.fact == "api":
                    watched.update(self._api_names(spec))
                elif spec.fact == "call" and (
                    spec.get("arg_types_regex") is not None
                    or any(
                        a.type_regex is not None or a.not_type_regex is not None for a in spec.get("arg", ())
                    )
                ):
                    # "(name": the front end keeps this callee's argument types
                    pattern = spec.get("callee_regex")
                    names = set(spec.get("callee", ()))
                    if pattern is not None:
                        names.update(n for n in self.table.entries if pattern.search(n))
                        # names the API table does not list (MAGMA's): the pattern itself
                        watched.add("(re:" + pattern.pattern)
                    watched.update("(" + n for n in names)
        self.watched_identifiers: frozenset[str] = frozenset(watched)
        self.watched_strings: frozenset[str] = frozenset(strings)
        # (fact kind) -> name -> [(rule, block index, spec)] and the blocks without a name key
        self._named: dict[str, dict[str, list]] = defaultdict(_name_index)
        self._generic: dict[str, list] = defaultdict(list)
        for r in self.rules:
            for bi, spec in enumerate(r.match):
                cond = INDEX_KEYS.get(spec.fact, ("", ""))[0]
                names = spec.get(cond) if cond else None
                if names:
                    for n in names:
                        self._named[spec.fact][n].append((r, bi, spec))
                else:
                    self._generic[spec.fact].append((r, bi, spec))

    def cache_state(self) -> dict:
        """Everything but the API tables, for the rule-set cache (which stores the table as rows;
        the PyTorch-extension table is made again when a scan needs it)."""
        return {k: v for k, v in vars(self).items() if k not in ("table", "_torch_table")}

    @classmethod
    def from_cache_state(cls, state: dict, table: ApiTable) -> RuleSet:
        """The rule set ``cache_state`` described, without reading or indexing anything again."""
        ruleset = cls.__new__(cls)
        vars(ruleset).update(state)
        ruleset.table = table
        ruleset._torch_table = None
        return ruleset

    def _api_names(self, spec: MatchSpec) -> set[str]:
        """Every table name this API block could report for some target ROCm release."""
        from hipscan.rules.matchers import api_status_applies

        status = spec.get("api_status")
        # the oldest target where a status can only hold below some release
        rocm = OLDEST_ROCM if status in ("hip-newer", "unsupported") else (99,)
        libraries, not_libraries = spec.get("library"), spec.get("not_library", ())
        kinds, skip_claimed = spec.get("api_kind"), spec.get("skip_claimed", True)
        claimed = self.claimed if skip_claimed else frozenset()
        return {  # the spec's conditions read once, not once per table row: start-up time
            name
            for name, e in self.table.entries.items()
            if (libraries is None or e.library in libraries)
            and e.library not in not_libraries
            and (kinds is None or e.kind in kinds)
            and name not in claimed
            and api_status_applies(status, e, rocm)
        }

    def table_for(self, options: RuleOptions) -> ApiTable:
        """The API table the project's build sees: PyTorch extensions get torch's renames too."""
        if not options.torch_extension:
            return self.table
        if self._torch_table is None:
            self._torch_table = self.table.with_renames(load_torch_renames())
        return self._torch_table

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self):
        return iter(self.rules)

    def get(self, rule_id_or_name: str) -> Rule | None:
        key = rule_id_or_name.strip()
        return self._by_id.get(key.upper()) or self._by_name.get(key)

    def active(self, options: RuleOptions) -> list[Rule]:
        """The rules that ``options`` select for its target ROCm release."""
        out = []
        for r in self.rules:
            chosen = any(r.selected_by(k) for k in options.select)
            if (options.select or not r.default_enabled) and not chosen:
                continue
            if any(r.selected_by(k) for k in options.ignore):
                continue
            if r.fixed_in_rocm and version_key(options.rocm_version) >= version_key(r.fixed_in_rocm):
                continue
            if r.quiet_in_torch_extension and options.torch_extension:
                continue
            if not options.build_defines.isdisjoint(r.unless_build_defines):
                continue
            out.append(r)
        return out

    def severity_for(self, rule: Rule, options: RuleOptions) -> str:
        for key in (rule.id, rule.name, rule.category):
            if key in options.severity:
                return options.severity[key]
        return rule.severity

    def apply(
        self,
        facts: FileFacts,
        options: RuleOptions,
        read_line: Callable[[str, int], str],
    ) -> list[Finding]:
        """One translation unit's facts -> its findings, in (path, line, column, rule) order."""
        active = {r.id for r in self.active(options)}
        if not active:
            return []
        ctx = _ApplyContext(
            self.table_for(options),
            self.claimed,
            tuple(options.rocm_version),
            targets_in_scope(options.offload_arch),
            options.nvcc_only,
            hip_build().torch_defined if options.torch_extension else frozenset(),
            options.unused_macros,
        )
        index = TUIndex(facts)
        hits: dict[tuple, tuple[Rule, str, dict, object]] = {}
        also: dict[tuple, list] = {}  # more related locations of a hit (other uses of a macro value)
        for kind, list_name in FACT_LISTS.items():
            generic = [c for c in self._generic.get(kind, ()) if c[0].id in active]
            named = self._named.get(kind, {})
            if not generic and not named:
                continue
            matcher = MATCHERS[kind]
            key_field = INDEX_KEYS.get(kind, ("", ""))[1]
            derive = DERIVED.get(kind)
            for fact in derive(facts) if derive else getattr(facts, list_name):
                key_name = getattr(fact, key_field, None) if key_field else None
                cands = generic
                if named and key_name in named:
                    cands = sorted(
                        [c for c in named[key_name] if c[0].id in active] + generic,
                        key=lambda c: (self._order[c[0].id], c[1]),
                    )
                done: set[str] = set()
                for rule, _bi, spec in cands:
                    if rule.id in done:
                        continue
                    if not common_ok(spec, fact, index):
                        continue
                    placeholders = matcher(spec, fact, index, ctx)
                    if placeholders is None:
                        continue
                    done.add(rule.id)
                    loc = placeholders.pop(AT_KEY, None) or fact.loc
                    key = (rule.id, loc.path, loc.line, loc.column)
                    uses = placeholders.pop(RELATED_KEY, ())
                    if uses:
                        also.setdefault(key, []).extend(uses)
                    if key not in hits:
                        confidence = _lower(
                            spec.confidence or rule.confidence, getattr(fact, "confidence", None)
                        )
                        if getattr(fact, "switch", "") and spec.conds.get("also_switched"):
                            confidence = _lower(confidence, "medium")  # code a switch keeps off
                        hits[key] = (rule, confidence, placeholders, fact)
                    elif getattr(fact, "related", ()):
                        # the same place reached from another use (a macro-body value or call, a
                        # mapping header's `#define gpuX cudaX` seen as a token and as a call):
                        # list that use too
                        also.setdefault(key, []).extend(fact.related)
        return self._findings(hits, facts, options, read_line, also)

    def _findings(
        self, hits, facts: FileFacts, options: RuleOptions, read_line, also: dict | None = None
    ) -> list[Finding]:
        # A fallback rule gives way to any other rule on the same line, or one that lists the
        # line among its uses (a mask constant reported at its definition, used at this call).
        specific_lines = {k[1:3] for k, (r, *_) in hits.items() if not r.fallback}
        specific_lines |= {
            (u.path, u.line)
            for r, _c, _p, fact in hits.values()
            if not r.fallback
            for u in getattr(fact, "related", ()) or ()
            if u.role != "definition"
        }
        # An API-table status never repeats what a catalogue rule says about the same token.
        api_locs = {k[1:] for k, (r, *_) in hits.items() if not r.is_api_rule and not r.fallback}
        out: list[Finding] = []
        lines_done: set[tuple] = set()
        named: dict[tuple, int] = {}  # (rule, file, name) -> its finding in `out` (once_per_name)
        off_hip = OffHipLines(
            facts.branches,
            options.hip_absent,
            options.oldest_absent,
            read_line,
            options.rocm_version,
            options.torch_extension,
        )
        chain_of = {(b.loc.path, b.loc.line): b.chain_line for b in facts.branches}
        for key in sorted(hits, key=lambda k: (k[1], k[2], k[3], self._order[k[0]])):
            rule, confidence, placeholders, fact = hits[key]
            loc = key[1:]
            if rule.fallback and loc[:2] in specific_lines:
                continue
            if rule.is_api_rule:  # one API-table status per name use: the lowest rule id wins
                if loc in api_locs:
                    continue
                api_locs.add(loc)
            if confidence == "low" and not options.include_low_confidence:
                continue
            if _suppressed(facts, rule, loc[0], loc[1]):
                continue
            if loc[:2] in off_hip and not rule.reports_hip_skip:
                continue
            if rule.hip_compiled_only and off_hip.hip_skips(loc[:2]):
                continue
            related = getattr(fact, "related", ())
            roots = [r for r in related if r.role == "definition"]
            if any((r.path, r.line) in off_hip for r in roots):
                continue  # derived from a root the project defines per platform: already ported
            uses = [r for r in related if r.role.startswith("argument")]
            if uses and all((r.path, r.line) in off_hip for r in uses):
                continue  # a value only code the HIP build leaves out uses (a `_sync` arm it skips)
            if options.hip_names and not options.hip_names.isdisjoint(_subjects(fact)):
                continue  # the project's HIP build has its own definition of this name
            # once per chain/line/file among the findings that remain: a first hit quieted above
            # (code a HIP build skips) does not hide a later one
            if rule.once_per_chain:
                where = (rule.id, loc[0], chain_of.get(loc[:2], loc[1]))
                if where in lines_done:
                    continue
                lines_done.add(where)
            if rule.once_per_line:
                if (rule.id, *loc[:2]) in lines_done:
                    continue
                lines_done.add((rule.id, *loc[:2]))
            if rule.once_per_name or rule.once_per_file:
                # one finding per file (and name): the file's later uses are listed with it
                name = placeholders.get("name", "") if rule.once_per_name else ""
                first = named.get((rule.id, loc[0], name))
                if first is not None:
                    seen = {(out[first].path, out[first].line)}
                    seen |= {(r.path, r.line) for r in out[first].related}
                    if loc[:2] not in seen:
                        more = RelatedLoc(loc[0], loc[1], loc[2], "another use")
                        out[first] = replace(out[first], related=(*out[first].related, more))
                    continue
                named[(rule.id, loc[0], name)] = len(out)
            values = {
                "context": getattr(fact, "context", ""),
                "function": getattr(fact, "function", ""),
                "path": loc[0],
                "line": loc[1],
                "column": loc[2],
                **placeholders,
            }
            try:
                snippet = read_line(loc[0], loc[1]).strip()
            except (OSError, IndexError, UnicodeDecodeError):
                snippet = ""
            out.append(
                Finding(
                    rule=rule.id,
                    name=rule.name,
                    category=rule.category,
                    severity=self.severity_for(rule, options),
                    confidence=confidence,
                    effort=rule.effort,
                    path=loc[0],
                    line=loc[1],
                    column=loc[2],
                    message=_format(rule.message, values),
                    function=getattr(fact, "function", "") or "",
                    snippet=snippet,
                    fix=_format(rule.short_fix, values),
                    related=tuple(
                        dict.fromkeys((*(getattr(fact, "related", ()) or ()), *(also or {}).get(key, ())))
                    ),
                )
            )
        return out


def _lower(confidence: str, cap: str | None) -> str:
    """A rule's confidence, at most the fact's own (a chain through a function argument or a
    guessed template argument is at most medium)."""
    order = ("low", "medium", "high")
    if cap in order and order.index(cap) < order.index(confidence):
        return cap
    return confidence


def _name_index() -> defaultdict:
    return defaultdict(list)  # a named factory: the index is pickled into the rule-set cache


def _subjects(fact: object) -> set[str]:
    """The CUDA names a finding is about: the called function, the identifier, the function a
    literal argument is passed to (the mask of `__shfl_xor_sync`), the names in a declared type."""
    if isinstance(fact, CallFact):
        return {fact.callee}
    if isinstance(fact, IdentFact):
        return {fact.name}
    if isinstance(fact, LiteralFact) and fact.role == "arg":
        return {fact.op}
    if isinstance(fact, DeclFact):
        return set(_TYPE_NAME.findall(fact.type))
    macro = getattr(fact, "macro", "")  # a shared-memory size set inside a project macro
    return {macro} if macro and not isinstance(fact, LiteralFact) else set()


_TYPE_NAME = re.compile(r"[A-Za-z_]\w*")


def _suppressed(facts: FileFacts, rule: Rule, path: str, line: int) -> bool:
    marks = facts.suppressions.get(path, {}).get(line)
    if not marks:
        return False
    return "*" in marks or rule.id in marks or rule.name in marks or rule.category in marks


class _Missing(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _format(template: str, values: dict) -> str:
    try:
        return template.format_map(_Missing(values))
    except (ValueError, IndexError, KeyError, AttributeError):
        return template


def rule_files(directory: Path) -> list[Path]:
    return sorted(p for p in Path(directory).glob("*.toml") if p.is_file())


def load_rules(
    extra_dirs: Iterable[Path | str] = (), *, builtin: bool = True, cache_dir: Path | None = None
) -> RuleSet:
    """The built-in rules plus every ``*.toml`` in ``extra_dirs`` (``--rules DIR``).

    With ``cache_dir`` the loaded and indexed set is kept there between runs (keyed by the rule
    files, the API table and this package's source) and reused while none of them changes.
    Raises ``RuleFileError`` for a malformed file, a duplicate id or a duplicate name.
    """
    dirs = ([rules_dir()] if builtin else []) + [Path(d) for d in extra_dirs]
    if cache_dir is not None:
        from hipscan.rules.cache import load_cached

        return load_cached(dirs, Path(cache_dir), lambda: _load(dirs))
    return _load(dirs)


def _load(dirs: list[Path]) -> RuleSet:
    seen_ids: dict[str, str] = {}
    seen_names: dict[str, str] = {}
    rules: list[Rule] = []
    for d in dirs:
        if not Path(d).is_dir():
            raise RuleFileError(d, "directory", "not a directory of rule files")
        for path in rule_files(d):
            for i, kw in enumerate(read_rule_file(path)):
                where = f"rule[{i}]({kw['id']})"
                if kw["id"] in seen_ids:
                    raise RuleFileError(path, f"{where}.id", f"duplicate id (also in {seen_ids[kw['id']]})")
                if kw["name"] in seen_names:
                    raise RuleFileError(
                        path, f"{where}.name", f"duplicate name (also in {seen_names[kw['name']]})"
                    )
                seen_ids[kw["id"]] = str(path)
                seen_names[kw["name"]] = str(path)
                rules.append(Rule(**kw))
    return RuleSet(rules)
