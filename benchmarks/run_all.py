"""Run every benchmark in one go and print the figures side by side: `python benchmarks/run_all.py`."""

from __future__ import annotations

import importlib
import sys

from _support import Figure, format_value

BENCHMARKS = ["loop_overhead", "cli_startup", "offline_planner", "catalog_search", "batch_concurrency",
              "prompt_tokens", "parser_fuzz"]


def main() -> int:
    rows: list[tuple[str, Figure]] = []
    for name in BENCHMARKS:
        print(f"running {name} …", file=sys.stderr, flush=True)
        rows += [(name, figure) for figure in importlib.import_module(name).measure()]
    width = max(len(figure.name) for _, figure in rows)
    print(f"{'figure':<{width}}  {'value':>12}  {'target':<10}  met")
    for _, figure in rows:
        met = "" if figure.met is None else ("yes" if figure.met else "NO")
        print(f"{figure.name:<{width}}  {format_value(figure):>12}  {figure.target:<10}  {met}")
        if figure.note:
            print(f"{'':<{width}}    {figure.note}")
    return 0 if all(figure.met is not False for _, figure in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
