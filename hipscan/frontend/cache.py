"""A content-hash cache of per-file facts, so re-scanning an unchanged tree skips libclang.

An entry is keyed by the file's path and bytes, the parse set-up (shim, flags, mode), the
identifiers the rules watch, the project's file list (which includes count as project code),
hipscan's version and the front end's source; it stores the hash of every project file the parse
read, and is used only while all of them are unchanged. Adding or removing a source file therefore
starts afresh.

Any number of processes may share the folder: an entry's name is the hash of its whole key
(content-addressed), it is written under a unique temporary name and renamed into place (a reader
sees the old entry or the whole new one), and it is checked before use (its key, its file, the
type of what it holds); anything else is only a miss.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from hipscan import __version__
from hipscan import facts as facts_module
from hipscan.facts import FileFacts

FORMAT = 6
MAGIC = "hipscan-facts"


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _facts_shape() -> str:
    """The fields of every fact class: a new field makes older entries unusable (they would
    unpickle without it), so it is part of the key."""
    parts = [
        f"{name}:{','.join(f.name for f in dataclasses.fields(cls))}"
        for name, cls in sorted(vars(facts_module).items())
        if isinstance(cls, type) and dataclasses.is_dataclass(cls)
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


SHAPE = _facts_shape()


def _code_digest() -> str:
    """The front end's own source: a change to how facts are taken (not only to their shape)
    makes older entries wrong, and between releases the version number does not move."""
    h = hashlib.sha256()
    package = Path(facts_module.__file__).parent
    shared = [package / m for m in ("facts.py", "exprtext.py", "ppexpr.py", "platforms.py")]
    for path in sorted(Path(__file__).parent.glob("*.py")) + shared:
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(path.name.encode())
    return h.hexdigest()[:16]


CODE = _code_digest()


class FactsCache:
    def __init__(self, folder: Path, setup_digest: str) -> None:
        self.folder = folder
        self.setup_digest = setup_digest
        self._hashes: dict[str, str | None] = {}

    def file_hash(self, path: Path) -> str | None:
        key = str(path)
        if key not in self._hashes:
            try:
                self._hashes[key] = hashlib.sha1(path.read_bytes()).hexdigest()
            except OSError:
                self._hashes[key] = None
        return self._hashes[key]

    def _key(self, path: Path, args: tuple[str, ...]) -> str | None:
        digest = self.file_hash(path)
        if digest is None:
            return None
        key = "\0".join([__version__, str(FORMAT), SHAPE, CODE, self.setup_digest, str(path), digest, *args])
        return hashlib.sha256(key.encode()).hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / (key[:32] + ".pickle")

    def get(self, path: Path, root: Path, args: tuple[str, ...]) -> FileFacts | None:
        key = self._key(path, args)
        if key is None:
            return None
        entry = self._entry(key)
        try:
            with entry.open("rb") as f:
                record = pickle.load(f)
        except Exception:  # missing, damaged, half-copied or foreign: only a miss
            return None
        if not (isinstance(record, tuple) and len(record) == 4 and record[0] == MAGIC and record[1] == key):
            return None
        _, _, inputs, facts = record
        if not isinstance(facts, FileFacts) or not isinstance(inputs, dict):
            return None
        if facts.path != _rel(path, root) or facts.status.startswith(("error", "skipped")):
            return None
        for rel, digest in inputs.items():
            if self.file_hash(root / rel) != digest:
                return None
        return facts

    def put(self, path: Path, root: Path, args: tuple[str, ...], facts: FileFacts) -> None:
        if facts.status.startswith(("error", "skipped")):
            return
        key = self._key(path, args)
        if key is None:
            return
        inputs = {rel: self.file_hash(root / rel) for rel in (*facts.inputs, *facts.templates)}
        tmp = ""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".entry.", suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                pickle.dump((MAGIC, key, inputs, facts), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self._entry(key))
            tmp = ""
        except OSError:
            pass  # a cache that cannot be written only costs time
        finally:
            if tmp:
                Path(tmp).unlink(missing_ok=True)
