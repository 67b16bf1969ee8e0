"""List where a code base's ROCm view differs from its CUDA original: the port's edits, to label.

    python3 benchmarks/ports/hunks.py CUDA_DIR HIP_DIR [--name deepspeed] [--check]

CUDA_DIR and HIP_DIR are prepare.py's output for --view cuda and --view hip. For arms, both keep
every line at its upstream number, so a hunk is a run of lines whose text differs: `-` lines the CUDA
original compiles and the ROCm build does not (what the port replaced or removed), `+` lines
only the ROCm build compiles (what it put there). Directive lines are left out unless both
views keep them with different text (a condition the port extended). A port kept in a separate
file (codebases.toml `pairs`) is compared token by token, hipify's renames and formatting
ignored, and reported on the CUDA file's lines. Build files (CMakeLists.txt, *.cmake, setup.py,
Makefiles) are compared line by line with indentation kept (a line moved under a new `else:` is
changed; CUDA -> HIP renames are what a build-file port is made of, so none is ignored), and a
pure insertion is reported on the CUDA line it follows. With --check,
the labels in <name>.csv are checked against the hunks: an `edit` should overlap a hunk's `-`
lines (or sit next to a pure insertion) and a `left-alone` should not.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from prepare import SOURCE_SUFFIXES  # noqa: E402


@dataclass
class Hunk:
    """A run of differing lines in one file (line numbers 1-based, upstream numbering)."""

    path: str
    cuda: list[tuple[int, str]]
    hip: list[tuple[int, str]]
    at: int = 0  # a pure insertion into a build file: the CUDA line it follows

    @property
    def first(self) -> int:
        lines = [n for n, _ in self.cuda] or ([self.at] if self.at else [n for n, _ in self.hip])
        return min(lines)

    @property
    def last(self) -> int:
        lines = [n for n, _ in self.cuda] or ([self.at] if self.at else [n for n, _ in self.hip])
        return max(lines)


def _code(line: str) -> str:
    """The line's text, or "" for a conditional directive (#if/#else/#endif...)."""
    text = line.strip()
    if not text.startswith("#"):
        return text
    word = text[1:].lstrip().split(" ", 1)[0].split("(", 1)[0]
    return text if word in ("include", "define", "pragma", "error", "undef") else ""


def file_hunks(rel: str, cuda_text: str, hip_text: str, gap: int = 2) -> list[Hunk]:
    """Hunks of one file; runs closer than `gap` unchanged lines are merged."""
    a = cuda_text.splitlines()
    b = hip_text.splitlines()
    n = max(len(a), len(b))
    a += [""] * (n - len(a))
    b += [""] * (n - len(b))
    hunks: list[Hunk] = []
    cur: Hunk | None = None
    last_diff = -10
    for i in range(n):
        ca, cb = _code(a[i]), _code(b[i])
        if a[i].strip() == b[i].strip():
            continue
        if not ca and not cb:
            if not (a[i].strip() and b[i].strip()):
                continue
            ca, cb = a[i].strip(), b[i].strip()  # a condition the port rewrote
        if cur is None or i - last_diff > gap:
            cur = Hunk(rel, [], [])
            hunks.append(cur)
        if ca:
            cur.cuda.append((i + 1, a[i].rstrip()))
        if cb:
            cur.hip.append((i + 1, b[i].rstrip()))
        last_diff = i
    return [h for h in hunks if h.cuda or h.hip]


TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|[A-Za-z_]\w*|\d[\w.]*|\S",
    re.S,
)
# What hipify does by itself, so that the token comparison shows only what a person changed.
RENAMES = (
    ("cuda", "hip"),
    ("CUDA", "HIP"),
    ("Cuda", "Hip"),
    ("cublas", "hipblas"),
    ("CUBLAS", "HIPBLAS"),
    ("curand", "hiprand"),
    ("__nv_bfloat16", "hip_bfloat16"),
)


def _tokens(text: str, extra: tuple[tuple[str, str], ...] = ()) -> list[tuple[str, int]]:
    """(token, line) pairs without comments, with hipify's renames (and a code base's own
    naming, e.g. Kokkos' Cuda -> HIP) applied."""
    out = []
    for m in TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith(("//", "/*")):
            continue
        for a, b in (*extra, *RENAMES):
            tok = tok.replace(a, b)
        if tok == "cub":
            tok = "hipcub"
        out.append((tok, text.count("\n", 0, m.start()) + 1))
    return out


def pair_hunks(
    rel: str, cuda_text: str, hip_text: str, renames: tuple[tuple[str, str], ...] = ()
) -> list[Hunk]:
    """Hunks of a file ported as a separate file: a token comparison (formatting and hipify's
    renames ignored), reported on the CUDA file's lines."""
    a, b = _tokens(cuda_text, renames), _tokens(hip_text, renames)
    a_lines, b_lines = cuda_text.splitlines(), hip_text.splitlines()
    matcher = difflib.SequenceMatcher(None, [t for t, _ in a], [t for t, _ in b], autojunk=False)
    hunks: list[Hunk] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i1 < i2:
            lines = range(a[i1][1], a[i2 - 1][1] + 1)
        else:  # an insertion: the CUDA line it follows
            at = a[i1 - 1][1] if i1 else 1
            lines = range(at, at + 1)
        hip_range = range(b[j1][1], b[j2 - 1][1] + 1) if j1 < j2 else range(0)
        cuda = [(n, a_lines[n - 1]) for n in lines if n <= len(a_lines)]
        hip = [(n, b_lines[n - 1]) for n in hip_range if n <= len(b_lines)]
        if hunks and cuda and hunks[-1].cuda and cuda[0][0] <= hunks[-1].last + 1:
            seen = {n for n, _ in hunks[-1].cuda}
            hunks[-1].cuda.extend(x for x in cuda if x[0] not in seen)
            hunks[-1].hip.extend(hip)
        else:
            hunks.append(Hunk(rel, cuda, hip))
    return hunks


def is_build_file(name: str) -> bool:
    """The build files hipscan reads (CMake, setup.py, Makefiles), by name."""
    return (
        name in ("CMakeLists.txt", "setup.py")
        or name.startswith("Makefile")
        or name.endswith((".cmake", ".mk"))
    )


def build_hunks(rel: str, cuda_text: str, hip_text: str, indent: bool = True) -> list[Hunk]:
    """Hunks of a build file between the commit before the port and the port: a line diff
    (trailing blanks ignored; leading ones too with indent=False, for a port written as a
    separate file, whose nesting differs), removed or changed lines on the CUDA file's
    numbering, an insertion on the CUDA line it follows."""
    a = [line.rstrip() if indent else line.strip() for line in cuda_text.splitlines()]
    b = [line.rstrip() if indent else line.strip() for line in hip_text.splitlines()]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    hunks: list[Hunk] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        hip = [(n, b[n - 1]) for n in range(j1 + 1, j2 + 1)]
        if i1 == i2:  # a pure insertion: placed on the CUDA line it follows
            hunks.append(Hunk(rel, [], hip, at=max(i1, 1)))
        else:
            hunks.append(Hunk(rel, [(n, a[n - 1]) for n in range(i1 + 1, i2 + 1)], hip))
    return hunks


def all_hunks(
    cuda_dir: Path, hip_dir: Path, renames: tuple[tuple[str, str], ...] = (), separate: bool = False
) -> list[Hunk]:
    out = []
    for path in sorted(cuda_dir.rglob("*")):
        build = path.is_file() and is_build_file(path.name)
        if not path.is_file() or not (build or path.name.endswith(SOURCE_SUFFIXES)):
            continue
        rel = path.relative_to(cuda_dir).as_posix()
        other = hip_dir / rel
        if build:
            hip_text = other.read_text(errors="replace") if other.exists() else ""
            out.extend(build_hunks(rel, path.read_text(errors="replace"), hip_text, indent=not separate))
            continue
        if not other.exists():  # a file the ROCm build does not compile at all (hip_drop)
            lines = path.read_text(errors="replace").splitlines()
            kept = [(n, t) for n, t in enumerate(lines, 1) if _code(t)]
            if kept:
                out.append(Hunk(rel, kept, []))
            continue
        cuda_text, hip_text = path.read_text(errors="replace"), other.read_text(errors="replace")
        if cuda_text.count("\n") == hip_text.count("\n"):
            out.extend(file_hunks(rel, cuda_text, hip_text))
        else:  # not two views of one file: a port written as a separate file
            out.extend(pair_hunks(rel, cuda_text, hip_text, renames))
    return out


def _settled_in_hip(cuda_text: list[str], hip_text: list[str], line: int, end: int) -> bool:
    """A condition the CUDA view keeps and the ROCm view settled away: the port put its arm in it.

    `#if __CUDA_ARCH__ >= 700 || defined(__HIP_PLATFORM_AMD__)` reads `... || 0` in the CUDA view
    and is gone from the ROCm view (true there), while the lines it guards are the same in both,
    so no hunk shows the edit."""
    for n in range(line, end + 1):
        if n > len(cuda_text) or n > len(hip_text):
            break
        if re.match(r"\s*#\s*(el)?if", cuda_text[n - 1]) and not hip_text[n - 1].strip():
            return True
    return False


def check(
    hunks: list[Hunk], labels: list[dict], cuda_dir: Path, arm: str, hip_dir: Path | None = None
) -> list[str]:
    """Labels that disagree with the diff (an edit with no hunk near, a left-alone inside one).

    An edit on a line that names the arm's macro is accepted: unifdef leaves a condition it
    cannot decide (`defined(ARM) && HIP_VERSION >= 502`) in both views. So is an edit on a
    condition the ROCm view settled (`_settled_in_hip`)."""
    by_path: dict[str, list[Hunk]] = {}
    for h in hunks:
        by_path.setdefault(h.path, []).append(h)
    problems = []
    for lab in labels:
        line, end = int(lab["line"]), int(lab.get("end_line") or lab["line"])
        near = [h for h in by_path.get(lab["path"], []) if h.first - 2 <= end and line <= h.last + 2]
        text = (cuda_dir / lab["path"]).read_text(errors="replace").splitlines() if arm else []
        names_arm = any(arm in t for t in text[line - 1 : end])
        if lab["kind"] == "edit" and not near and not names_arm and arm and hip_dir:
            hip_file = hip_dir / lab["path"]
            hip_text = hip_file.read_text(errors="replace").splitlines() if hip_file.exists() else []
            names_arm = _settled_in_hip(text, hip_text, line, end)
        if lab["kind"] == "edit" and not near and not names_arm:
            problems.append(f"{lab['path']}:{line}: edit label but the port changed nothing there")
        changed = {n for h in by_path.get(lab["path"], []) for n, _ in h.cuda}
        if lab["kind"] == "left-alone" and changed & set(range(line, end + 1)):
            problems.append(f"{lab['path']}:{line}: left-alone label on a line the port changed")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cuda_dir", type=Path)
    ap.add_argument("hip_dir", type=Path)
    ap.add_argument("--name", help="code base name (labels file for --check)")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--path", help="only files under this path")
    args = ap.parse_args()
    from prepare import load_codebases

    name = args.name or args.cuda_dir.name
    cb = next((c for c in load_codebases() if c.name == name), None)
    hunks = all_hunks(args.cuda_dir, args.hip_dir, cb.renames if cb else (), bool(cb and cb.pairs))
    if args.path:
        hunks = [h for h in hunks if h.path.startswith(args.path)]
    if args.check:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from accuracy import load_labels

        arm = cb.arm if cb else ""
        label_file = Path(__file__).resolve().parent / f"{name}.csv"
        if not label_file.exists():
            print(f"{label_file}: no such label file", file=sys.stderr)
            return 2
        problems = check(hunks, load_labels(label_file), args.cuda_dir, arm, args.hip_dir)
        print("\n".join(problems) or "labels agree with the diff")
        return 1 if problems else 0
    for h in hunks:
        print(f"== {h.path}:{h.first}-{h.last}" + (" (inserted after)" if h.at else ""))
        for n, text in h.cuda:
            print(f"-{n:>6}: {text}")
        for n, text in h.hip:
            print(f"+{n:>6}: {text}")
    print(f"{len(hunks)} hunks", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
