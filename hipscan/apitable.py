"""The CUDA→HIP API table (from the public HIPIFY tables), loaded once per process."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import NamedTuple


@lru_cache(maxsize=512)  # a few hundred distinct strings over 10,000 rows, asked for again and again
def parse_version(text: str) -> tuple[int, ...] | None:
    """'6.2.0' -> (6, 2, 0); '' -> None."""
    text = text.strip()
    if not text:
        return None
    return tuple(int(p) for p in text.split(".") if p.isdigit())


class ApiEntry(NamedTuple):
    """One table row. A named tuple, not a dataclass: 10,000 of them are built at every start,
    and a tuple is built in one step where a frozen dataclass sets each field in turn."""

    library: str  # runtime | driver | device | rtc | complex | cublas | ... | cub
    section: str
    kind: str  # function | device_function | type | enum | enum_value | macro | struct | ...
    cuda_name: str
    hip_name: str  # "" when HIP has none
    roc_name: str  # "" when no roc* twin
    cuda_added: str
    cuda_deprecated: str
    cuda_removed: str
    hip_added: str
    hip_deprecated: str
    hip_removed: str
    hip_experimental: str
    unsupported: bool  # no HIP name
    no_hip_or_roc: bool  # neither a HIP nor a ROC name (use for cuDNN)
    roc_library: str

    @property
    def hip_added_version(self) -> tuple[int, ...] | None:
        return parse_version(self.hip_added)


@dataclass(frozen=True, slots=True)
class ApiTable:
    entries: dict[str, ApiEntry]

    def get(self, cuda_name: str) -> ApiEntry | None:
        return self.entries.get(cuda_name)

    def __contains__(self, cuda_name: str) -> bool:
        return cuda_name in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def with_renames(self, renames: dict[str, str]) -> ApiTable:
        """This table with ``renames`` (CUDA name -> HIP name) filling entries that have none:
        what a project's own hipify pass maps beyond the HIPIFY tables."""
        entries = dict(self.entries)
        for name, hip in renames.items():
            e = entries.get(name)
            if e is not None and not (e.hip_name or e.roc_name):
                entries[name] = e._replace(hip_name=hip, unsupported=False, no_hip_or_roc=False)
        return ApiTable(entries)


def _flag(value: str) -> bool:
    return value.strip().lower() == "true"


_TEXT_FIELDS = (
    "library",
    "section",
    "kind",
    "cuda_name",
    "hip_name",
    "roc_name",
    "cuda_added",
    "cuda_deprecated",
    "cuda_removed",
    "hip_added",
    "hip_deprecated",
    "hip_removed",
    "hip_experimental",
)  # ApiEntry's leading fields, in order


_LOADED: list[ApiTable] = []  # the process's table, once loaded or restored


def load_api_table() -> ApiTable:
    """The packaged table, loaded once per process (or restored by ``adopt_api_table``)."""
    if not _LOADED:
        _LOADED.append(ApiTable({row[3]: ApiEntry._make(row) for row in _read_rows()}))
    return _LOADED[0]


def api_table_rows() -> list[tuple]:
    """The loaded table as plain tuples in ``ApiEntry`` field order (what a cache stores)."""
    return [tuple(e) for e in load_api_table().entries.values()]


def adopt_api_table(rows: list[tuple]) -> ApiTable:
    """The process's table from ``api_table_rows()`` of an earlier run (unless one is loaded):
    the rule-set cache restores it without parsing the CSV again."""
    if not _LOADED:
        entries = {row[3]: ApiEntry._make(row) for row in rows}
        if len(entries) != len(rows):
            raise ValueError("API table rows: duplicate names")
        _LOADED.append(ApiTable(entries))
    return _LOADED[0]


def _read_rows() -> list[tuple]:
    """The CSV's rows in ``ApiEntry`` field order. Where a name appears twice (struct tags), the
    first row wins."""
    text = resources.files("hipscan.data").joinpath("cuda2hip.csv").read_text(encoding="utf-8")
    rows = csv.reader(text.splitlines())
    col = {name: k for k, name in enumerate(next(rows))}  # plain rows: DictReader costs 3x more
    get = [col[f] for f in _TEXT_FIELDS]
    name_col = col["cuda_name"]
    unsupported, no_hip_or_roc = col["unsupported"], col["no_hip_or_roc"]
    roc_library = col["roc_library"]
    seen: set[str] = set()
    out: list[tuple] = []
    for row in rows:
        name = row[name_col]
        if name in seen:
            continue
        seen.add(name)
        out.append(
            (
                *(row[k] for k in get),
                _flag(row[unsupported]),
                _flag(row[no_hip_or_roc]),
                row[roc_library],
            )
        )
    return out


class HandMapping(NamedTuple):
    """A HIP counterpart the HIPIFY tables lack (hand_mapped.csv): hipify leaves the name."""

    hip_name: str
    hip_added: str

    @property
    def hip_added_version(self) -> tuple[int, ...] | None:
        return parse_version(self.hip_added)


@cache
def load_hand_mapped() -> dict[str, HandMapping]:
    """CUDA names hipify leaves unchanged that HIP declares under another name, with the ROCm
    release that added it (see hipscan/data/README.md)."""
    text = resources.files("hipscan.data").joinpath("hand_mapped.csv").read_text(encoding="utf-8")
    return {
        row["cuda_name"]: HandMapping(row["hip_name"], row["hip_added"])
        for row in csv.DictReader(text.splitlines())
    }


class DefaultArgs(NamedTuple):
    """A runtime function whose HIP twin takes more arguments than a CUDA call may pass
    (default_args.csv): CUDA declares defaults for trailing parameters that HIP does not."""

    hip_name: str
    cuda_min_args: int
    hip_min_args: int
    fixed_in: str  # the ROCm release whose HIP has the default too ("" while none does)


@cache
def load_default_args() -> dict[str, DefaultArgs]:
    """Read default_args.csv (generated by gen_default_args.py; see hipscan/data/README.md)."""
    text = resources.files("hipscan.data").joinpath("default_args.csv").read_text(encoding="utf-8")
    return {
        row["cuda_name"]: DefaultArgs(
            row["hip_name"], int(row["cuda_min_args"]), int(row["hip_min_args"]), row["fixed_in"]
        )
        for row in csv.DictReader(text.splitlines())
    }


class PastedName(NamedTuple):
    """What a `hip##x` arm of a prefix-pasting macro builds for a CUDA name it pastes with
    `prefix` (paste_missing.csv): a name HIP does not declare, HIP's own being another."""

    prefix: str
    pasted_hip: str


@cache
def load_paste_missing() -> dict[str, PastedName]:
    """CUDA name -> the name its HIP paste builds, where HIP lacks it (paste_missing.csv,
    generated by gen_paste_missing.py from the HIP headers)."""
    text = resources.files("hipscan.data").joinpath("paste_missing.csv").read_text(encoding="utf-8")
    return {
        row["cuda_name"]: PastedName(row["prefix"], row["pasted_hip"])
        for row in csv.DictReader(text.splitlines())
    }


@cache
def load_torch_renames() -> dict[str, str]:
    """Names PyTorch's build-time hipify (torch.utils.hipify) maps that the HIPIFY tables list
    with no counterpart, each to a name ROCm declares (torch_hipify.csv, generated by
    gen_torch_hipify.py from an installed torch; see hipscan/data/README.md)."""
    text = resources.files("hipscan.data").joinpath("torch_hipify.csv").read_text(encoding="utf-8")
    return {row["cuda_name"]: row["hip_name"] for row in csv.DictReader(text.splitlines())}
