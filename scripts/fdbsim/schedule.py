"""fdb-sim: the schedule: stock first for each (test, seed), then the others, on --jobs workers."""
import os
import shutil
import threading

from .config import BROKEN, CHECKED_RESOLVERS, RECHECK, say
from .simulation import Run

# ---- The schedule: stock first for each (test, seed), then the others ---------------------------------------

class Unit:
    """One test at one seed: its stock run, then every other resolver's, then (when a checked resolver's unseed
    differed from stock's) stock once more."""

    def __init__(self, test, seed, resolvers):
        self.test, self.seed = test, seed
        self.resolvers = [BROKEN] if test.expect == "fail" else list(resolvers)
        self.first = "stock" if "stock" in self.resolvers else None


def needs_recheck(unit, lookup):
    stock = lookup(unit.test, unit.seed, "stock")
    if stock is None or stock.get("timed_out"):
        return False
    for r in unit.resolvers:
        mine = lookup(unit.test, unit.seed, r) if r in CHECKED_RESOLVERS else None
        if mine and not mine.get("timed_out") and mine.get("unseed") != stock.get("unseed"):
            return True
    return False


def unit_is_clean(unit, lookup):
    """Every run passed as expected and every checked resolver reproduced stock's unseed: the logs can go."""
    rows = [lookup(unit.test, unit.seed, r) for r in unit.resolvers]
    if any(r is None or not r["passed"] for r in rows):
        return False
    stock = lookup(unit.test, unit.seed, "stock")
    return not any(r["resolver"] in CHECKED_RESOLVERS and stock and r.get("unseed") != stock.get("unseed") for r in rows)


def execute(units, simulator, results, jobs, keep_logs, on_progress, skipped):
    """Runs every run not yet done, `jobs` at a time. A unit's other runs wait for its stock run and are skipped
    when it timed out (nothing to compare them with); a checked resolver whose unseed differed from stock's
    gets stock run once more. skipped gets {(test, seed, resolver): why} of the runs skipped."""
    cv = threading.Condition()
    lookup = lambda t, s, r: simulator.current(results, t, s, r)

    def is_done(unit, resolver):
        run = Run(unit.test, unit.seed, resolver)
        return results.done(run, simulator.fingerprint(run), simulator.timeout_s) is not None

    todo = [(u, r) for u in units for r in u.resolvers if not is_done(u, r)]
    for u in units:  # a recheck an interrupted invocation did not get to
        if needs_recheck(u, lookup) and not any(x is u for x, _ in todo):
            u.resolvers.append(RECHECK)
            if not is_done(u, RECHECK):
                todo.append((u, RECHECK))
    in_flight = []
    state = {"done": 0, "to_do": len(todo)}

    def waiting(unit):
        return any(x is unit for x, _ in todo) or any(x is unit for x, _ in in_flight)

    def ready(item):
        unit, resolver = item
        if unit.first is None or resolver in (unit.first, RECHECK):
            return True
        return not any(x is unit and r == unit.first for x, r in todo + in_flight)

    def finish_unit(unit):
        if waiting(unit):
            return
        if RECHECK not in unit.resolvers and needs_recheck(unit, lookup):
            unit.resolvers.append(RECHECK)
            if not is_done(unit, RECHECK):
                todo.append((unit, RECHECK))
                state["to_do"] += 1
                return
        if keep_logs == "all" or (keep_logs == "failed" and not unit_is_clean(unit, lookup)):
            return
        for r in unit.resolvers:
            shutil.rmtree(os.path.join(simulator.run_dir(Run(unit.test, unit.seed, r)), "logs"), ignore_errors=True)

    def worker():
        while True:
            with cv:
                while True:
                    if simulator.stopping:
                        return
                    item = next((i for i in todo if ready(i)), None)
                    if item is not None:
                        break
                    if not todo:
                        return
                    cv.wait(1.0)  # a stop comes from a signal handler, which cannot notify
                todo.remove(item)
                in_flight.append(item)
                unit, resolver = item
                stock = lookup(unit.test, unit.seed, "stock") if unit.first and resolver != unit.first else None
                skip = resolver != RECHECK and stock is not None and stock.get("timed_out")
            result = None
            if skip:
                skipped[(unit.test.name, unit.seed, resolver)] = "its stock run timed out"
            else:
                try:
                    result = simulator.run(Run(unit.test, unit.seed, resolver))
                except Exception as e:  # a run that could not even start is reported, never a silent pass
                    say(f"{unit.test.name} seed {unit.seed} {resolver}: could not run: {e}")
            with cv:
                in_flight.remove(item)
                if result is not None:
                    results.record(result)
                    state["done"] += 1
                    try:
                        on_progress(state["done"], state["to_do"], result)
                    except Exception as e:  # the result is kept; the report is written again at the end
                        say(f"could not write the report: {e}")
                if not simulator.stopping:
                    finish_unit(unit)
                cv.notify_all()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.5)  # short waits: the main thread must stay free to take a signal
