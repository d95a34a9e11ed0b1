"""The ``banditree`` command line.

Each sub-command lives in its own module under :mod:`testbeds.commands`; a module provides
``register(subparsers)``, which adds its parser and sets ``func`` to the function that runs it
(``func(args) -> int`` exit status). This file only wires them together.

Every sub-command takes ``--plugin FILE.py`` (repeatable): a file of policy registrations, loaded
before the command runs, so its policies work in ``--policy``, ``--a``/``--b``, ``--mi``/``--uct``
and ``--player`` specs (:func:`bandits.load_plugin`; worker processes load it again by its path).

Errors a user can cause (bad arguments, a results database made with another configuration, ...)
are raised as ``ValueError`` (or ``FileExistsError``/``FileNotFoundError``) and printed as one line
``banditree <command>: error: ...`` with exit status 2, never as a traceback; an option the
command does not have is named with the command's own ``--help`` and the closest option it does
have (``banditree testbed: error: unrecognized arguments: --policies ucb1; did you mean --policy?
(banditree testbed --help lists the options)``).  A file that cannot be read or written (a full
disk, a read-only folder: any other ``OSError``) is one line too, with exit status 1 and, for a
command that saves as it goes, what is saved.  Ctrl-C stops any command with exit status 130 and
one line saying what is saved (a command's ``interrupted(args)``, set with ``set_defaults``).
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import re
import sys

#: Sub-command modules, in the order ``banditree --help`` lists them.
COMMANDS = ("testbed", "figures", "match", "gtp", "tables", "plot", "sweep", "analyze", "tune", "claims")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors instead of a usage block first: a value out of its range reads
    ``banditree testbed: error: --tasks must be an integer in 1..10000000, got 10**30``
    (the ranges are those of :mod:`testbeds.commands._common`, shown in --help), an option the
    command does not have ``banditree testbed: error: unrecognized arguments: --policies ucb1; did
    you mean --policy? (banditree testbed --help lists the options)`` (named by the sub-command's
    parser, also when it hides behind a missing required argument), any other
    ``banditree tables: error: the following arguments are required: --game (banditree tables
    --help lists the options)``."""

    def parse_known_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)  # (for error: the options given)
        return super().parse_known_args(args, namespace)

    def parse_args(self, args=None, namespace=None):
        args, extras = self.parse_known_args(args, namespace)
        if extras:  # an option of no parser: the chosen sub-command's error, which names its own help
            command = self._commands().get(getattr(args, "command", None) or "", self)
            command.error(f"unrecognized arguments: {' '.join(extras)}")
        return args

    def _commands(self) -> dict:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices
        return {}

    def error(self, message):
        ranged = re.match(r"argument (-[-\w]+): (must be .*)", message)
        if ranged:
            line = f"{ranged.group(1)} {ranged.group(2)}"
        else:
            unknown = self._unknown_options()
            if unknown and message.startswith("the following arguments are required"):
                message = f"unrecognized arguments: {' '.join(unknown)}"  # a misspelt required option, often
            close = [hint for word in unknown for hint in self._closest(word)] \
                if message.startswith("unrecognized arguments") else []
            hint = f"; did you mean {' or '.join(dict.fromkeys(close))}?" if close else ""
            line = f"{message}{hint} ({self.prog} --help lists the options)"
        self.exit(2, f"{self.prog}: error: {line}\n")

    def _options(self) -> list[str]:
        return [s for action in self._actions for s in action.option_strings]

    def _unknown_options(self) -> list[str]:
        """The words given to this parser that look like options (``-x``, ``--name[=value]``, not a
        negative number) and are no option of it, nor an abbreviation of exactly one."""
        known = self._options()
        out = []
        for word in getattr(self, "_given", []):
            if word == "--":
                break
            if not word.startswith("-") or word == "-" or re.fullmatch(r"-[\d.][\d.,e+-]*", word):
                continue
            name = word.split("=", 1)[0]
            if name in known or (name.startswith("--") and len([k for k in known if k.startswith(name)]) == 1):
                continue
            out.append(word)
        return out

    def _closest(self, word: str) -> list[str]:
        """The long option whose name (without its dashes) is closest to ``word``'s, if one is close."""
        names = {k.lstrip("-"): k for k in self._options() if k.startswith("--")}
        close = difflib.get_close_matches(word.split("=", 1)[0].lstrip("-"), list(names), n=1, cutoff=0.6)
        return [names[c] for c in close]


def build_parser() -> argparse.ArgumentParser:
    from testbeds import __version__

    parser = _Parser(
        prog="banditree",
        description="Bandit testbeds, MCTS with any bandit node policy, and the Liu & Tsuruoka (2015) reproductions.",
    )
    parser.add_argument("--version", action="version", version=f"banditree {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module_name = f"testbeds.commands.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a command not built yet in this checkout
            if exc.name != module_name:
                raise
            continue
        module.register(sub)
    for command in sub.choices.values():
        command.add_argument("--plugin", action="append", default=[], metavar="FILE.py",
                             help="a Python file that registers policies (bandits.index_policy, "
                                  "bandits.stateful_policy, bandits.register_policy) or games; repeatable. "
                                  "Its names then work in every spec (docs/plugins.md)")
    return parser


def load_plugins(paths) -> None:
    """Import each plugin file (bandits.load_plugin); ValueError naming --plugin when one fails."""
    from bandits.registry import load_plugin

    for path in paths:
        try:
            load_plugin(path)
        except ValueError as exc:
            raise ValueError(f"--plugin: {exc}") from None
        except Exception as exc:  # the plugin's own code failed: say where, in one line
            raise ValueError(f"--plugin {path}: the file raised {type(exc).__name__}: {exc}") from None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a bad argument (one line printed): the status, like any other error
        if stop.code == 2:
            return 2
        raise  # --help, --version
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    from bandits.compiling import interrupts_delivered

    try:
        with interrupts_delivered():  # a Ctrl-C always stops the run, even one inside numba's compiler
            load_plugins(getattr(args, "plugin", []))
            return int(args.func(args) or 0)
    except (ValueError, FileExistsError, FileNotFoundError) as exc:
        print(f"banditree {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a full disk, a read-only folder, ...: one line, and what is saved
        reason = (exc.strerror or str(exc)) + (f": {exc.filename}" if exc.filename else "")
        saved = f"; {interrupted(args)}" if getattr(args, "interrupted", None) is not None else ""
        print(f"banditree {args.command}: error: {reason}{saved}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"banditree {args.command}: interrupted; {interrupted(args)}", file=sys.stderr)
        return 130
    except RuntimeError as exc:  # an outside program failed (e.g. GNU Go died): one line, and what is saved
        if not getattr(exc, "one_line", False):
            raise
        print(f"banditree {args.command}: error: {exc}; {interrupted(args)}", file=sys.stderr)
        return 1


def interrupted(args) -> str:
    """What an interrupted command has saved, in words (each command's ``interrupted(args)``)."""
    say = getattr(args, "interrupted", None)
    try:
        return say(args) if say is not None else "nothing is saved"
    except Exception:  # pragma: no cover - the message must not fail; say the least
        return "stopped"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
