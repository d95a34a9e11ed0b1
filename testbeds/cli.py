"""The ``banditree`` command line.

Each sub-command lives in its own module under :mod:`testbeds.commands`; a module provides
``register(subparsers)``, which adds its parser and sets ``func`` to the function that runs it
(``func(args) -> int`` exit status). This file only wires them together.

Errors a user can cause (bad arguments, a results database made with another configuration, ...)
are raised as ``ValueError`` (or ``FileExistsError``/``FileNotFoundError``) and printed as one line
``banditree <command>: error: ...`` with exit status 2, never as a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

#: Sub-command modules, in the order ``banditree --help`` lists them.
COMMANDS = ("testbed", "figures", "match", "gtp", "tables")


def build_parser() -> argparse.ArgumentParser:
    from testbeds import __version__

    parser = argparse.ArgumentParser(
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
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileExistsError, FileNotFoundError) as exc:
        print(f"banditree {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"banditree {args.command}: interrupted; finished work is saved.", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
