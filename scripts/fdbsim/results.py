"""fdb-sim: results kept as they finish (OUT/results.jsonl), so that a second invocation resumes."""
import json
import os
import threading

# ---- Results kept as they finish --------------------------------------------------------------------------

class Results:
    """OUT/results.jsonl: one line per finished run, appended and synced as it finishes. The latest line for a
    (test, seed, resolver) stands; it counts as done for a new invocation only when its fingerprint matches."""

    def __init__(self, path):
        self.path = path
        self.latest = {}
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path, "rb+") as f:
                f.seek(-1, os.SEEK_END)
                if f.read(1) != b"\n":
                    f.write(b"\n")  # a line cut short by a killed invocation: the next one starts afresh
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    try:
                        r = json.loads(line)
                    except ValueError:
                        continue  # a line cut short by an interruption
                    self.latest[(r["test"], r["seed"], r["resolver"])] = r
        self.lock = threading.Lock()

    def done(self, run, fingerprint, timeout_s):
        r = self.latest.get((run.test.name, run.seed, run.resolver))
        if r is None or r.get("fingerprint") != fingerprint:
            return None
        if r.get("timed_out") and r.get("timeout_s", 0) < timeout_s:
            return None  # it may finish with the longer timeout
        return r

    def record(self, result):
        with self.lock:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(result, sort_keys=True) + "\n")
                f.flush()
                os.fsync(f.fileno())
            self.latest[(result["test"], result["seed"], result["resolver"])] = result

    def get(self, test, seed, resolver):
        return self.latest.get((test, seed, resolver))
