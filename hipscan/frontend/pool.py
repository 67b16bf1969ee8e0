"""Parse files in worker processes, each file under a time and a memory limit.

libclang can crash or hang on odd input; a worker that dies or runs past the limit is killed and
replaced, its file gets an ``error:`` status, and the scan goes on with the rest. A worker's
address space is capped (``--max-memory``): a file that needs more is skipped with that reason
instead of taking the machine's memory. Workers ignore Ctrl-C; the main process stops them.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import resource
import signal
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path

from hipscan.facts import FileFacts
from hipscan.frontend.clang import ParseSetup
from hipscan.frontend.extract import relpath
from hipscan.frontend.parse import ParseJob, parse_file

ParseFn = Callable[[ParseJob, ParseSetup, frozenset, int], FileFacts]


MEMORY_EXIT = 86  # a worker that ran out of memory even to report it
OUT_OF_MEMORY = ("out of memory", "bad_alloc", "MemoryError", "Cannot allocate memory")


def _limit_memory(mib: int) -> None:
    if mib <= 0:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = mib * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (ValueError, OSError):
        pass  # a limit the system refuses is no limit, not a failed scan


def memory_message(mib: int) -> str:
    return f"skipped: needs more memory than --max-memory allows ({mib} MiB)"


def _worker(
    conn: Connection,
    setup: ParseSetup,
    watched: frozenset[str],
    max_size: int,
    parse: ParseFn,
    max_memory: int = 0,
    err_fd: int = -1,
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    if err_fd >= 0:  # libclang's own messages ("LLVM ERROR: out of memory") go to a file
        os.dup2(err_fd, 2)
    _limit_memory(max_memory)
    try:
        _serve(conn, setup, watched, max_size, parse, max_memory)
    except MemoryError:
        os._exit(MEMORY_EXIT)


def _serve(
    conn: Connection,
    setup: ParseSetup,
    watched: frozenset[str],
    max_size: int,
    parse: ParseFn,
    max_memory: int,
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
        except MemoryError:
            facts = FileFacts(path=relpath(Path(job.path), Path(job.root)), status=memory_message(max_memory))
        except Exception as exc:  # a bug must not stop the scan: report it as this file's status
            facts = FileFacts(
                path=relpath(Path(job.path), Path(job.root)),
                status=f"error: {type(exc).__name__}: {exc}",
            )
        try:
            conn.send(facts)
        except MemoryError:  # the facts themselves are too large to hand back
            facts = None
            try:
                rel = relpath(Path(job.path), Path(job.root))
                conn.send(FileFacts(path=rel, status=memory_message(max_memory)))
            except MemoryError:
                os._exit(MEMORY_EXIT)


class _Slot:
    def __init__(
        self,
        ctx,
        setup: ParseSetup,
        watched: frozenset[str],
        max_size: int,
        parse: ParseFn,
        max_memory: int = 0,
    ) -> None:
        self.conn, child = ctx.Pipe()
        self.err = tempfile.TemporaryFile()
        self.proc = ctx.Process(
            target=_worker,
            args=(child, setup, watched, max_size, parse, max_memory, self.err.fileno()),
            daemon=True,
        )
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
        self.err.close()

    def messages(self) -> str:
        """The tail of what the worker's libclang printed (read after it died)."""
        try:
            self.err.seek(0, os.SEEK_END)
            size = self.err.tell()
            self.err.seek(max(0, size - 4096))
            return self.err.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""


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
    max_memory: int = 0,
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

    def new_slot() -> _Slot:
        return _Slot(ctx, setup, watched, max_size, parse, max_memory)

    slots = [new_slot() for _ in range(max(1, min(workers, len(pending))))]
    finished = False

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
            slots[i] = new_slot()
            pending.append(job)

    try:
        while True:
            for i, slot in enumerate(slots):
                if slot.job is None and pending:
                    dispatch(i)
            busy = [s for s in slots if s.job is not None]
            if not busy:
                finished = True
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
                        said = slot.messages()
                        slot.stop(kill=True)
                        slots[i] = new_slot()
                        if max_memory > 0 and (code == MEMORY_EXIT or any(m in said for m in OUT_OF_MEMORY)):
                            status = memory_message(max_memory)
                        else:
                            status = f"error: libclang crashed on this file ({why})"
                        yield FileFacts(path=rel, status=status)
                        continue
                    slot.job = None
                    if on_result is not None:
                        on_result(result)
                    if pending:
                        dispatch(i)
                    yield result
                elif time.monotonic() - slot.started > timeout:
                    slot.stop(kill=True)
                    slots[i] = new_slot()
                    yield FileFacts(path=rel, status=f"error: parse timed out after {timeout:g} s")
    finally:  # interrupted (Ctrl-C) or abandoned: stop the workers now, not after their parse
        for slot in slots:
            slot.stop(kill=not finished)
