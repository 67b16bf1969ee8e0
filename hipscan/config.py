"""Scan configuration: defaults, ``[tool.hipscan]`` in pyproject.toml or ``hipscan.toml``, CLI overrides."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

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
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    compile_commands: str = ""  # folder holding compile_commands.json (-p)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extra_exclude: tuple[str, ...] = ()
    std: str = "c++17"
    jobs: int = 0  # 0 = number of cores
    timeout: float = 60.0  # seconds per file
    max_file_size: int = 2_000_000  # bytes
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)  # rule id/name -> severity
    rules_dirs: tuple[str, ...] = ()
    rocm_version: tuple[int, ...] = (6, 4)
    include_low_confidence: bool = True
    use_pch: bool = True
    use_cache: bool = True  # content-hash cache of per-file facts
    cache_dir: str = ""  # "" = $XDG_CACHE_HOME/hipscan or ~/.cache/hipscan
    progress: bool = False
    include_vendored: bool = False  # scan bundled third-party trees as project code

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


_KEYS = {f.name for f in fields(ScanConfig)}
_ALIASES = {"exclude": "extra_exclude", "rules": "rules_dirs", "rocm-version": "rocm_version"}


def _from_table(table: dict, source: Path) -> dict:
    values: dict = {}
    for raw_key, value in table.items():
        key = _ALIASES.get(raw_key, raw_key.replace("-", "_"))
        if key not in _KEYS:
            raise ConfigError(f"{source}: [tool.hipscan]: unknown key {raw_key!r}")
        if key == "rocm_version":
            value = parse_version(value)
        elif key == "severity":
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: [tool.hipscan]: 'severity' must be a table")
        elif isinstance(value, list):
            value = tuple(str(v) for v in value)
        values[key] = value
    if "mode" in values and values["mode"] not in MODES:
        raise ConfigError(f"{source}: [tool.hipscan]: mode must be one of {', '.join(MODES)}")
    return values


def find_config_file(root: Path) -> tuple[Path, dict] | None:
    """``hipscan.toml`` (top level or ``[tool.hipscan]``) wins over ``pyproject.toml``."""
    candidate = root / "hipscan.toml"
    if candidate.is_file():
        data = _read_toml(candidate)
        return candidate, data.get("tool", {}).get("hipscan", data)
    candidate = root / "pyproject.toml"
    if candidate.is_file():
        table = _read_toml(candidate).get("tool", {}).get("hipscan")
        if table is not None:
            return candidate, table
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
        path, table = found
        config = replace(config, **_from_table(table, path))
    for key, value in (overrides or {}).items():
        if value is None or value == () or value == "":
            continue
        if key in ("include_dirs", "defines", "undefines", "extra_exclude", "rules_dirs", "select", "ignore"):
            value = tuple(getattr(config, key)) + tuple(value)
        config = replace(config, **{key: value})
    if config.mode not in MODES:
        raise ConfigError(f"mode must be one of {', '.join(MODES)}, not {config.mode!r}")
    return config
