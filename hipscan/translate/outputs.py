"""Writing the mirrored tree safely: never into the scanned tree, atomically, and only over files
this tool wrote itself (a manifest in the output directory records them and their hashes)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = ".hipscan-manifest.json"


class TranslateError(Exception):
    """A problem the user must fix (bad output directory, unreadable manifest)."""


def _inside(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def check_outdir(root: Path, outdir: Path) -> None:
    """Refuse an output directory inside (or equal to) the scanned tree."""
    root_r, out_r = root.resolve(), outdir.resolve()
    if _inside(out_r, root_r):
        raise TranslateError(
            f"output directory {outdir} is inside the scanned tree {root}; "
            "hipscan never writes into the sources it reads: choose a directory outside it"
        )
    if out_r.exists() and not out_r.is_dir():
        raise TranslateError(f"output path {outdir} exists and is not a directory")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a temporary file beside ``path``, then rename over it: readers never see half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(slots=True)
class Manifest:
    """Output files this tool wrote, with the hash of what it wrote (relative posix paths)."""

    outdir: Path
    files: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def load(cls, outdir: Path) -> Manifest:
        path = outdir / MANIFEST
        if not path.is_file():
            return cls(outdir)
        try:
            doc = json.loads(path.read_text("utf-8"))
            files = dict(doc["files"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise TranslateError(f"unreadable manifest {path}: {exc}") from exc
        return cls(outdir, files)

    def save(self, root: Path) -> None:
        doc = {
            "tool": "hipscan",
            "schema": 1,
            "root": str(root.resolve()),
            "files": dict(sorted(self.files.items())),
        }
        atomic_write(self.outdir / MANIFEST, (json.dumps(doc, indent=2) + "\n").encode("utf-8"))


def write_output(manifest: Manifest, rel: str, source: str, data: bytes, force: bool) -> str:
    """Write one output file; returns its status (written | unchanged | skipped: why)."""
    path = manifest.outdir / rel
    entry = manifest.files.get(rel)
    if path.is_symlink():
        return "skipped: the output path is a symbolic link"
    if path.exists():
        current = path.read_bytes()
        if entry is None:
            return f"skipped: {rel} exists in the output directory and was not written by hipscan"
        if sha256(current) != entry.get("sha256") and not force:
            return f"skipped: {rel} was edited after hipscan wrote it (use --force to replace it)"
        if current == data:
            manifest.files[rel] = {"sha256": sha256(data), "source": source}
            return "unchanged"
    atomic_write(path, data)
    manifest.files[rel] = {"sha256": sha256(data), "source": source}
    return "written"
