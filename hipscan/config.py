"""Scan configuration: defaults, ``[tool.hipscan]`` in pyproject.toml or ``hipscan.toml``, CLI overrides."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from hipscan.analysis.smem import targets_in_scope

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    "build",
    "_build",
    "cmake-build-*",
    "node_modules",
    "__pycache__",
    ".tox",
    ".venv",
    "venv",
    "hipscan-report",
)
MODES = ("shim", "toolkit", "auto")


class ConfigError(Exception):
    """A configuration problem the user must fix (exit code 2)."""


@dataclass(frozen=True)
class ScanConfig:
    mode: str = "shim"  # shim | toolkit | auto
    cuda_path: str = ""  # toolkit mode: CUDA install; "" = CUDA_HOME/CUDA_PATH/standard places
    include_dirs: tuple[str, ...] = ()
    repo_include_dirs: tuple[str, ...] = ()  # those the scanned repository's config file named
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    compile_commands: str = ""  # folder holding compile_commands.json (-p)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extra_exclude: tuple[str, ...] = ()
    std: str = "c++17"
    jobs: int = 0  # 0 = number of cores
    timeout: float = 60.0  # seconds per file
    max_file_size: int = 2_000_000  # bytes
    max_memory: int = 4096  # MiB of address space per parser process; 0 = no limit
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)  # rule id/name -> severity
    rules_dirs: tuple[str, ...] = ()
    rocm_version: tuple[int, ...] = (6, 4)
    offload_arch: tuple[str, ...] = ()  # AMD targets in scope; empty = hipscan/data/lds.toml defaults
    include_low_confidence: bool = True
    use_pch: bool = True
    use_cache: bool = True  # content-hash cache of per-file facts
    cache_dir: str = ""  # "" = $XDG_CACHE_HOME/hipscan or ~/.cache/hipscan
    progress: bool = False
    include_vendored: bool = False  # scan bundled third-party trees as project code
    # per file (absolute path), feature switches its whole-contents guard needs defined
    file_defines: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extra_exclude

    def effective_jobs(self) -> int:
        return self.jobs if self.jobs > 0 else (os.cpu_count() or 1)

    def cache_path(self) -> Path:
        if self.cache_dir:
            return Path(self.cache_dir)
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / "hipscan"


def parse_version(text: str) -> tuple[int, ...]:
    try:
        parts = tuple(int(p) for p in str(text).split("."))
    except ValueError:
        raise ConfigError(f"invalid ROCm version {text!r}: expected MAJOR.MINOR, e.g. 6.4") from None
    if not parts:
        raise ConfigError(f"invalid ROCm version {text!r}")
    return parts


SEVERITY_NAMES = ("info", "low", "medium", "high", "blocker")
_STD = re.compile(r"^(?:c|gnu|cuda)(?:\+\+)?\d\w$")


@dataclass(frozen=True)
class _Key:
    """One configuration-file key: the ScanConfig field it sets and what its value must be."""

    field: str
    kind: str  # str | strs | paths | path | int | number | bool | severities | version | choice
    choices: tuple[str, ...] = ()
    minimum: float | None = None


# What a repository's own configuration file may set (not the cache folder, not progress).
SCHEMA: dict[str, _Key] = {
    "exclude": _Key("extra_exclude", "strs"),
    "select": _Key("select", "strs"),
    "ignore": _Key("ignore", "strs"),
    "severity": _Key("severity", "severities"),
    "rocm_version": _Key("rocm_version", "version"),
    "offload_arch": _Key("offload_arch", "strs"),
    "include_dirs": _Key("include_dirs", "paths"),
    "defines": _Key("defines", "strs"),
    "undefines": _Key("undefines", "strs"),
    "rules": _Key("rules_dirs", "paths"),
    "mode": _Key("mode", "choice", MODES),
    "cuda_path": _Key("cuda_path", "path"),
    "compile_commands": _Key("compile_commands", "path"),
    "std": _Key("std", "std"),
    "jobs": _Key("jobs", "int", minimum=0),
    "timeout": _Key("timeout", "number", minimum=0.001),
    "max_file_size": _Key("max_file_size", "int", minimum=1),
    "max_memory": _Key("max_memory", "int", minimum=0),
    "include_low_confidence": _Key("include_low_confidence", "bool"),
    "include_vendored": _Key("include_vendored", "bool"),
}
_TYPE_WORDS = {
    "str": "a string",
    "strs": "a list of strings",
    "paths": "a list of paths (strings)",
    "path": "a path (string)",
    "int": "an integer",
    "number": "a number",
    "bool": "true or false",
    "severities": "a table of RULE = SEVERITY",
    "version": 'a version string such as "6.4"',
    "choice": "a string",
    "std": 'a language standard such as "c++17"',
}


def _type_name(value: object) -> str:
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "a list"}.get(
        type(value), "a table" if isinstance(value, dict) else type(value).__name__
    )


def _check(key: _Key, raw_key: str, value: object, where: str, base: Path) -> object:
    """The value converted for ScanConfig, or a ConfigError naming the file and key."""

    def bad(why: str = "") -> ConfigError:
        return ConfigError(
            f"{where}: key {raw_key!r}: "
            + (why or f"expected {_TYPE_WORDS[key.kind]}, got {_type_name(value)} {value!r}")
        )

    kind = key.kind
    if kind in ("strs", "paths"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad()
        if kind == "paths":
            return tuple(str((base / v).resolve()) if v else v for v in value)
        return tuple(value)
    if kind in ("str", "path", "choice", "version", "std"):
        if not isinstance(value, str):
            raise bad()
        if kind == "path":
            return str((base / value).resolve()) if value else ""
        if kind == "choice" and value not in key.choices:
            raise bad(f"must be one of {', '.join(key.choices)}, not {value!r}")
        if kind == "version":
            try:
                return parse_version(value)
            except ConfigError:
                raise bad(f'expected a version such as "6.4", not {value!r}') from None
        if kind == "std" and not _STD.match(value):
            raise bad(f'expected a language standard such as "c++17", not {value!r}')
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise bad()
        return value
    if kind in ("int", "number"):
        ok = isinstance(value, int) if kind == "int" else isinstance(value, (int, float))
        if not ok or isinstance(value, bool):
            raise bad()
        if key.minimum is not None and value < key.minimum:
            raise bad(f"must be at least {key.minimum:g}, not {value!r}")
        return value
    if kind == "severities":
        if not isinstance(value, dict):
            raise bad()
        for rule, sev in value.items():
            if sev not in SEVERITY_NAMES:
                raise ConfigError(
                    f"{where}: key {raw_key!r}: {rule} = {sev!r}: severity must be one of "
                    f"{', '.join(SEVERITY_NAMES)}"
                )
        return dict(value)
    raise AssertionError(kind)  # pragma: no cover


def _from_table(table: dict, source: Path, section: str = "[tool.hipscan]") -> dict:
    """Validate a configuration table: types, allowed values, known keys; paths resolved from the
    file's own folder, so a config behaves the same whatever directory hipscan runs from."""
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: {section} must be a table")
    values: dict = {}
    where = f"{source}: {section}"
    for raw_key, value in table.items():
        key = SCHEMA.get(raw_key.replace("-", "_"))
        if key is None:
            from difflib import get_close_matches

            close = get_close_matches(raw_key.replace("-", "_"), list(SCHEMA), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}: unknown key {raw_key!r}{hint}")
        values[key.field] = _check(key, raw_key, value, where, source.parent)
    return values


def find_config_file(root: Path) -> tuple[Path, dict, str] | None:
    """``hipscan.toml`` (top level or ``[tool.hipscan]``) wins over ``pyproject.toml``; the file,
    its table, and where in the file the table is (for messages)."""
    candidate = root / "hipscan.toml"
    if candidate.is_file():
        data = _read_toml(candidate)
        tool = data.get("tool")
        if isinstance(tool, dict) and "hipscan" in tool:
            return candidate, tool["hipscan"], "[tool.hipscan]"
        return candidate, data, "top level"
    candidate = root / "pyproject.toml"
    if candidate.is_file():
        tool = _read_toml(candidate).get("tool", {})
        table = tool.get("hipscan") if isinstance(tool, dict) else None
        if table is not None:
            return candidate, table, "[tool.hipscan]"
    return None


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from None


def load_config(root: Path, overrides: dict | None = None) -> ScanConfig:
    """Defaults, then the repository's config file, then command-line overrides (non-empty ones)."""
    config = ScanConfig()
    found = find_config_file(root if root.is_dir() else root.parent)
    if found:
        path, table, section = found
        values = _from_table(table, path, section)
        # include folders a scanned repository names are parsed, but text of files there is
        # never quoted in a report unless they lie inside the tree (see frontend.trust)
        values["repo_include_dirs"] = values.get("include_dirs", ())
        config = replace(config, **values)
    for key, value in (overrides or {}).items():
        if value is None or value == () or value == "":
            continue
        if key in ("include_dirs", "defines", "undefines", "extra_exclude", "rules_dirs", "select", "ignore"):
            value = tuple(getattr(config, key)) + tuple(value)
        config = replace(config, **{key: value})
    if config.mode not in MODES:
        raise ConfigError(f"mode must be one of {', '.join(MODES)}, not {config.mode!r}")
    if isinstance(config.offload_arch, str):
        config = replace(config, offload_arch=tuple(config.offload_arch.split(",")))
    try:
        targets_in_scope(tuple(config.offload_arch))
    except ValueError as exc:
        raise ConfigError(f"offload-arch: {exc}") from None
    return config
