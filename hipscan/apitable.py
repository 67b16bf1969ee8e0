"""The CUDA→HIP API table (from the public HIPIFY tables), loaded once per process."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources


@lru_cache(maxsize=512)  # a few hundred distinct strings over 10,000 rows, asked for again and again
def parse_version(text: str) -> tuple[int, ...] | None:
    """'6.2.0' -> (6, 2, 0); '' -> None."""
    text = text.strip()
    if not text:
        return None
    return tuple(int(p) for p in text.split(".") if p.isdigit())


@dataclass(frozen=True, slots=True)
class ApiEntry:
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


@cache
def load_api_table() -> ApiTable:
    """Load the packaged table. Where a name appears twice (struct tags), the first row wins."""
    entries: dict[str, ApiEntry] = {}
    text = resources.files("hipscan.data").joinpath("cuda2hip.csv").read_text(encoding="utf-8")
    rows = csv.reader(text.splitlines())
    col = {name: k for k, name in enumerate(next(rows))}  # plain rows: DictReader costs 3x more
    get = [col[f] for f in _TEXT_FIELDS]
    unsupported, no_hip_or_roc = col["unsupported"], col["no_hip_or_roc"]
    for row in rows:
        name = row[col["cuda_name"]]
        if name in entries:
            continue
        entries[name] = ApiEntry(
            *(row[k] for k in get),
            unsupported=_flag(row[unsupported]),
            no_hip_or_roc=_flag(row[no_hip_or_roc]),
            roc_library=row[col["roc_library"]],
        )
    return ApiTable(entries)
