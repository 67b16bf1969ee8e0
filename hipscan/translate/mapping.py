"""What a CUDA identifier or header becomes in HIP: the API table plus ``hipmap.toml``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import tomllib

from hipscan.apitable import ApiEntry, load_api_table, parse_version

# API table libraries whose `hip_added` column is a HIP (= ROCm) release; the math libraries'
# columns count their own releases (hipBLAS 2.x ships with ROCm 6.x)
HIP_VERSIONED = frozenset({"runtime", "driver", "device", "complex", "rtc"})


@dataclass(frozen=True, slots=True)
class HipMap:
    """Lookups the rewriter needs; built once per process and per ``roc`` choice."""

    names: dict[str, str]  # CUDA name -> replacement (only where it differs)
    unsupported: dict[str, ApiEntry]  # CUDA names the table knows but HIP has no twin for
    headers: dict[str, str]  # CUDA header -> HIP header ("" = drop)
    symbol_calls: dict[str, int]  # call name -> index of its device-symbol argument
    namespaces: dict[str, str]  # qualifier rename, "cub" -> "hipcub"
    keep: frozenset[str]
    configure_functions: frozenset[str]
    arg_casts: dict[str, tuple[int, str]] = field(default_factory=dict)  # call -> (arg index, cast)
    default_args: dict[str, tuple[int, tuple[str, ...]]] = field(default_factory=dict)  # arity, tail
    arity_renames: dict[str, tuple[int, str]] = field(default_factory=dict)  # args -> other name
    null_args: dict[str, int] = field(default_factory=dict)  # call -> index of a parameter HIP lacks
    rocm_provided: tuple[str, ...] = ()  # header prefixes a ROCm library installs as they are
    index_casts: frozenset[str] = frozenset()  # calls whose built-in index arguments are cast
    index_cast: str = "(unsigned int)"
    index_members: re.Pattern[str] = re.compile(r"(?!)")  # the built-in index members it casts
    struct_tags: dict[str, str] = field(default_factory=dict)  # `struct NAME` -> HIP typedef name
    cuda_headers: re.Pattern[str] | None = None  # names of CUDA/NVIDIA headers
    header_flags: dict[str, tuple[str, ...]] = field(default_factory=dict)  # header -> hipcc flags
    header_since: dict[str, tuple[int, ...]] = field(default_factory=dict)  # HIP header -> release
    manual_args: dict[str, str] = field(default_factory=dict)  # call -> what to complete by hand
    # record type -> (members, cast of a member of a non-const object, of a const one)
    member_casts: dict[str, tuple[frozenset[str], str, str]] = field(default_factory=dict)

    def replacement(self, name: str) -> str | None:
        return self.names.get(name)


def _load_toml() -> dict:
    text = resources.files("hipscan.translate").joinpath("hipmap.toml").read_text("utf-8")
    return tomllib.loads(text)


@cache
def load_hip_map(roc: bool = False) -> HipMap:
    """Build the name map; with ``roc`` the roc* names win where the table has them."""
    data = _load_toml()
    keep = frozenset(data.get("keep", {}).get("names", []))
    names: dict[str, str] = {}
    unsupported: dict[str, ApiEntry] = {}
    for name, entry in load_api_table().entries.items():
        if name in keep:
            continue
        target = entry.roc_name if roc and entry.roc_name else entry.hip_name
        if not target:
            unsupported[name] = entry
        elif target != name:
            names[name] = target
    names.update(data.get("renames", {}))
    names.update(data.get("guard_macros", {}))
    for name in data.get("empty_macros", {}).get("names", []):
        names[name] = f"/*{name}*/"
    headers = dict(data["headers"])
    if roc:
        headers.update(data.get("roc_headers", {}))
    return HipMap(
        names=names,
        unsupported=unsupported,
        headers=headers,
        symbol_calls={k: int(v) for k, v in data["symbol_calls"].items()},
        arg_casts={k: (int(v["index"]), v["cast"]) for k, v in data.get("arg_casts", {}).items()},
        default_args={
            k: (int(v["arity"]), tuple(v["append"])) for k, v in data.get("default_args", {}).items()
        },
        header_flags={k: tuple(v) for k, v in data.get("header_flags", {}).items()},
        arity_renames={k: (int(v["args"]), v["name"]) for k, v in data.get("arity_renames", {}).items()},
        null_args={k: int(v) for k, v in data.get("null_args", {}).items()},
        rocm_provided=tuple(data.get("rocm_provided", {}).get("prefixes", [])),
        index_casts=frozenset(data.get("index_casts", {}).get("calls", [])),
        index_cast=data.get("index_casts", {}).get("cast", "(unsigned int)"),
        index_members=re.compile(data.get("index_casts", {}).get("members", r"(?!)")),
        struct_tags=dict(data.get("struct_tags", {})),
        cuda_headers=re.compile(data["cuda_headers"]["regex"]) if "cuda_headers" in data else None,
        namespaces=dict(data.get("namespaces", {})),
        manual_args=dict(data.get("manual_args", {})),
        member_casts={
            k: (frozenset(v["members"]), v["cast"], v["const_cast"])
            for k, v in data.get("member_casts", {}).items()
        },
        header_since={k: parse_version(v) or () for k, v in data.get("header_since", {}).items()},
        keep=keep,
        configure_functions=frozenset(data["launch"]["configure_functions"]),
    )
