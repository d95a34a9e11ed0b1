"""``banditree claims``: the paper's statements about Figures 1-2 and Tables 1-2, measured on our results.

    banditree claims --figures results/figures --nogo-tables results/nogo9_tables --out docs/reproduction/claims

Reads a ``banditree figures`` folder (with ``--r-sweep`` for the readings of r) and ``banditree
tables`` folders, and writes into --out (replaced as a whole): figure_claims.csv/.md (statements
F1-F5 on the paper's seven curves), reading_claims.csv/.md (the same statements for every reading
of r), table_claims.csv/.md (T1-T2 for Go tables, T3-T4 for NoGo tables), cost.csv/.md (the
core-seconds per game of every cell of the --cost databases), and a copy of the figures' PNGs and
summary.csv.  The rules that decide "holds" are fixed in testbeds/claims.py.
"""
from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from testbeds.commands._common import check_writable

FIGURE_COPIES = ("fig1_regret.png", "fig2_optimal_action.png", "fig_r_sweep.png", "summary.csv")


def register(sub) -> None:
    p = sub.add_parser("claims", help="the paper's statements about its figures and tables, measured on our results",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--figures", default=None, metavar="DIR", help="a banditree figures results folder")
    p.add_argument("--go-tables", action="append", default=[], metavar="DIR",
                   help="a banditree tables --game go folder (repeatable)")
    p.add_argument("--nogo-tables", action="append", default=[], metavar="DIR",
                   help="a banditree tables --game nogo folder (repeatable)")
    p.add_argument("--cost", action="append", default=[], metavar="DB",
                   help="a banditree tables database: cost.csv/.md, core-seconds per game per cell (repeatable)")
    p.add_argument("--out", required=True, help="folder for the claims files, replaced as a whole")
    p.set_defaults(func=run)


def _table_rows(folder: str, flag: str):
    from testbeds.claims import read_table_csv

    path = Path(folder) / "table.csv"
    if not path.is_file():
        raise ValueError(f"{flag} {folder}: no table.csv there (write one with banditree tables --out {folder})")
    return read_table_csv(path)


def run(args) -> int:
    from testbeds import claims as C
    from testbeds.folders import check_replaceable, claim, replace_folder
    from testbeds.results import read_results

    if args.figures is None and not args.go_tables and not args.nogo_tables and not args.cost:
        raise ValueError("give at least one of --figures DIR, --go-tables DIR, --nogo-tables DIR and --cost DB")
    outputs: dict[str, list] = {}
    copies = []
    if args.figures is not None:
        try:
            result = read_results(args.figures)
        except (FileNotFoundError, ValueError) as exc:
            raise ValueError(f"--figures {args.figures}: {exc}") from None
        missing = [label for label in C.PAPER_SEVEN if label not in result.labels]
        if missing:
            raise ValueError(f"--figures {args.figures}: not a banditree figures folder (no curve {missing[0]!r})")
        outputs["figure"] = C.figure_claims(result)
        from testbeds.figures import r_sweep_curves

        if all(label in result.labels for label, *_ in r_sweep_curves()):
            outputs["reading"] = C.reading_claims(result)
        else:
            print("banditree claims: no readings of r in --figures (run banditree figures --r-sweep); "
                  "reading_claims not written")
        copies = [Path(args.figures) / name for name in FIGURE_COPIES if (Path(args.figures) / name).is_file()]
    table = []
    for flag, game, folders in (("--go-tables", "go", args.go_tables), ("--nogo-tables", "nogo", args.nogo_tables)):
        for folder in folders:
            table += C.table_claims(_table_rows(folder, flag), game, source=Path(folder).name)
    if table:
        outputs["table"] = table
    costs = []
    for db in args.cost:
        from testbeds.tables import cell_costs

        if not Path(db).is_file():
            raise ValueError(f"--cost {db}: no such database")
        costs += [dict(row, database=Path(db).name) for row in cell_costs(db)]
    check_replaceable(args.out)
    check_writable(args.out)
    with claim(args.out), replace_folder(Path(args.out)) as tmp:
        for stem, found in outputs.items():
            C.write_claims_csv(found, tmp / f"{stem}_claims.csv")
            (tmp / f"{stem}_claims.md").write_text(C.claims_markdown(found))
        for path in copies:
            shutil.copyfile(path, tmp / path.name)
        if costs:
            C.write_cost_csv(costs, tmp / "cost.csv")
            (tmp / "cost.md").write_text(C.cost_markdown(costs))
    held = sum(c.holds for found in outputs.values() for c in found)
    total = sum(len(found) for found in outputs.values())
    names = [f"{s}_claims.csv/.md" for s in outputs] + (["cost.csv/.md"] if costs else [])
    print(f"wrote {', '.join(names)} to {args.out}" + (f": {held} of {total} checks hold" if total else ""))
    return 0
