"""fdb-sim: one simulation: the plugin's configuration, fdbserver's run and logs, and the bridge it loads."""
import dataclasses
import datetime
import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import threading
import time

from . import config
from .config import BROKEN, CHECKED_MODE, FAULTS, PLUGIN_JVM, RECHECK, UsageError
from .testlist import Test

# ---- One simulation -------------------------------------------------------------------------------------

def plugin_config(resolver, class_path, test_class_path):
    checked = CHECKED_MODE
    tree = f"engine=tree;memory_budget={config.PLUGIN_BUDGET};class_path={class_path};{PLUGIN_JVM}"
    return {
        "tree": f"{checked};{tree}",
        "tree-single": f"{checked};engine=tree;memory_budget={config.PLUGIN_BUDGET};engine_option=readPath=single;"
                       f"class_path={class_path};{PLUGIN_JVM}",
        "reference": f"{checked};engine=reference;class_path={class_path};{PLUGIN_JVM}",
        "tree-metrics": f"mode=plugin;{tree}",
        "tree-plugin": f"mode=plugin;resolver_metrics=0;{tree}",
        # fdbserver runs in the run's folder; a small queue, as every resolver's is on the one JVM's heap.
        "tree-capture": f"{checked};{tree};capture=capture;capture_queue_bytes=4m;capture_max_bytes=64g",
        # Deciding alone (mode=plugin): only FoundationDB's own checks can catch it.
        # The metadata guard off: it would catch the engine's first wrong COMMIT on a system key and hand over.
        BROKEN: f"mode=plugin;resolver_metrics=0;metadata_guard=0;engine=test-commit-all;"
                f"class_path={test_class_path}:{class_path};{PLUGIN_JVM}",
    }.get(resolver) or fault_config(resolver, class_path, test_class_path)


def fault_config(resolver, class_path, test_class_path):
    fault = FAULTS.get(resolver)
    if fault is None:
        return None
    path = fault.class_path or f"{test_class_path}:{class_path}"
    return f"{fault.settings};resolver_metrics=0;memory_budget={config.PLUGIN_BUDGET};class_path={path};{PLUGIN_JVM}"


def test_file_text(source, test):
    """The test file as it runs: FoundationDB's, with a named test's extra [configuration] lines."""
    with open(os.path.join(source, test.file), encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    for old, new in test.replace:
        if old not in text:
            raise UsageError(f"{test.name}: {test.file} no longer holds '{old}' (FoundationDB's test changed?)")
        text = text.replace(old, new)
    if test.configuration:
        if re.search(r"^\[configuration\]", text, re.M):
            text = re.sub(r"^\[configuration\][^\n]*\n", lambda m: m.group(0) + test.configuration + "\n", text,
                          count=1, flags=re.M)
        else:
            text = f"[configuration]\n{test.configuration}\n\n{text}"
    return text


def summarize_logs(log_dir):
    """What a run's trace logs say: SevError events (their kinds and the first one), the plugin's events,
    how many Resolvers began and how many transactions they resolved."""
    sev_errors, first_error, plugin_events, plugin_first = {}, None, {}, {}
    resolvers_begun, resolved = 0, {}
    attribute = re.compile(r'(\w+)="([^"]*)"')
    files = sorted(glob.glob(os.path.join(log_dir, "*.xml")))
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if 'Severity="40"' in line:
                    a = dict(attribute.findall(line))
                    if a.get("ErrorIsInjectedFault") != "1":
                        kind = a.get("Type", "?")
                        sev_errors[kind] = sev_errors.get(kind, 0) + 1
                        if first_error is None:
                            first_error = {k: a[k] for k in a if k not in ("Severity", "DateTime", "ThreadID", "LogGroup")}
                if "ResolverConflictSetPlugin" in line:
                    a = dict(attribute.findall(line))
                    kind = a.get("Type", "?")
                    plugin_events[kind] = plugin_events.get(kind, 0) + 1
                    if kind not in plugin_first and kind != "ResolverConflictSetPluginOpened":
                        plugin_first[kind] = {k: a[k] for k in a if k not in ("Severity", "DateTime", "ThreadID", "LogGroup", "Config")}
                elif 'Type="Role"' in line and 'As="Resolver"' in line and 'Transition="Begin"' in line:
                    resolvers_begun += 1
                elif 'Type="ResolverMetrics"' in line:
                    a = dict(attribute.findall(line))
                    total = a.get("ResolvedTransactions", "").split()
                    if total:
                        resolved[a.get("ID", "")] = int(float(total[-1]))
    return {"sev_errors": sev_errors, "first_error": first_error, "plugin_events": plugin_events, "plugin_first": plugin_first,
            "resolvers_begun": resolvers_begun, "resolved_transactions": sum(resolved.values()),
            "trace_files": len(files)}


def parse_stdout(text):
    unseed = re.findall(r"^Unseed: (-?[0-9]+)", text, re.M)
    simulated = re.findall(r"^Elapsed: ([0-9.]+) simsec", text, re.M)
    sev = re.findall(r"^([0-9]+) SevError events logged", text, re.M)
    verdict = re.findall(r"^([0-9]+) tests passed; ([0-9]+) tests failed", text, re.M)
    return {"unseed": int(unseed[-1]) if unseed else None,
            "tests_passed": int(verdict[-1][0]) if verdict else None,
            "tests_failed": int(verdict[-1][1]) if verdict else None,
            "simulated_s": float(simulated[-1]) if simulated else None,
            "sev_errors_logged": int(sev[-1]) if sev else 0}


def fdbserver_identity(fdbserver, compiler=""):
    """Which fdbserver a run used, in a form that outlives the machine: build-fdb's stamps of the build's inputs
    (FoundationDB's commit, the patch series, the configuration with its compiler and flags), the compiler's own
    version and the binary's size. A results file kept in the repository (--results) then carries finished runs
    over to a later build from the same inputs, where a path and a modification time would redo them all. Two such
    builds are taken to simulate alike; were they not, a checked run paired with another build's stock run would
    show a different unseed, and stock runs that seed again here before anything is reported as ours. compiler is
    the build's CMAKE_CXX_COMPILER, which main() has already read from its CMakeCache.txt."""
    st = os.stat(fdbserver)
    build = os.path.dirname(os.path.dirname(os.path.realpath(fdbserver)))
    label = os.path.basename(build)[len("build-"):] if os.path.basename(build).startswith("build-") else ""
    stamps = [os.path.join(build, ".fdbresolver-config"), os.path.join(os.path.dirname(build), f"src-{label}", ".fdbresolver-patches")]
    if not label or not all(os.path.isfile(f) for f in stamps):
        return f"{os.path.realpath(fdbserver)}:{st.st_size}:{st.st_mtime_ns}"  # not build-fdb's: this very file
    parts = [label]
    for stamp in stamps:
        with open(stamp, encoding="utf-8", errors="replace") as f:
            parts.append(f.read().strip())
    try:
        version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout.splitlines()[0] if compiler else "?"
    except (OSError, IndexError):
        version = "?"
    return "build:" + ":".join(parts + [version, str(st.st_size)])


@dataclasses.dataclass
class Run:
    test: Test
    seed: int
    resolver: str

    @property
    def label(self):
        return f"{self.test.name} seed {self.seed} {self.resolver}"


class Simulator:
    """Runs one simulation and says what it did."""

    def __init__(self, fdbserver, source, out, java_home, bridge, timeout_s, commit="?", knobs_in="command-line",
                 compiler=""):
        self.fdbserver, self.source, self.out, self.knobs_in = fdbserver, source, out, knobs_in
        self.java_home, self.bridge, self.timeout_s, self.commit = java_home, bridge, timeout_s, commit
        self.fingerprints = {}
        self.fdbserver_identity = fdbserver_identity(fdbserver, compiler)
        self.running = {}  # pid -> Popen, for an interruption
        self.lock = threading.Lock()
        self.stopping = False

    def run_dir(self, run):
        return os.path.join(self.out, "runs", run.test.slug, run.resolver, f"seed-{run.seed}")

    def knobs_in_file(self, run):
        """Whether the plugin's knobs go into the test file's [[knobs]] (TOML only) instead of the command line."""
        return self.knobs_in == "test-file" and run.test.file.endswith(".toml")

    def plugin_knobs(self, run):
        engine = BROKEN if run.test.expect == "fail" else run.resolver
        if engine in ("stock", RECHECK):
            return None
        fault = FAULTS.get(engine)
        library = fault.library if fault and fault.library else self.bridge.library
        return library, plugin_config(engine, self.bridge.class_path, self.bridge.test_class_path)

    def test_text(self, run):
        text = test_file_text(self.source, run.test)
        knobs = self.plugin_knobs(run)
        if knobs and self.knobs_in_file(run):
            text += f"\n[[knobs]]\nresolver_conflict_set_plugin = '{knobs[0]}'\nresolver_conflict_set_plugin_config = '{knobs[1]}'\n"
        return text

    def command(self, run, test_path, log_dir):
        cmd = [self.fdbserver, "-r", "simulation", "-f", test_path, "-s", str(run.seed), "-b", "on", "-L", log_dir]
        knobs = self.plugin_knobs(run)
        if knobs and not self.knobs_in_file(run):
            cmd += [f"--knob_resolver_conflict_set_plugin={knobs[0]}", f"--knob_resolver_conflict_set_plugin_config={knobs[1]}"]
        return cmd

    def fingerprint(self, run):
        """What decides a run's outcome: redo a run when any of it changed."""
        key = (run.test.name, run.seed, run.resolver)
        if key not in self.fingerprints:
            self.fingerprints[key] = self._fingerprint(run)
        return self.fingerprints[key]

    def _fingerprint(self, run):
        engine = BROKEN if run.test.expect == "fail" else run.resolver
        h = hashlib.sha256()
        h.update(test_file_text(self.source, run.test).encode("utf-8", "surrogateescape"))
        h.update(f"\0{run.seed}\0{engine}\0{self.fdbserver_identity}\0".encode())
        if engine not in ("stock", RECHECK):
            h.update(self.bridge.identity(engine == BROKEN or engine in FAULTS).encode())
            if engine in FAULTS:
                h.update(repr(FAULTS[engine]).encode())
            h.update(plugin_config(engine, "", "").encode())
            h.update(b"knobs in the test file" if self.knobs_in_file(run) else b"knobs on the command line")
        return h.hexdigest()[:20]

    def current(self, results, test, seed, resolver):
        """The result of this run as it stands now (same fingerprint), else None."""
        row = results.get(test.name, seed, resolver)
        if row is None or row.get("fingerprint") != self.fingerprint(Run(test, seed, resolver)):
            return None
        return row

    def run(self, run):
        directory = self.run_dir(run)
        shutil.rmtree(directory, ignore_errors=True)
        log_dir = os.path.join(directory, "logs")
        os.makedirs(log_dir)
        extension = os.path.splitext(run.test.file)[1].lower()
        test_path = os.path.join(directory, "test" + extension)
        with open(test_path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(self.test_text(run))
        cmd = self.command(run, test_path, log_dir)
        env = dict(os.environ)
        # libjsig chains fdbserver's own signal handlers behind the JVM's (docs/fdb-integration.md); every run
        # has it, so that stock and plugin runs differ only in the knobs.
        env["LD_PRELOAD"] = os.path.join(self.java_home, "lib", "libjsig.so")
        fault = FAULTS.get(run.resolver)
        fault_env = dict(fault.env) if fault else {}
        env.update(fault_env)
        with open(os.path.join(directory, "command.txt"), "w") as f:
            f.write(" ".join([f"{k}={shell_quote(v)}" for k, v in fault_env.items()] + [shell_quote(c) for c in cmd]) + "\n")
        started = time.monotonic()
        timed_out = False
        with open(os.path.join(directory, "stdout.txt"), "wb") as stdout, \
                open(os.path.join(directory, "stderr.txt"), "wb") as stderr:
            proc = subprocess.Popen(cmd, cwd=directory, env=env, stdout=stdout, stderr=stderr,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
            with self.lock:
                self.running[proc.pid] = proc
            try:
                rc = proc.wait(timeout=self.timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
                kill_group(proc)
                rc = proc.wait()
            finally:
                with self.lock:
                    self.running.pop(proc.pid, None)
        wall = time.monotonic() - started
        if self.stopping:
            return None
        with open(os.path.join(directory, "stdout.txt"), encoding="utf-8", errors="replace") as f:
            result = parse_stdout(f.read())
        result.update(summarize_logs(log_dir))
        # The simulated cluster's data is large and of no use once the run is over.
        shutil.rmtree(os.path.join(directory, "simfdb"), ignore_errors=True)
        if fault:
            # The fault's own SevError (guarded mode's difference) is what the hook must log; any other fails the run.
            unexpected = {k: v for k, v in result["sev_errors"].items() if k not in fault.allowed_errors}
            seen = any(re.search(fault.expect_event, k) for k in result["plugin_events"])
            # fdbserver exits 1 for any SevError, so with the fault's own the tests' verdict decides.
            tests_ok = result.get("tests_failed") == 0 and (result.get("tests_passed") or 0) > 0
            exit_ok = rc == 0 or (rc == 1 and tests_ok and set(result["sev_errors"]) <= set(fault.allowed_errors))
            failed = not exit_ok or timed_out or bool(unexpected) or not seen
            result["fault_seen"] = seen
        else:
            failed = rc != 0 or timed_out or bool(result["sev_errors"]) or result["sev_errors_logged"] > 0
        passed = failed if run.test.expect == "fail" else not failed
        result.update({
            "test": run.test.name, "file": run.test.file, "seed": run.seed, "resolver": run.resolver,
            "expect": run.test.expect, "passed": passed, "failed": failed, "exit": rc, "timed_out": timed_out,
            "timeout_s": self.timeout_s, "wall_s": round(wall, 1), "fingerprint": self.fingerprint(run),
            "finished": datetime.datetime.now().isoformat(timespec="seconds"), "dir": os.path.relpath(directory, self.out),
            "commit": self.commit,
            # Which fdbserver, as the fingerprint saw it: a later build whose runs are all redone says why at a glance
            # (two builds from the same inputs once differed only in their size).
            "fdbserver": self.fdbserver_identity,
            "bridge": os.path.basename(self.bridge.directory) if self.bridge and run.resolver not in ("stock", RECHECK) else None,
        })
        return result

    def stop(self):
        self.stopping = True
        with self.lock:
            for proc in list(self.running.values()):
                kill_group(proc)


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def shell_quote(word):
    return word if re.fullmatch(r"[A-Za-z0-9_./=:,+-]+", word) else "'" + word.replace("'", "'\\''") + "'"


class Bridge:
    """The JNI bridge and the engine's jars the plugin runs: copied under OUT/bridge/<content hash>, so that a
    later build in the checkout never changes a suite under way, and a changed engine redoes its runs."""

    def __init__(self, directory):
        self.directory = directory
        self.library = os.path.join(directory, "native", "libfdbresolver.so")
        self.class_path = f"{directory}/*:{directory}/lib/*"
        self.test_class_path = os.path.join(directory, "test-classes")
        self._identity = {}

    @staticmethod
    def files(target):
        picked = [os.path.join(target, "native", "libfdbresolver.so")]
        picked += sorted(glob.glob(os.path.join(target, "*.jar"))) + sorted(glob.glob(os.path.join(target, "lib", "*.jar")))
        return picked

    @classmethod
    def snapshot(cls, target, out):
        """target: a jni-bridge/target folder (native/libfdbresolver.so, *.jar, lib/*.jar, test-classes/)."""
        main = cls.files(target)
        missing = [p for p in main if not os.path.isfile(p)]
        if missing or len(main) < 2:
            raise UsageError(f"no built bridge in {target} (wanted native/libfdbresolver.so and the jars)")
        h = hashlib.sha256()
        for p in main:
            h.update(os.path.relpath(p, target).encode() + b"\0")
            with open(p, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
        directory = os.path.join(out, "bridge", h.hexdigest()[:16])
        if not os.path.isdir(directory):
            staging = directory + ".partial"
            shutil.rmtree(staging, ignore_errors=True)
            for p in main:
                destination = os.path.join(staging, os.path.relpath(p, target))
                os.makedirs(os.path.dirname(destination), exist_ok=True)
                shutil.copy2(p, destination)
            tests = os.path.join(target, "test-classes")
            if os.path.isdir(tests):
                shutil.copytree(tests, os.path.join(staging, "test-classes"))
            os.rename(staging, directory)
        return cls(directory)

    def identity(self, with_test_classes):
        if with_test_classes not in self._identity:
            h = hashlib.sha256(os.path.basename(self.directory).encode())
            if with_test_classes:
                for d, _, fs in sorted(os.walk(self.test_class_path)):
                    for name in sorted(fs):
                        with open(os.path.join(d, name), "rb") as f:
                            h.update(name.encode() + hashlib.sha256(f.read()).digest())
            self._identity[with_test_classes] = h.hexdigest()[:16]
        return self._identity[with_test_classes]
