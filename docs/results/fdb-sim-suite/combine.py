#!/usr/bin/env python3
"""Joins the suite's two records into one table per test file, for seeds 1 to 3.

Seeds 1 and 2 ran on an earlier machine; only fdb-sim's report of them survives
(../fdb-sim-suite-2026-12-02-seeds-1-2.md: one row per test, counts and maxima). Seed 2's remaining tests/slow
files and all of seed 3 ran later, and every run of those is in results.jsonl beside this script.

fdb-sim runs every test at seed 1 before any at seed 2, so a report row with n runs of a resolver holds its seeds
1 to n. A later run of a seed the report already holds is counted once, from the report (tests/slow/GcGenerations.toml,
stock, seed 2, run again when its seed resumed); a test × seed whose stock and tree runs are both in the report and
were run again later is listed apart.

Usage: python3 docs/results/fdb-sim-suite/combine.py > table.md  (prints the totals and the per-test table).
"""
import importlib.machinery
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EARLIER = os.path.join(HERE, "..", "fdb-sim-suite-2026-12-02-seeds-1-2.md")
RESULTS = os.path.join(HERE, "results.jsonl")
FDB_SIM = os.path.join(HERE, "..", "..", "..", "scripts", "fdb-sim")


def load_fdb_sim():
    """scripts/fdb-sim as a module: its reader of results files and its number format."""
    loader = importlib.machinery.SourceFileLoader("fdb_sim", FDB_SIM)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("fdb_sim", loader))
    loader.exec_module(module)
    return module


def fraction(cell):
    good, total = cell.split("/")
    return int(good), int(total)


def earlier_rows():
    """test -> counts from the seeds 1-2 report's per-test table."""
    rows, inside = {}, False
    for line in open(EARLIER, encoding="utf-8"):
        if line.startswith("## "):
            inside = line.startswith("## Per test")
            continue
        m = re.match(r"\| `(tests/[^`]+)` \| (\d+) \| (\d+/\d+) \| (\d+/\d+) \| (\d+/\d+) \| ([\d.—]+) \| ([\d.—]+) \|", line)
        if inside and m:
            test, seeds, stock, tree, same, wall, sim = m.groups()
            rows[test] = {"seeds": int(seeds), "stock": fraction(stock), "tree": fraction(tree), "same": fraction(same),
                          "wall_max": None if wall == "—" else float(wall), "sim_max": None if sim == "—" else float(sim)}
    return rows


def main():
    fdb_sim = load_fdb_sim()
    earlier, runs = earlier_rows(), fdb_sim.Results(RESULTS).latest
    tests = sorted(set(earlier) | {t for t, _, _ in runs})
    table, totals = [], {"runs": 0, "stock": [0, 0], "tree": [0, 0], "pairs": [0, 0], "failed_pairs": 0}
    later_wall = later_sim = later_txns = 0.0
    problems, reruns = [], []
    for test in tests:
        e = earlier.get(test, {"seeds": 0, "stock": (0, 0), "tree": (0, 0), "same": (0, 0), "wall_max": None,
                               "sim_max": None})
        stock, tree, same = list(e["stock"]), list(e["tree"]), list(e["same"])
        walls = [e["wall_max"]] if e["wall_max"] is not None else []
        sims = [e["sim_max"]] if e["sim_max"] is not None else []
        seeds = set(range(1, e["seeds"] + 1))
        for seed in sorted({s for t, s, _ in runs if t == test}):
            st, mine = runs.get((test, seed, "stock")), runs.get((test, seed, "tree"))
            in_report = {"stock": seed <= e["stock"][1], "tree": seed <= e["tree"][1]}
            if in_report["stock"] and in_report["tree"]:
                if st and mine:
                    reruns.append(f"{test} seed {seed}: stock {'passed' if st['passed'] else 'failed'} unseed "
                                  f"{st.get('unseed')}, tree {'passed' if mine['passed'] else 'failed'} unseed "
                                  f"{mine.get('unseed')} (bridge {mine.get('bridge')})")
                continue
            for row, tally in ((st, stock), (mine, tree)):
                if row is None or in_report[row["resolver"]]:
                    continue
                tally[0] += row["passed"]
                tally[1] += 1
                totals["runs"] += 1
                walls.append(row["wall_s"])
                if row.get("simulated_s") is not None:
                    sims.append(row["simulated_s"])
                later_wall += row["wall_s"]
                later_sim += row.get("simulated_s") or 0
                if row["resolver"] == "tree":
                    later_txns += row.get("resolved_transactions", 0)
            if st and mine:
                seeds.add(seed)
                same[1] += 1
                same[0] += st.get("unseed") == mine.get("unseed")
                if st["passed"]:
                    totals["pairs"][1] += 1
                    ok = mine["passed"] and mine.get("unseed") == st.get("unseed")
                    totals["pairs"][0] += ok
                    if not ok:
                        problems.append(f"{test} seed {seed}: tree unseed {mine.get('unseed')}, stock {st.get('unseed')}")
                else:
                    totals["failed_pairs"] += 1
        table.append((test, len(seeds), stock, tree, same, max(walls) if walls else None, max(sims) if sims else None))
        for key, tally in (("stock", stock), ("tree", tree)):
            totals[key][0] += tally[0]
            totals[key][1] += tally[1]
    earlier_runs = sum(r["stock"][1] + r["tree"][1] for r in earlier.values())
    print(f"- simulations: {earlier_runs + totals['runs']} ({earlier_runs} in the seeds 1-2 report, "
          f"{totals['runs']} in results.jsonl); stock passed {totals['stock'][0]} of {totals['stock'][1]}, "
          f"tree passed {totals['tree'][0]} of {totals['tree'][1]}")
    print(f"- results.jsonl alone: tree passed and reproduced stock's unseed in {totals['pairs'][0]} of "
          f"{totals['pairs'][1]} stock-passing pairs; {totals['failed_pairs']} pairs where stock failed; "
          f"{later_wall / 3600:.2f} h wall summed, {later_sim / 3600:.1f} h simulated, "
          f"at least {int(later_txns):,} transactions decided by tree with the skip list beside it")
    for p in problems:
        print(f"- differs: {p}")
    for r in reruns:
        print(f"- run again (not counted above): {r}")
    print()
    print("| test | seeds | stock passed | tree passed | unseeds reproduced | wall s (longest run) | simulated s (longest) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for test, n, stock, tree, same, wall, sim in table:
        print(f"| `{test}` | {n} | {stock[0]}/{stock[1]} | {tree[0]}/{tree[1]} | {same[0]}/{same[1]} | "
              f"{fdb_sim.fmt_seconds(wall)} | {fdb_sim.fmt_seconds(sim)} |")
    print()
    print("Slowest, by their longest run at any seed:")
    print()
    print("| test | wall s, longest run | simulated s, longest |")
    print("| --- | --- | --- |")
    for test, _, _, _, _, wall, sim in sorted(table, key=lambda r: -(r[5] or 0))[:15]:
        print(f"| `{test}` | {wall:.0f} | {sim or 0:.0f} |")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
