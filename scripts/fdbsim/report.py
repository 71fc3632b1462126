"""fdb-sim: the report: per test file, whether each run passed and whether the plugin reproduced stock's unseed."""
import os

from . import config
from .config import BROKEN, CHECKED_MODE, CHECKED_RESOLVERS, DIFFERENCE, FAULTS, NOT_DECIDING, PLUGIN_JVM, RECHECK

# ---- The report ---------------------------------------------------------------------------------------------

REASON_KINDS = (("multi-part", "multi-part test"), ("restart test", "restart test needing an older fdbserver"),
                ("downgrade test", "downgrade test needing an older fdbserver"), ("RocksDB", "needs RocksDB"),
                ("unit test", "unit test, not a simulation"), ("IGNORE", "marked IGNORE"),
                ("LONG_RUNNING", "marked LONG_RUNNING"), ("only under if", "not in this build's test list"),
                ("not a test specification", "not a test file"), ("External workload", "needs a workload library"))
RESOLVER_ORDER = ["stock", "tree", "reference", "tree-single", "tree-capture", "tree-plugin", "tree-metrics", *FAULTS, BROKEN, RECHECK]


def classify_reason(reason):
    return next((label for key, label in REASON_KINDS if key in reason), "other")


def fmt_seconds(s):
    return "—" if s is None else (f"{s:.0f}" if s >= 10 else f"{s:.1f}")


def describe_error(e):
    """A SevError event in one line: its type, time and machine first, then its details."""
    if not e:
        return ""
    first = [k for k in ("Type", "Time", "Machine") if k in e]
    rest = [k for k in e if k not in first and k not in ("ID", "Roles", "Backtrace", "TrackLatestType")]
    return " ".join(f"{k}={e[k]}" for k in first + rest)[:300]


def verdict(row):
    if row.get("timed_out"):
        return f"timed out after {row.get('timeout_s')} s"
    if row["expect"] == "fail":
        return "failed as it must" if row["passed"] else "PASSED (a wrong resolver went unnoticed)"
    return "passed" if row["passed"] else f"FAILED (exit {row['exit']})"


def error_note(row):
    e = row.get("first_error")
    return f" [first SevError: {describe_error(e)}]" if e else ""


def analyse(tests, seeds, resolvers_of, lookup, skipped, complete=True):
    """Per runnable test: its runs, and what they show (problems are ours to explain; notes are not). A run
    without a result is a problem once the invocation is complete, and pending before."""
    analysis = []
    for t in tests:
        if t.not_runnable:
            continue
        resolvers = [BROKEN] if t.expect == "fail" else resolvers_of(t)
        a = {"test": t, "resolvers": resolvers, "runs": {}, "notes": [], "problems": [], "stock_failures": [],
             "nondeterministic": [], "planned": len(resolvers) * len(seeds), "pending": 0}
        for s in seeds:
            for r in resolvers + [RECHECK]:
                row = lookup(t, s, r)
                if row:
                    a["runs"][(s, r)] = row
        never_opened = set()
        for s in seeds:
            stock = a["runs"].get((s, "stock"))
            again = a["runs"].get((s, RECHECK))
            if stock and again and again.get("unseed") != stock.get("unseed"):
                a["nondeterministic"].append(s)
            if stock and not stock["passed"]:
                a["stock_failures"].append(s)
            for r in resolvers:
                row = a["runs"].get((s, r))
                if row is None:
                    why = skipped.get((t.name, s, r))
                    if why:
                        a["notes"].append(f"seed {s} {r}: not run, {why}")
                    elif complete:
                        a["problems"].append(f"seed {s} {r}: no result")
                    else:
                        a["pending"] += 1
                    continue
                if t.named and not row["passed"]:
                    a["problems"].append(f"seed {s} {r}: {verdict(row)}{error_note(row)}")
                if r in ("stock", RECHECK):
                    continue
                events = row.get("plugin_events", {})
                if r in FAULTS:
                    # A fault run must pass, and the hook must have seen the fault; falling back is its point.
                    if not row["passed"]:
                        why = "" if row.get("fault_seen", True) else f" (no plugin event matching {FAULTS[r].expect_event})"
                        a["problems"].append(f"seed {s} {r}: {verdict(row)}{why}{error_note(row)}")
                    seen = ", ".join(f"{k} x{v}" for k, v in sorted(events.items()) if k != "ResolverConflictSetPluginOpened")
                    began = f"{row.get('resolvers_begun', 0)} Resolvers began" + (
                        f" (stock's run: {stock.get('resolvers_begun', 0)})" if stock else "")
                    a["notes"].append(f"seed {s} {r}: {seen or 'no plugin events'}; {began}")
                    continue
                absent = {k: v for k, v in events.items() if NOT_DECIDING.search(k)}
                if absent:
                    first = row.get("plugin_first", {}).get(sorted(absent)[0])
                    a["problems"].append(f"seed {s} {r}: the plugin did not decide the whole run ("
                                         + ", ".join(f"{k} x{v}" for k, v in sorted(absent.items()))
                                         + (f": {describe_error(first)}" if first else "") + ")")
                if stock is None or t.expect == "fail":
                    continue
                opened = events.get("ResolverConflictSetPluginOpened", 0)
                if r in CHECKED_RESOLVERS and not opened:
                    never_opened.add(r)
                elif r in CHECKED_RESOLVERS and opened < row.get("resolvers_begun", 0):
                    a["notes"].append(f"seed {s} {r}: the plugin opened in {opened} of {row['resolvers_begun']} Resolvers")
                budget = {k: v for k, v in events.items() if "Budget" in k}
                if budget:
                    a["notes"].append(f"seed {s} {r}: the budget bound (" + ", ".join(f"{k} x{v}" for k, v in sorted(budget.items())) + ")")
                same = row.get("unseed") == stock.get("unseed")
                differences = {k: v for k, v in events.items() if DIFFERENCE.search(k)}
                if differences and row["passed"]:
                    # A mode that logs a difference below SevError still may not pass unnoticed.
                    a["problems"].append(f"seed {s} {r}: the skip list beside it disagreed ("
                                         + ", ".join(f"{k} x{v}" for k, v in sorted(differences.items())) + ")")
                if stock["passed"]:
                    if not row["passed"]:
                        if not t.named:
                            a["problems"].append(f"seed {s} {r}: {verdict(row)} where stock passed{error_note(row)}")
                    elif r in CHECKED_RESOLVERS and not same:
                        if s in a["nondeterministic"]:
                            a["notes"].append(f"seed {s} {r}: unseed {row.get('unseed')}, stock's {stock.get('unseed')}, "
                                              f"and stock gave {again.get('unseed')} when run again: not deterministic here")
                        else:
                            a["problems"].append(f"seed {s} {r}: unseed {row.get('unseed')}, stock's {stock.get('unseed')}"
                                                 + (f" (stock again: {again.get('unseed')})" if again else ""))
                elif r in CHECKED_RESOLVERS:
                    how = "the same (result and unseed)" if same and row["failed"] == stock["failed"] else \
                        f"{verdict(row)}, unseed {row.get('unseed')}"
                    a["notes"].append(f"seed {s}: stock {verdict(stock)}{error_note(stock)}; {r}: {how}")
        if never_opened:
            a["notes"].append(f"the plugin never opened in some {'/'.join(sorted(never_opened))} runs (no Resolver "
                              "recruited): those prove nothing about it")
        analysis.append(a)
    return analysis


def write_reports(out, command, tests, seeds, resolvers_of, lookup, skipped, invocation, variables_source):
    """OUT/report.md (totals, one row per test, stock failures, the slowest, what cannot run here), OUT/runs.md
    (every run) and OUT/results.tsv (the old script's table). Returns (report text, problems)."""
    complete = invocation.get("elapsed_s") is not None and not invocation.get("interrupted")
    analysis = analyse(tests, seeds, resolvers_of, lookup, skipped, complete)
    runnable = [t for t in tests if not t.not_runnable]
    not_runnable = [t for t in tests if t.not_runnable]
    rows = [row for a in analysis for row in a["runs"].values()]
    shown = sorted({r for a in analysis for r in a["resolvers"]}, key=RESOLVER_ORDER.index)
    checked = [r for r in shown if r in CHECKED_RESOLVERS]
    planned = sum(a["planned"] for a in analysis)
    commits = sorted({row.get("commit") or "?" for row in rows if row["resolver"] not in ("stock", RECHECK)})
    lines = ["# fdb-sim report", "", f"`{command}`", "",
             f"- fdbserver: `{invocation['fdbserver']}`; FoundationDB's test list read with {variables_source}",
             f"- checked mode: `{CHECKED_MODE}`; budgets `memory_budget={config.PLUGIN_BUDGET}`, the JVM `{PLUGIN_JVM}`"
             + (f"; the engine from checkout {', '.join(commits)}" if commits else ""),
             f"- this invocation: started {invocation['started']}, "
             + (f"{invocation['elapsed_s'] / 3600:.2f} h wall" if invocation.get("elapsed_s") is not None else "still running")
             + (", interrupted" if invocation.get("interrupted") else "")
             + (f"; all {invocation['count']} invocations into this folder: {invocation['total_s'] / 3600:.2f} h wall"
                if invocation.get("count", 1) > 1 else ""),
             "", "## Totals", "",
             f"- tests: {len(tests)}; {len(runnable)} run here, {len(not_runnable)} cannot (listed at the end)",
             f"- simulations: {sum(1 for row in rows if row['resolver'] != RECHECK)} of {planned} done"
             + (f" ({sum(a['pending'] for a in analysis)} to go)" if not complete else "") + "; "
             + ", ".join(f"{r} passed {sum(1 for x in rows if x['resolver'] == r and x['passed'])} of "
                         f"{sum(1 for x in rows if x['resolver'] == r)}" for r in shown)]
    for r in checked:
        pairs = [(a["runs"][(s, "stock")], a["runs"][(s, r)]) for a in analysis for s in seeds
                 if (s, "stock") in a["runs"] and (s, r) in a["runs"] and a["runs"][(s, "stock")]["passed"]]
        good = sum(1 for st, mine in pairs if mine["passed"] and mine.get("unseed") == st.get("unseed"))
        lines.append(f"- {r}: passed and reproduced stock's unseed in **{good} of {len(pairs)}** test × seed pairs "
                     "whose stock run passed")
    stock_failures = [(a["test"].name, s) for a in analysis for s in a["stock_failures"]]
    problems = [(a["test"].name, p) for a in analysis for p in a["problems"]]
    rechecks = [row for row in rows if row["resolver"] == RECHECK]
    lines.append(f"- stock failures (FoundationDB's own skip list failed): {len(stock_failures)} runs of "
                 f"{len({n for n, _ in stock_failures})} tests")
    if rechecks:
        lines.append(f"- stock run again where an unseed differed: {len(rechecks)}, of which "
                     f"{sum(len(a['nondeterministic']) for a in analysis)} gave another unseed (not deterministic here)")
    lines.append(f"- problems (ours failed or diverged where stock passed, or a result is missing): **{len(problems)}**")
    lines.append(f"- simulations' wall time: {sum(row['wall_s'] for row in rows) / 3600:.2f} h summed; simulated time: "
                 f"{sum(row.get('simulated_s') or 0 for row in rows) / 3600:.1f} h")
    decided = sum(row.get("resolved_transactions", 0) for row in rows if row["resolver"] in CHECKED_RESOLVERS)
    if decided:
        lines.append(f"- transactions the checked resolvers decided, the skip list beside them: at least {decided:,} "
                     "(the Resolvers' last ResolverMetrics events)")
    lines.append("")
    if problems:
        lines += ["## Problems", ""] + [f"- `{n}`: {p}" for n, p in problems] + [""]
    header = ["test", "seeds"] + [f"{r} passed" for r in shown] + (["unseeds reproduced"] if checked else []) + \
             ["wall s (max)", "simulated s (max)", "notes"]
    lines += ["## Per test", "", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for a in analysis:
        t = a["test"]
        cells = [t.name if t.named else f"`{t.name}`", str(sum(1 for s in seeds if any((s, r) in a["runs"] for r in a["resolvers"])))]
        for r in shown:
            rs = [row for (s, rr), row in a["runs"].items() if rr == r]
            cells.append(f"{sum(1 for x in rs if x['passed'])}/{len(rs)}" if rs else "—")
        if checked:
            parts = []
            for r in checked:
                pairs = [(a["runs"][(s, "stock")], a["runs"][(s, r)]) for s in seeds if (s, "stock") in a["runs"] and (s, r) in a["runs"]]
                if pairs:
                    same = sum(1 for st, mine in pairs if st.get("unseed") == mine.get("unseed"))
                    parts.append(f"{same}/{len(pairs)}" if len(checked) == 1 else f"{r} {same}/{len(pairs)}")
            cells.append(", ".join(parts) or "—")
        walls = [row["wall_s"] for row in a["runs"].values()]
        sims = [row["simulated_s"] for row in a["runs"].values() if row.get("simulated_s") is not None]
        cells += [fmt_seconds(max(walls)) if walls else "—", fmt_seconds(max(sims)) if sims else "—"]
        cells.append("; ".join(n.replace("|", "/") for n in a["problems"] + a["notes"]))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if stock_failures:
        lines += ["## Stock failures", "", "FoundationDB's own skip list failed these runs: not ours to fix, reported with "
                  "the first SevError of the trace and what the checked resolvers did at the same seed.", "",
                  "| test | seed | stock | first SevError | ours |", "| --- | --- | --- | --- | --- |"]
        for a in analysis:
            for s in a["stock_failures"]:
                st = a["runs"][(s, "stock")]
                ours = []
                for r in checked:
                    mine = a["runs"].get((s, r))
                    if mine:
                        same = mine.get("unseed") == st.get("unseed") and mine["failed"] == st["failed"]
                        ours.append(f"{r}: " + ("the same (result and unseed)" if same else f"{verdict(mine)}, unseed {mine.get('unseed')}"))
                lines.append(f"| `{a['test'].name}` | {s} | {verdict(st)}, unseed {st.get('unseed')} | "
                             f"{describe_error(st.get('first_error')).replace('|', '/') or '—'} | {'; '.join(ours) or '—'} |")
        lines.append("")
    slowest = sorted((a for a in analysis if a["runs"]), key=lambda a: -sum(row["wall_s"] for row in a["runs"].values()))[:10]
    if slowest:
        lines += ["## Slowest", "", "| test | wall s, all its runs | wall s, longest run | simulated s, longest |",
                  "| --- | --- | --- | --- |"]
        for a in slowest:
            walls = [row["wall_s"] for row in a["runs"].values()]
            sims = [row.get("simulated_s") or 0 for row in a["runs"].values()]
            lines.append(f"| `{a['test'].name}` | {sum(walls):.0f} | {max(walls):.0f} | {max(sims):.0f} |")
        lines.append("")
    if not_runnable:
        lines += ["## Not run here", "", "| test | why |", "| --- | --- |"]
        lines += [f"| `{t.name}` | {t.not_runnable.replace('|', '/')} |" for t in not_runnable]
        kinds = {}
        for t in not_runnable:
            kinds[classify_reason(t.not_runnable)] = kinds.get(classify_reason(t.not_runnable), 0) + 1
        lines += ["", "By reason: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])) + ".", ""]
    lines += ["Every run: [runs.md](runs.md). The trace logs of a test × seed whose runs all passed and agreed are "
              "deleted (--keep-logs), the others' kept under runs/.", ""]
    report = "\n".join(lines)
    write_atomically(os.path.join(out, "report.md"), report)

    def ordered(a):
        return sorted(a["runs"].items(), key=lambda kv: (kv[0][0], RESOLVER_ORDER.index(kv[0][1])))

    every = ["# fdb-sim: every run", "", f"`{command}`", "",
             "| test | seed | resolver | result | unseed | simulated s | wall s | Resolvers begun (plugin opened) | SevError events |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    tsv = []
    for a in analysis:
        for (s, r), row in ordered(a):
            opened = row.get("plugin_events", {}).get("ResolverConflictSetPluginOpened", 0)
            errors = ", ".join(f"{k} x{v}" for k, v in sorted(row.get("sev_errors", {}).items())) or "none"
            every.append(f"| {a['test'].name} | {s} | {r} | {verdict(row)} | {row.get('unseed')} | {row.get('simulated_s')} | "
                         f"{row['wall_s']} | {row.get('resolvers_begun', 0)} ({opened}) | {errors} |")
            tsv.append("\t".join(str(x) for x in (a["test"].name, s, r, verdict(row), row["exit"], row.get("unseed"),
                                                   row.get("simulated_s"), row["wall_s"],
                                                   sum(row.get("sev_errors", {}).values()), errors)))
    write_atomically(os.path.join(out, "runs.md"), "\n".join(every) + "\n")
    write_atomically(os.path.join(out, "results.tsv"), "".join(line + "\n" for line in tsv))
    return report, problems


def write_atomically(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
