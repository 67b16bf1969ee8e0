"""The loaded rule set kept between runs, so a one-file scan does not parse and index it again.

Reading the TOML rule files, validating them, compiling their regular expressions, parsing the
10,000-row API table and working out which table names the API blocks watch is about a third of
a one-file run. The result is stored in the cache folder under a key over everything it is made
of: the content (and path) of every rule file, the API table, and the source of this package and
of the modules its objects come from, so a new rule, a new schema field or a new table row each
make a new entry. An entry carries a checksum of its payload and is checked before use; anything
wrong with it (missing, truncated, corrupt, from another layout) means a normal load, and a
failed write only costs the next run the same.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from hipscan.apitable import ApiEntry, adopt_api_table, api_table_rows
from hipscan.rules.engine import RuleSet, rule_files
from hipscan.rules.rule import Rule

FORMAT = b"hipscan-ruleset 1\n"
KEEP = 4  # entries kept: a few checkouts or --rules folders side by side
_PACKAGE = Path(__file__).resolve().parent.parent
# besides hipscan/rules/*.py, the modules whose classes or constants the stored objects hold
_KEYED_MODULES = ("apitable.py", "exprtext.py", "facts.py", "model.py", "resources.py")
_STATE_KEYS = (
    "rules",
    "claimed",
    "watched_identifiers",
    "watched_strings",
    "_by_id",
    "_by_name",
    "_order",
    "_named",
    "_generic",
)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=32).hexdigest().encode()


def cache_key(dirs: list[Path]) -> str | None:
    """What the loaded set depends on, hashed; None when a folder is missing (the normal load
    then reports it)."""
    h = hashlib.blake2b(digest_size=20)
    h.update(FORMAT + sys.version.encode())
    sources = sorted((_PACKAGE / "rules").glob("*.py")) + [_PACKAGE / m for m in _KEYED_MODULES]
    for path in sources:
        h.update(b"\0src\0" + path.name.encode() + b"\0" + path.read_bytes())
    h.update(b"\0table\0" + resources.files("hipscan.data").joinpath("cuda2hip.csv").read_bytes())
    for d in dirs:
        if not Path(d).is_dir():
            return None
        h.update(b"\0dir\0" + str(d).encode())
        for path in rule_files(d):  # the path too: each rule records the file it came from
            h.update(b"\0file\0" + str(path).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def load_cached(dirs: list[Path], cache_dir: Path, load: Callable[[], RuleSet]) -> RuleSet:
    """The rule set from the cache when a valid entry exists, else ``load()`` (then stored)."""
    try:
        key = cache_key(dirs)
    except OSError:
        key = None
    if key is None:
        return load()
    path = cache_dir / "rules" / f"ruleset-{key}.pickle"
    ruleset = read_entry(path, key)
    if ruleset is None:
        ruleset = load()
        write_entry(path, key, ruleset)
    return ruleset


def read_entry(path: Path, key: str) -> RuleSet | None:
    """The stored rule set, or None when the entry is missing or anything about it is wrong."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, sep, payload = data.partition(b"\n\n")
    if not sep or head != FORMAT + key.encode() + b"\n" + _digest(payload):
        return None
    try:
        stored = pickle.loads(payload)
        rows, state = stored["rows"], stored["state"]
        if not _valid(rows, state):
            return None
        return RuleSet.from_cache_state(state, adopt_api_table(rows))
    except Exception:  # any damage or layout change that got past the checksum: load normally
        return None


def _valid(rows: object, state: object) -> bool:
    width = len(ApiEntry._fields)
    return (
        isinstance(rows, list)
        and all(type(r) is tuple and len(r) == width for r in rows)
        and isinstance(state, dict)
        and all(k in state for k in _STATE_KEYS)
        and isinstance(state["rules"], list)
        and all(isinstance(r, Rule) for r in state["rules"])
        and isinstance(state["claimed"], frozenset)
        and isinstance(state["watched_identifiers"], frozenset)
    )


def write_entry(path: Path, key: str, ruleset: RuleSet) -> None:
    """Store ``ruleset`` atomically (a unique temporary file, then a rename); failures are
    ignored: the next run loads normally again."""
    try:
        payload = pickle.dumps(
            {"rows": _shared(api_table_rows()), "state": ruleset.cache_state()},
            protocol=pickle.HIGHEST_PROTOCOL,
        )
    except Exception:  # something a newer rule field holds that pickle cannot store
        return
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(FORMAT + key.encode() + b"\n" + _digest(payload) + b"\n\n" + payload)
        os.replace(tmp, path)
        tmp = None
        _prune(path)
    except OSError:
        pass
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def _shared(rows: list[tuple]) -> list[tuple]:
    """The rows with each repeated value (library, section, kind, release) one object: pickle then
    stores it once and refers to it, and reading the entry back is about twice as fast."""
    one: dict[object, object] = {}
    return [tuple(one.setdefault(v, v) for v in row) for row in rows]


def _prune(keep: Path) -> None:
    """Drop all but the most recently written entries (each holds a copy of the API table) and
    temporary files an hour old."""

    def mtime(p: Path) -> float:
        try:
            return p.stat().st_mtime
        except OSError:
            return 0.0

    entries = sorted(keep.parent.glob("ruleset-*.pickle"), key=mtime, reverse=True)
    for old in [p for p in entries if p != keep][KEEP - 1 :]:
        old.unlink(missing_ok=True)
    for tmp in keep.parent.glob(".ruleset-*.tmp"):  # left by a run killed while writing
        if 0 < mtime(tmp) < time.time() - 3600:
            tmp.unlink(missing_ok=True)
