"""Parse files in worker processes, each file under a time limit.

libclang can crash or hang on odd input; a worker that dies or runs past the limit is killed and
replaced, its file gets an ``error:`` status, and the scan goes on with the rest.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path

from hipscan.facts import FileFacts
from hipscan.frontend.clang import ParseSetup
from hipscan.frontend.extract import relpath
from hipscan.frontend.parse import ParseJob, parse_file

ParseFn = Callable[[ParseJob, ParseSetup, frozenset, int], FileFacts]


def _worker(
    conn: Connection, setup: ParseSetup, watched: frozenset[str], max_size: int, parse: ParseFn
) -> None:
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        try:
            facts = parse(job, setup, watched, max_size)
        except Exception as exc:  # a bug must not stop the scan: report it as this file's status
            facts = FileFacts(
                path=relpath(Path(job.path), Path(job.root)),
                status=f"error: {type(exc).__name__}: {exc}",
            )
        conn.send(facts)


class _Slot:
    def __init__(
        self, ctx, setup: ParseSetup, watched: frozenset[str], max_size: int, parse: ParseFn
    ) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, setup, watched, max_size, parse), daemon=True)
        self.proc.start()
        child.close()
        self.job: ParseJob | None = None
        self.started = 0.0

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def run_jobs(
    jobs: Iterable[ParseJob],
    setup: ParseSetup,
    watched: frozenset[str],
    max_size: int,
    workers: int,
    timeout: float,
    before_dispatch: Callable[[ParseJob], ParseJob] | None = None,
    parse: ParseFn = parse_file,
    on_result: Callable[[FileFacts], None] | None = None,
) -> Iterator[FileFacts]:
    """Yield FileFacts as files finish (completion order).

    ``on_result`` sees each result before the worker that produced it gets its next file, so
    what the next parse may skip is up to date; the caller's own work on a result (rules,
    reports) then overlaps with the workers' parsing instead of holding a worker idle."""
    pending = list(jobs)
    pending.reverse()
    if not pending:
        return
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    slots = [_Slot(ctx, setup, watched, max_size, parse) for _ in range(max(1, min(workers, len(pending))))]

    def dispatch(i: int) -> None:
        """Hand the next pending file to slot ``i`` (a slot whose pipe broke is replaced)."""
        job = pending.pop()
        if before_dispatch:
            job = before_dispatch(job)
        slot = slots[i]
        slot.job, slot.started = job, time.monotonic()
        try:
            slot.conn.send(job)
        except (BrokenPipeError, OSError):
            slots[i] = _Slot(ctx, setup, watched, max_size, parse)
            pending.append(job)

    try:
        while True:
            for i, slot in enumerate(slots):
                if slot.job is None and pending:
                    dispatch(i)
            busy = [s for s in slots if s.job is not None]
            if not busy:
                return
            now = time.monotonic()
            wait_for = max(0.05, min(s.started + timeout - now for s in busy))
            ready = wait([s.conn for s in busy], timeout=wait_for)
            for i, slot in enumerate(slots):
                if slot.job is None:
                    continue
                rel = relpath(Path(slot.job.path), Path(slot.job.root))
                if slot.conn in ready:
                    try:
                        result = slot.conn.recv()
                    except (EOFError, OSError):
                        code = slot.proc.exitcode
                        slot.proc.join(timeout=1)
                        code = slot.proc.exitcode if code is None else code
                        why = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                        slot.stop(kill=True)
                        slots[i] = _Slot(ctx, setup, watched, max_size, parse)
                        yield FileFacts(path=rel, status=f"error: libclang crashed on this file ({why})")
                        continue
                    slot.job = None
                    if on_result is not None:
                        on_result(result)
                    if pending:
                        dispatch(i)
                    yield result
                elif time.monotonic() - slot.started > timeout:
                    slot.stop(kill=True)
                    slots[i] = _Slot(ctx, setup, watched, max_size, parse)
                    yield FileFacts(path=rel, status=f"error: parse timed out after {timeout:g} s")
    finally:
        for slot in slots:
            slot.stop()
