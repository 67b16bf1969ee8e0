"""Exit codes that mean what they say, for every command.

0 the command ran (and any gate passed); 1 a gate failed; 2 a usage, configuration or input
error (one line on stderr naming the file, key or option); 3 an internal error (a bug: a short
message, the traceback only with ``--debug``); 130 interrupted (Ctrl-C). A CI job must never
read a typo or a crash as "not portable".
"""

from __future__ import annotations

import os
import signal
import sys
import traceback

import click

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class UserError(Exception):
    """An input problem the user must fix; the message names the file, key or option."""


def user_errors() -> tuple[type[BaseException], ...]:
    """Exception types that are the user's input, not a bug (exit 2 with their one line)."""
    from hipscan.baseline import BaselineError
    from hipscan.config import ConfigError
    from hipscan.effort import ProfileError
    from hipscan.gate import GateError
    from hipscan.rules import RuleFileError
    from hipscan.translate import TranslateError

    return (UserError, ConfigError, RuleFileError, GateError, BaselineError, ProfileError, TranslateError)


def one_line(text: object) -> str:
    """The first line of a message, control characters escaped."""
    from hipscan.textsafe import escape_controls

    return escape_controls(str(text).strip().splitlines()[0] if str(text).strip() else str(text))


def _debug(ctx: click.Context) -> bool:
    root = ctx.find_root()
    return bool((root.obj or {}).get("debug")) or os.environ.get("HIPSCAN_DEBUG", "") not in ("", "0")


def _quiet_stdout() -> None:
    """A reader that went away (``hipscan rules | head``): no more output, no second error at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class GuardedGroup(click.Group):
    """A click group whose commands end with the exit codes above whatever goes wrong."""

    def invoke(self, ctx: click.Context):
        previous = _on_terminate()
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, SystemExit):
            raise
        except click.ClickException as exc:  # a bad option or argument: one line, not the usage text
            where = exc.ctx.command_path if getattr(exc, "ctx", None) is not None else "hipscan"
            click.echo(f"{where}: error: {one_line(exc.format_message())}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt:
            click.echo("hipscan: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            _quiet_stdout()
            sys.exit(EXIT_OK)
        except user_errors() as exc:
            click.echo(f"hipscan: error: {one_line(exc)}", err=True)
            sys.exit(EXIT_USAGE)
        except OSError as exc:  # a file the user named cannot be read or written
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(f"hipscan: error: {one_line(where + (exc.strerror or str(exc)))}", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as exc:  # noqa: BLE001 - a bug: say so briefly, never as a gate verdict
            if _debug(ctx):
                traceback.print_exc()
            from hipscan import __version__

            click.echo(
                f"hipscan: internal error: {type(exc).__name__}: {one_line(exc)} (a bug in hipscan "
                f"{__version__}; please report it on the hipscan issue tracker with the command line"
                + ("" if _debug(ctx) else " and the traceback 'hipscan --debug ...' prints")
                + ")",
                err=True,
            )
            sys.exit(EXIT_INTERNAL)
        finally:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _on_terminate():
    """A CI runner cancelling a job sends SIGTERM: stop like Ctrl-C (workers stopped, no partial
    file, exit 130). Returns the previous handler (None outside the main thread)."""
    try:
        return signal.signal(signal.SIGTERM, _interrupt)
    except ValueError:  # not the main thread: leave signals alone
        return None
