"""The feature inventory: which CUDA features a code base uses, with file and use counts.

Not findings: the "what are we dealing with" view a porting team reads first (texture objects,
graphs, NVRTC, managed memory, each CUDA library ...), with what hipify does with each and no
effort attached. The features are data (``hipscan/data/features.toml``); a feature is recognised
from the facts every scan extracts (calls, declared types, includes, build files), so it needs no
watched names of its own.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import tomllib

from hipscan.facts import DEVICE_CONTEXTS, FileFacts

HIPIFY_VALUES = ("renamed", "partly", "no")
_PATTERN_KEYS = ("calls", "qualnames", "types", "includes", "builds")


@dataclass(frozen=True)
class Feature:
    id: str
    title: str
    hipify: str  # renamed | partly | no
    hip: str  # what HIP/ROCm offers instead
    patterns: dict[str, re.Pattern[str]] = field(default_factory=dict)
    storage: str = ""
    device_launches: bool = False
    device_asm: bool = False


@dataclass
class FeatureUse:
    """One feature's use in the scanned code."""

    feature: Feature
    uses: int = 0
    files: set[str] = field(default_factory=set)
    first: tuple[str, int] = ("", 0)  # where it is first seen (path, line)

    def to_dict(self) -> dict:
        f = self.feature
        return {
            "id": f.id,
            "title": f.title,
            "hipify": f.hipify,
            "hip": f.hip,
            "files": len(self.files),
            "uses": self.uses,
            "example": f"{self.first[0]}:{self.first[1]}" if self.first[0] else "",
        }


@lru_cache(maxsize=1)
def load_features() -> tuple[Feature, ...]:
    """The feature table; a malformed entry is a packaging error, reported with its id."""
    text = resources.files("hipscan.data").joinpath("features.toml").read_text("utf-8")
    out = []
    for entry in tomllib.loads(text)["feature"]:
        fid = entry["id"]
        if entry.get("hipify") not in HIPIFY_VALUES:
            raise ValueError(f"features.toml: {fid}: hipify must be one of {HIPIFY_VALUES}")
        patterns = {k: re.compile(entry[k]) for k in _PATTERN_KEYS if k in entry}
        out.append(
            Feature(
                id=fid,
                title=entry["title"],
                hipify=entry["hipify"],
                hip=entry.get("hip", ""),
                patterns=patterns,
                storage=entry.get("storage", ""),
                device_launches=bool(entry.get("device_launches", False)),
                device_asm=bool(entry.get("device_asm", False)),
            )
        )
    return tuple(out)


class Inventory:
    """Counts feature uses over the translation units of one scan, one at a time."""

    def __init__(self, features: tuple[Feature, ...] | None = None) -> None:
        self.features = features if features is not None else load_features()
        self.uses: dict[str, FeatureUse] = {}
        # names repeat across a code base: each name is matched against the table once
        self._memo: dict[tuple[str, str], tuple[Feature, ...]] = {}

    def _matching(self, key: str, text: str) -> tuple[Feature, ...]:
        hit = self._memo.get((key, text))
        if hit is None:
            hit = tuple(f for f in self.features if key in f.patterns and f.patterns[key].search(text))
            self._memo[(key, text)] = hit
        return hit

    def _count(self, feature: Feature, path: str, line: int) -> None:
        use = self.uses.get(feature.id)
        if use is None:
            use = self.uses[feature.id] = FeatureUse(feature, first=(path, line))
        use.uses += 1
        use.files.add(path)
        if (path, line) < use.first:
            use.first = (path, line)

    def add(self, facts: FileFacts) -> None:
        seen: set[tuple[str, str, int, int]] = set()  # a call and its qualified name: one use

        def count(features, loc) -> None:
            for f in features:
                key = (f.id, loc.path, loc.line, loc.column)
                if key not in seen:
                    seen.add(key)
                    self._count(f, loc.path, loc.line)

        for c in facts.calls:
            count(self._matching("calls", c.callee), c.loc)
            if c.qualname != c.callee:
                count(self._matching("qualnames", c.qualname), c.loc)
        for d in facts.decls:
            if d.kind != "function":
                count(self._matching("types", d.type), d.loc)
            if d.storage:
                count([f for f in self.features if f.storage and f.storage in d.storage], d.loc)
        for i in facts.includes:
            count(self._matching("includes", i.name), i.loc)
        for b in facts.builds:
            if b.kind in ("library", "package"):
                count(self._matching("builds", b.value), b.loc)
        device_launch = [f for f in self.features if f.device_launches]
        for launch in facts.launches:
            if launch.context in DEVICE_CONTEXTS:
                count(device_launch, launch.loc)
        device_asm = [f for f in self.features if f.device_asm]
        for a in facts.asms:
            if a.context in DEVICE_CONTEXTS and not a.from_inactive_branch:
                count(device_asm, a.loc)

    def rows(self) -> list[FeatureUse]:
        """Features in use, most files first (then most uses), in the table's order otherwise."""
        order = {f.id: i for i, f in enumerate(self.features)}
        return sorted(self.uses.values(), key=lambda u: (-len(u.files), -u.uses, order[u.feature.id]))


def by_hipify(rows: list[FeatureUse]) -> dict[str, int]:
    """How many features in use hipify renames, handles partly, or not at all."""
    out: dict[str, int] = defaultdict(int)
    for r in rows:
        out[r.feature.hipify] += 1
    return dict(out)
