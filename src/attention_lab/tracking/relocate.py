"""`python -m attention_lab.tracking.relocate`: point a copied or moved repository's `mlflow.db` at its
own `mlruns/`.

MLflow 3.17 stores every artifact location as an absolute URI (a relative `artifact_location` is
resolved against the working directory when the experiment is created, and each run's `artifact_uri`
is fixed when the run starts), so a copy of the repository would read, and write, the original's
artifacts. This rewrites those URIs in place: experiments, runs, logged models, model versions and
traces' artifact locations.
"""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

from attention_lab.errors import UserError, run_main

# (table, column) of every absolute artifact URI MLflow 3.17's sqlite store keeps.
COLUMNS = (("experiments", "artifact_location"), ("runs", "artifact_uri"), ("logged_models", "artifact_location"),
           ("model_versions", "source"), ("model_versions", "storage_location"), ("trace_tags", "value"))


def relocate(db: Path, root: Path) -> dict[str, str]:
    """Rewrite the artifact URIs under another `.../mlruns` in `db` to `root/mlruns`; returns
    {old location: new location}, empty when there was nothing to rewrite."""
    if not db.is_file():
        raise UserError(f"{db}: no such MLflow database")
    new = (root.resolve() / "mlruns").as_uri()
    with sqlite3.connect(db) as connection:
        try:
            locations = {row[0] for row in connection.execute("SELECT artifact_location FROM experiments")}
        except sqlite3.DatabaseError as exc:
            raise UserError(f"{db}: not an MLflow database ({exc})") from None
        olds = sorted(loc for loc in locations if loc.startswith("file:") and loc.endswith("/mlruns") and loc != new)
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for old in olds:
            for table, column in COLUMNS:
                if table in tables:
                    connection.execute(f"UPDATE {table} SET {column} = ? || substr({column}, ?) "
                                       f"WHERE {column} = ? OR substr({column}, 1, ?) = ?",
                                       (new, len(old) + 1, old, len(old) + 1, old + "/"))
    return {old: new for old in olds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository root (default: here)")
    args = parser.parse_args()
    moved = relocate(args.root / "mlflow.db", args.root)
    for old, new in moved.items():
        print(f"{args.root / 'mlflow.db'}: artifacts at {old} now read from {new}")
    if not moved:
        print(f"{args.root / 'mlflow.db'}: artifacts already at {(args.root.resolve() / 'mlruns').as_uri()}")


if __name__ == "__main__":
    run_main(main)
