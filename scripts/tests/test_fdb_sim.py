"""Checks of scripts/fdb-sim that need no FoundationDB build: its reading of FoundationDB's tests/CMakeLists.txt,
what --tests names, and whole invocations against a fake build whose fdbserver (scripts/tests/fake-fdbserver)
passes, fails, diverges or hangs as a test file asks.

    python3 -m unittest discover -s scripts/tests        # from the repository; about 20 s
"""
import glob
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "fdb-sim")
LABEL = "c0c44752df67"  # build-fdb's folder names for its pinned commit


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def load_fdb_sim():
    loader = importlib.machinery.SourceFileLoader("fdb_sim", SCRIPT)
    spec = importlib.util.spec_from_loader("fdb_sim", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


fdb_sim = load_fdb_sim()

CMAKE = textwrap.dedent("""\
    include(AddFdbTest)
    if(WITH_PYTHON)
      add_fdb_test(TEST_FILES Plain.txt IGNORE)
      add_fdb_test(TEST_FILES fast/A.toml)
      # TODO: Fix failures and re-enable this test:
      add_fdb_test(TEST_FILES fast/Flaky.toml IGNORE)
      add_fdb_test(TEST_FILES fast/Later.toml IGNORE) # TODO re-enable once it works.

      add_fdb_test(
        TEST_FILES fast/Two-1.toml
        fast/Two-2.toml)
      if (MULTIREGION_TEST)
        add_fdb_test(TEST_FILES rare/Region.toml)
      endif()
      if(WITH_ROCKSDB)
        if(MULTIREGION_TEST)
          add_fdb_test(TEST_FILES fast/Validate.toml)
        endif()
        add_fdb_test(TEST_FILES rare/Rocks.toml)
      else()
        add_fdb_test(TEST_FILES fast/Validate.toml IGNORE)
      endif()
      if(NOT USE_UBSAN AND NOT WIN32)
        add_fdb_test(TEST_FILES Sanitizable.txt)
      else()
        add_fdb_test(TEST_FILES Sanitizable.txt IGNORE)
      endif()
      if (RESTART_TEST)
        add_fdb_test(
          TEST_FILES restarting/from_7.3.0/X-1.toml
          restarting/from_7.3.0/X-2.toml)
        add_fdb_test(
          TEST_FILES restarting/to_7.4.5/Y-1.toml
          restarting/to_7.4.5/Y-2.toml)
      endif()
      add_fdb_test(TEST_FILES slow/Long.toml LONG_RUNNING)
      add_fdb_test(TEST_FILES Unit.txt UNIT)
      message(WARNING "a message with (parentheses) and a \\"quote\\"")
    endif()
    """)


class CMakeTestListTest(unittest.TestCase):
    def listed(self, **variables):
        return fdb_sim.parse_test_list(CMAKE, fdb_sim.with_derived_variables(variables))

    def test_conditions(self):
        v = {"A": "ON", "B": "OFF", "C": "", "D": "x-NOTFOUND"}
        e = fdb_sim.evaluate_condition
        self.assertTrue(e("A", v))
        self.assertFalse(e("B", v))
        self.assertFalse(e("C", v))
        self.assertFalse(e("D", v))
        self.assertFalse(e("UNDEFINED", v))
        self.assertTrue(e("NOT B AND A", v))
        self.assertTrue(e("B OR A", v))
        self.assertFalse(e("NOT (A OR B)", v))
        self.assertTrue(e("TRUE", v))
        self.assertFalse(e("OFF", v))

    def test_flags_files_and_comments(self):
        listed = self.listed()
        self.assertTrue(fdb_sim.listing_for(listed, "Plain.txt").ignore)
        self.assertFalse(fdb_sim.listing_for(listed, "fast/A.toml").ignore)
        self.assertEqual(fdb_sim.listing_for(listed, "fast/Flaky.toml").comment, "TODO: Fix failures and re-enable this test:")
        self.assertEqual(fdb_sim.listing_for(listed, "fast/Later.toml").comment, "TODO re-enable once it works.")
        self.assertEqual(fdb_sim.listing_for(listed, "fast/A.toml").comment, "")
        self.assertEqual(fdb_sim.listing_for(listed, "fast/Two-2.toml").files, ("fast/Two-1.toml", "fast/Two-2.toml"))
        self.assertTrue(fdb_sim.listing_for(listed, "slow/Long.toml").long_running)
        self.assertTrue(fdb_sim.listing_for(listed, "Unit.txt").unit)

    def test_branches_follow_the_build(self):
        without = self.listed(WITH_ROCKSDB="OFF")
        self.assertTrue(fdb_sim.listing_for(without, "fast/Validate.toml").ignore)
        self.assertFalse(fdb_sim.listing_for(without, "rare/Rocks.toml").active)
        self.assertTrue(fdb_sim.listing_for(without, "rare/Region.toml").active)
        self.assertFalse(fdb_sim.listing_for(without, "Sanitizable.txt").ignore)
        with_rocks = self.listed(WITH_ROCKSDB="ON")
        self.assertFalse(fdb_sim.listing_for(with_rocks, "fast/Validate.toml").ignore)
        self.assertTrue(fdb_sim.listing_for(with_rocks, "rare/Rocks.toml").active)
        no_regions = self.listed(NO_MULTIREGION_TEST="ON", USE_UBSAN="ON")
        self.assertFalse(fdb_sim.listing_for(no_regions, "rare/Region.toml").active)
        self.assertTrue(fdb_sim.listing_for(no_regions, "Sanitizable.txt").ignore)

    def test_reasons(self):
        variables = fdb_sim.with_derived_variables({"WITH_ROCKSDB": "OFF"})
        listed = fdb_sim.parse_test_list(CMAKE, variables)
        with tempfile.TemporaryDirectory() as source:
            os.makedirs(os.path.join(source, "tests", "fast"))
            with open(os.path.join(source, "tests", "fast", "RocksOnly.toml"), "w") as f:
                f.write("[configuration]\nstorageEngineType = 4 # Always pick RocksDB\n\n[[test]]\ntestTitle = 'x'\n")

            os.makedirs(os.path.join(source, "tests", "status"))
            with open(os.path.join(source, "tests", "status", "idle.txt"), "w") as f:
                f.write("Configuration:\n  Redundancy mode - single\n")
            with open(os.path.join(source, "tests", "External.txt"), "w") as f:
                f.write("testTitle=SimpleExternalTest\n    testName=External\n    libraryName=cpp_workloads\n")
            with open(os.path.join(source, "tests", "fast", "NoTest.toml"), "w") as f:
                f.write("[configuration]\nbuggify = false\n")

            def why(path, run_ignored=False, build_dir=None):
                return fdb_sim.why_not_runnable(path, listed, variables, source, run_ignored, build_dir)

            self.assertIsNone(why("fast/A.toml"))
            self.assertIsNone(why("fast/NotListed.toml"))
            self.assertIn("IGNORE", why("fast/Flaky.toml"))
            self.assertIn("Fix failures", why("fast/Flaky.toml"))
            self.assertIsNone(why("fast/Flaky.toml", run_ignored=True))
            self.assertIn("LONG_RUNNING", why("slow/Long.toml"))
            self.assertIsNone(why("slow/Long.toml", run_ignored=True))
            self.assertIn("part 2 of 2 of a multi-part test", why("fast/Two-2.toml"))
            self.assertIn("fdbserver 7.3.0 or newer", why("restarting/from_7.3.0/X-1.toml"))
            self.assertIn("part 1 of 2", why("restarting/from_7.3.0/X-1.toml"))
            self.assertIn("downgrade", why("restarting/to_7.4.5/Y-2.toml"))
            self.assertIn("unit test", why("Unit.txt"))
            self.assertIn("only under if(WITH_ROCKSDB)", why("rare/Rocks.toml"))
            self.assertIn("needs RocksDB (storageEngineType = 4)", why("fast/RocksOnly.toml", run_ignored=True))
            self.assertIn("not a test specification (no testTitle line", why("status/idle.txt"))
            self.assertIn("not a test specification (no [[test]] table", why("fast/NoTest.toml"))
            self.assertIn("needs the External workload library libcpp_workloads.so", why("External.txt"))
            build = os.path.join(source, "build")
            os.makedirs(os.path.join(build, "share", "foundationdb"))
            open(os.path.join(build, "share", "foundationdb", "libcpp_workloads.so"), "w").close()
            self.assertIsNone(why("External.txt", build_dir=build))

    def test_cache_variables(self):
        v = fdb_sim.cmake_cache_variables("# comment\nWITH_ROCKSDB:BOOL=OFF\nNO_RESTART_TEST:BOOL=ON\nX:STRING=a=b\n")
        self.assertEqual(v["WITH_ROCKSDB"], "OFF")
        self.assertEqual(v["X"], "a=b")
        self.assertEqual(v["RESTART_TEST"], "FALSE")
        self.assertEqual(v["MULTIREGION_TEST"], "TRUE")


class RealTestListTest(unittest.TestCase):
    """FoundationDB's own tests/CMakeLists.txt, where build-fdb has prepared the source."""

    def setUp(self):
        proc = subprocess.run([os.path.join(ROOT, "scripts", "build-fdb"), "--where"], capture_output=True, text=True)
        where = dict(line.split(": ", 1) for line in proc.stdout.splitlines() if ": " in line)
        self.source = where.get("fdb-source", "")
        if not os.path.isfile(os.path.join(self.source, "tests", "CMakeLists.txt")):
            self.skipTest("FoundationDB's source is not prepared here (scripts/build-fdb)")

    def test_known_files(self):
        variables = fdb_sim.with_derived_variables({"WITH_ROCKSDB": "OFF"})
        with open(os.path.join(self.source, "tests", "CMakeLists.txt")) as f:
            listed = fdb_sim.parse_test_list(f.read(), variables)
        tests = fdb_sim.resolve_tests(["tests/fast", "tests/rare", "tests/slow"], self.source, listed, variables)
        by_name = {t.name: t for t in tests}
        self.assertEqual(len(tests), len({t.name for t in tests}))
        for runnable in ("tests/fast/CycleTest.toml", "tests/rare/ConflictRangeCheck.toml", "tests/slow/Serializability.toml",
                         "tests/fast/KillRegionCycle.toml", "tests/rare/DcLag.toml"):
            self.assertIsNone(by_name[runnable].not_runnable, runnable)
        self.assertIn("IGNORE", by_name["tests/fast/LowLatencySingleClog.toml"].not_runnable)
        self.assertIn("IGNORE", by_name["tests/fast/ValidateStorage.toml"].not_runnable)
        self.assertIn("multi-part", by_name["tests/fast/NativeCdcDisableRestart-1.toml"].not_runnable)
        self.assertIn("RocksDB", by_name["tests/fast/RocksdbNondeterministicTest.toml"].not_runnable)
        self.assertIn("LONG_RUNNING", by_name["tests/slow/LongRunning.toml"].not_runnable)
        restarting = fdb_sim.resolve_tests(["tests/restarting"], self.source, listed, variables)
        self.assertTrue(restarting and all(t.not_runnable for t in restarting))


class ResolveTestsTest(unittest.TestCase):
    def setUp(self):
        self.source = tempfile.mkdtemp()
        for path in ("tests/fast/CycleA.toml", "tests/fast/CycleB.toml", "tests/fast/Other.toml", "tests/fast/notes.md",
                     "tests/rare/R.toml", "tests/Old.txt", "tests/fast/CycleTest.toml", "tests/CMakeLists.txt",
                     "tests/TestRunner/requirements.txt"):
            os.makedirs(os.path.dirname(os.path.join(self.source, path)), exist_ok=True)
            with open(os.path.join(self.source, path), "w") as f:
                f.write("[[test]]\ntestTitle = 'x'\n")
        self.variables = fdb_sim.with_derived_variables({})

    def tearDown(self):
        shutil.rmtree(self.source)

    def names(self, *items):
        return [t.name for t in fdb_sim.resolve_tests(list(items), self.source, {}, self.variables)]

    def test_files_globs_folders_and_names(self):
        self.assertEqual(self.names("tests/fast/Other.toml"), ["tests/fast/Other.toml"])
        self.assertEqual(self.names("fast/Other.toml"), ["tests/fast/Other.toml"])
        self.assertEqual(self.names("tests/fast/Cycle*.toml"), ["tests/fast/CycleA.toml", "tests/fast/CycleB.toml",
                                                                "tests/fast/CycleTest.toml"])
        self.assertEqual(self.names("tests/fast"), ["tests/fast/CycleA.toml", "tests/fast/CycleB.toml",
                                                    "tests/fast/CycleTest.toml", "tests/fast/Other.toml"])
        self.assertEqual(self.names("tests/Old.txt"), ["tests/Old.txt"])
        self.assertEqual(self.names("tests/*.txt"), ["tests/Old.txt"])
        self.assertNotIn("tests/CMakeLists.txt", self.names("tests"))
        self.assertNotIn("tests/TestRunner/requirements.txt", self.names("tests"))
        self.assertEqual(self.names("cycle", "tests/fast/CycleA.toml", "tests/fast/Cycle*.toml", "cycle"),
                         ["cycle", "tests/fast/CycleA.toml", "tests/fast/CycleB.toml", "tests/fast/CycleTest.toml"])
        named = fdb_sim.resolve_tests(["cycle-3-resolvers"], self.source, {}, self.variables)[0]
        self.assertTrue(named.named)
        self.assertEqual(named.slug, "cycle-3-resolvers")
        self.assertEqual(fdb_sim.resolve_tests(["tests/fast/Other.toml"], self.source, {}, self.variables)[0].slug, "fast/Other")

    def test_errors_name_the_item(self):
        for item, message in (("tests/fast/Missing.toml", "neither a named test"), ("tests/fast/notes.md", "not a test file"),
                              ("../etc", "outside"), ("/etc/passwd", "inside FoundationDB's source"),
                              ("tests/none/*.toml", "neither")):
            with self.assertRaises(fdb_sim.UsageError) as caught:
                fdb_sim.resolve_tests([item], self.source, {}, self.variables)
            self.assertIn(message, str(caught.exception), item)

    def test_named_configuration_goes_into_the_file(self):
        t = fdb_sim.resolve_tests(["cycle-3-resolvers"], self.source, {}, self.variables)[0]
        self.assertTrue(fdb_sim.test_file_text(self.source, t).startswith("[configuration]\nresolverCount = 3\n"))
        with open(os.path.join(self.source, "tests/fast/CycleTest.toml"), "w") as f:
            f.write("[configuration]\nbuggify = false\n\n[[test]]\n")
        self.assertEqual(fdb_sim.test_file_text(self.source, t), "[configuration]\nresolverCount = 3\nbuggify = false\n\n[[test]]\n")


    def test_long_window_variants_rewrite_the_knobs(self):
        shipped = ("[configuration]\nbuggify = false\n\n[[knobs]]\nmax_read_transaction_life_versions = 15000000\n"
                   "max_write_transaction_life_versions = 15000000\n\n[[test]]\n[[test.workload]]\n    txnMinDuration = 7\n"
                   "    testDuration = 360.0\n[[test.workload]]\n    testName = 'Cycle'\n    testDuration = 360.0\n")
        with open(os.path.join(self.source, "tests/fast/TxnTimeout.toml"), "w") as f:
            f.write(shipped)
        t = fdb_sim.resolve_tests(["txn-timeout-300"], self.source, {}, self.variables)[0]
        text = fdb_sim.test_file_text(self.source, t)
        import tomllib
        parsed = tomllib.loads(text)
        self.assertEqual(parsed["knobs"][0], {"max_read_transaction_life_versions": 300000000,
                                              "max_write_transaction_life_versions": 300000000,
                                              "max_versions_in_flight": 600000000})
        self.assertEqual(text.count("testDuration = 900.0"), 2)
        self.assertIn("txnMinDuration = 150", text)
        t15 = fdb_sim.resolve_tests(["txn-timeout-15"], self.source, {}, self.variables)[0]
        self.assertEqual(fdb_sim.test_file_text(self.source, t15), shipped)
        # A FoundationDB whose test no longer holds the text is an error, not a silent 15 s run.
        with open(os.path.join(self.source, "tests/fast/TxnTimeout.toml"), "w") as f:
            f.write(shipped.replace("15000000", "20000000"))
        with self.assertRaisesRegex(fdb_sim.UsageError, "no longer holds '= 15000000'"):
            fdb_sim.test_file_text(self.source, t)

class LogSummaryTest(unittest.TestCase):
    def test_sev_errors_plugin_events_and_resolvers(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "trace.1.xml"), "w") as f:
                f.write('<?xml version="1.0"?>\n<Trace>\n'
                        '<Event Severity="10" Time="1" Type="Role" ID="r1" As="Resolver" Transition="Begin" />\n'
                        '<Event Severity="10" Time="1" Type="Role" ID="r1" As="Resolver" Transition="End" />\n'
                        '<Event Severity="10" Time="1" Type="ResolverConflictSetPluginOpened" ID="r1" />\n'
                        '<Event Severity="10" Time="5" Type="ResolverMetrics" ID="r1" ResolvedTransactions="1 0 10" />\n'
                        '<Event Severity="10" Time="9" Type="ResolverMetrics" ID="r1" ResolvedTransactions="1 0 25" />\n'
                        '<Event Severity="10" Time="9" Type="ResolverMetrics" ID="r2" ResolvedTransactions="1 0 5" />\n'
                        '<Event Severity="40" Time="9" Type="BrokenPromise" ErrorIsInjectedFault="1" />\n'
                        '<Event Severity="40" Time="10" Type="ResolverConflictSetPluginDiffers" ID="r1" Version="7" />\n'
                        '<Event Severity="40" Time="11" Type="TestFailure" Reason="x" />\n</Trace>\n')
            s = fdb_sim.summarize_logs(d)
        self.assertEqual(s["sev_errors"], {"ResolverConflictSetPluginDiffers": 1, "TestFailure": 1})
        self.assertEqual(s["first_error"]["Type"], "ResolverConflictSetPluginDiffers")
        self.assertEqual(s["plugin_events"], {"ResolverConflictSetPluginOpened": 1, "ResolverConflictSetPluginDiffers": 1})
        self.assertEqual(s["resolvers_begun"], 1)
        self.assertEqual(s["resolved_transactions"], 30)

    def test_stdout(self):
        s = fdb_sim.parse_stdout("x\nUnseed: 4711\nElapsed: 250.5 simsec, 3.1 real seconds\n2 SevError events logged\n")
        self.assertEqual((s["unseed"], s["simulated_s"], s["sev_errors_logged"]), (4711, 250.5, 2))
        self.assertEqual(fdb_sim.parse_stdout("Unseed: -1\n")["unseed"], -1)
        self.assertIsNone(fdb_sim.parse_stdout("crashed\n")["unseed"])


class InvocationTest(unittest.TestCase):
    """scripts/fdb-sim against a fake build-fdb cache whose fdbserver is scripts/tests/fake-fdbserver."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.cache = os.path.join(self.tmp, "cache")
        src = os.path.join(self.cache, f"src-{LABEL}")
        build = os.path.join(self.cache, f"build-{LABEL}")
        os.makedirs(os.path.join(src, "fdbserver", "resolver"))
        os.makedirs(os.path.join(src, "tests", "fast"))
        os.makedirs(os.path.join(build, "bin"))
        os.makedirs(os.path.join(build, "lib"))
        patches = sorted(os.path.join(ROOT, "jni-bridge", "fdb", "patches", p)
                         for p in os.listdir(os.path.join(ROOT, "jni-bridge", "fdb", "patches")) if p.endswith(".patch"))
        stamp = hashlib.sha256(b"".join(read(p, "rb") for p in patches)).hexdigest()[:16]
        with open(os.path.join(src, ".fdbresolver-patches"), "w") as f:
            f.write(stamp + "\n")
        # build-fdb's stamp of the comparator's sources (its glob order: the skip-list mains, then trace_reader.*).
        comparator = sorted(glob.glob(os.path.join(ROOT, "jni-bridge", "fdb", "skiplist", "*.cpp"))) + \
            sorted(glob.glob(os.path.join(ROOT, "jni-bridge", "src", "main", "native", "replay", "trace_reader.*")))
        os.makedirs(os.path.join(self.cache, f"build-{LABEL}"), exist_ok=True)
        with open(os.path.join(self.cache, f"build-{LABEL}", ".fdbresolver-comparator"), "w") as f:
            f.write(hashlib.sha256(b"".join(read(p, "rb") for p in comparator)).hexdigest()[:16] + "\n")
        for h in ("fdbresolver.h", "fdbresolver.hpp"):
            shutil.copy(os.path.join(ROOT, "jni-bridge", "include", h), os.path.join(src, "fdbserver", "resolver", h))
        shutil.copy(os.path.join(HERE, "fake-fdbserver"), os.path.join(build, "bin", "fdbserver"))
        for f in ("bin/fdbcli", "bin/fdbresolver_fdb_skiplist", "lib/libfdb_c.so"):
            open(os.path.join(build, f), "w").close()
        with open(os.path.join(build, "CMakeCache.txt"), "w") as f:
            f.write("WITH_ROCKSDB:BOOL=OFF\n")
        with open(os.path.join(src, "tests", "CMakeLists.txt"), "w") as f:
            f.write("if(WITH_PYTHON)\n  add_fdb_test(TEST_FILES fast/Ignored.toml IGNORE)\nendif()\n")
        self.tests = os.path.join(src, "tests")
        self.bridge = os.path.join(self.tmp, "bridge")
        os.makedirs(os.path.join(self.bridge, "native"))
        os.makedirs(os.path.join(self.bridge, "lib"))
        for f in ("native/libfdbresolver.so", "bridge.jar", "lib/engine.jar"):
            with open(os.path.join(self.bridge, f), "w") as out:
                out.write(f)
        self.out = os.path.join(self.tmp, "out")
        self.calls = os.path.join(self.tmp, "calls")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write_test(self, name, *directives):
        with open(os.path.join(self.tests, "fast", name), "w") as f:
            f.write("".join(f"# fake: {d}\n" for d in directives) + "[[test]]\ntestTitle = 'x'\n")

    def fdb_sim(self, *args, wait=True):
        env = dict(os.environ, FAKE_FDBSERVER_CALLS=self.calls)
        cmd = [sys.executable, SCRIPT, "--cache", self.cache, "--bridge", self.bridge, "--out", self.out] + list(args)
        if not wait:
            return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)

    def results(self):
        with open(os.path.join(self.out, "results.jsonl")) as f:
            return [json.loads(line) for line in f]

    def calls_made(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return f.read().splitlines()

    def report(self):
        with open(os.path.join(self.out, "report.md")) as f:
            return f.read()

    def test_all_agree_then_resume_runs_nothing(self):
        self.write_test("Good.toml")
        self.write_test("Ignored.toml")
        proc = self.fdb_sim("--tests", "tests/fast", "--seeds", "3", "--jobs", "2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(self.results()), 6)
        self.assertEqual(len(self.calls_made()), 6)
        # Each row names the fdbserver its fingerprint saw, the same for every run of one build.
        self.assertEqual(len({row["fdbserver"] for row in self.results()}), 1, self.results())
        report = self.report()
        self.assertIn("tree: passed and reproduced stock's unseed in **3 of 3**", report)
        self.assertIn("| `tests/fast/Good.toml` | 3 | 3/3 | 3/3 | 3/3 |", report)
        self.assertIn("| `tests/fast/Ignored.toml` | marked IGNORE", report)
        self.assertIn("problems (ours failed or diverged where stock passed, or a result is missing): **0**", report)
        # The logs of agreeing runs are gone, their stdout stays; simfdb always goes.
        run = os.path.join(self.out, "runs", "fast", "Good", "tree", "seed-1")
        self.assertFalse(os.path.exists(os.path.join(run, "logs")))
        self.assertFalse(os.path.exists(os.path.join(run, "simfdb")))
        self.assertIn("Unseed:", read(os.path.join(run, "stdout.txt")))
        self.assertIn("--knob_resolver_conflict_set_plugin_config=" + fdb_sim.CHECKED_MODE, read(os.path.join(run, "command.txt")))
        self.assertNotIn("--knob", read(os.path.join(self.out, "runs", "fast", "Good", "stock", "seed-1", "command.txt")))
        again = self.fdb_sim("--tests", "tests/fast", "--seeds", "3", "--jobs", "2")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(len(self.calls_made()), 6, "a second invocation redid finished runs")
        # A new seed runs only what is new; a changed test file redoes its runs.
        self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "4")
        self.assertEqual(len(self.calls_made()), 8)
        # "7," is seed 7 alone (a count of 7 would add seeds 5 and 6 too).
        self.assertEqual(self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "7,").returncode, 0)
        self.assertEqual(len(self.calls_made()), 10)
        self.write_test("Good.toml", "sleep=0")
        self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "1")
        self.assertEqual(len(self.calls_made()), 12)

    def test_a_results_file_carries_runs_to_a_new_build_from_the_same_inputs(self):
        build = os.path.join(self.cache, f"build-{LABEL}")
        with open(os.path.join(build, ".fdbresolver-config"), "w") as f:
            f.write("0123456789abcdef\n")
        self.write_test("Good.toml")
        kept = os.path.join(self.tmp, "repository", "results.jsonl")
        first = self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "2", "--results", kept)
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertEqual(len(self.calls_made()), 4)
        self.assertFalse(os.path.exists(os.path.join(self.out, "results.jsonl")), "--results was not where they went")
        # A new machine: the same inputs built again (a new file, a new time), a new output folder.
        server = os.path.join(build, "bin", "fdbserver")
        shutil.copy(server, server + ".new")
        os.utime(server + ".new", (1, 1))
        os.replace(server + ".new", server)
        shutil.rmtree(self.out)
        again = self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "2", "--results", kept)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(len(self.calls_made()), 4, "a rebuild from the same inputs redid finished runs")
        self.assertIn("tree: passed and reproduced stock's unseed in **2 of 2**", self.report())
        # Another configuration is another fdbserver: every run is done again.
        with open(os.path.join(build, ".fdbresolver-config"), "w") as f:
            f.write("fedcba9876543210\n")
        self.assertEqual(self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "2", "--results", kept).returncode, 0)
        self.assertEqual(len(self.calls_made()), 8)

    def test_another_compiler_version_is_another_fdbserver(self):
        build = os.path.join(self.cache, f"build-{LABEL}")
        with open(os.path.join(build, ".fdbresolver-config"), "w") as f:
            f.write("0123456789abcdef\n")
        compiler = os.path.join(self.tmp, "clang++")
        def compiler_says(version):
            with open(compiler, "w") as f:
                f.write(f"#!/bin/sh\necho 'Debian clang version {version}'\n")
            os.chmod(compiler, 0o755)
        compiler_says("16.0.6 (15)")
        with open(os.path.join(build, "CMakeCache.txt"), "w") as f:
            f.write(f"WITH_ROCKSDB:BOOL=OFF\nCMAKE_CXX_COMPILER:FILEPATH={compiler}\n")
        self.write_test("Good.toml")
        self.assertEqual(self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "1").returncode, 0)
        self.assertEqual(len(self.calls_made()), 2)
        self.assertEqual(self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "1").returncode, 0)
        self.assertEqual(len(self.calls_made()), 2, "the same compiler redid finished runs")
        compiler_says("16.0.6 (16)")
        self.assertEqual(self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "1").returncode, 0)
        self.assertEqual(len(self.calls_made()), 4, "a build by another compiler version kept the old runs")

    def test_knobs_in_the_test_file(self):
        self.write_test("Good.toml")
        proc = self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "1", "--plugin-knobs", "test-file")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        run = os.path.join(self.out, "runs", "fast", "Good", "tree", "seed-1")
        self.assertNotIn("--knob", read(os.path.join(run, "command.txt")))
        self.assertIn("[[knobs]]\nresolver_conflict_set_plugin = '", read(os.path.join(run, "test.toml")))
        self.assertIn("ResolverConflictSetPluginOpened", read(os.path.join(self.out, "results.jsonl")))
        # Another place for the knobs is another run: the command line's is redone.
        self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "1")
        self.assertEqual(len(self.calls_made()), 3)

    def test_divergence_is_a_problem_and_stock_runs_again(self):
        self.write_test("Diverges.toml", "plugin-diverges-at=2")
        proc = self.fdb_sim("--tests", "tests/fast/Diverges.toml", "--seeds", "2")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        rows = {(r["seed"], r["resolver"]): r for r in self.results()}
        self.assertIn((2, "stock-again"), rows)
        self.assertNotIn((1, "stock-again"), rows)
        report = self.report()
        self.assertIn("seed 2 tree: unseed", report)
        self.assertIn("(stock again: ", report)
        self.assertIn("in **1 of 2**", report)
        # The diverging seed keeps its logs, the agreeing one does not.
        self.assertTrue(os.path.exists(os.path.join(self.out, "runs", "fast", "Diverges", "tree", "seed-2", "logs")))
        self.assertFalse(os.path.exists(os.path.join(self.out, "runs", "fast", "Diverges", "tree", "seed-1", "logs")))

    def test_nondeterministic_test_is_a_note_not_a_problem(self):
        self.write_test("Random.toml", "nondeterministic-at=1")
        proc = self.fdb_sim("--tests", "tests/fast/Random.toml", "--seeds", "1")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("not deterministic here", self.report())

    def test_stock_failure_is_reported_apart(self):
        self.write_test("StockFails.toml", "fails-at=1", "stock-fails-at=2")
        self.write_test("OursFails.toml", "plugin-fails-at=2")
        proc = self.fdb_sim("--tests", "tests/fast/StockFails.toml,tests/fast/OursFails.toml", "--seeds", "2", "--jobs", "2")
        self.assertEqual(proc.returncode, 1, proc.stderr)  # OursFails
        report = self.report()
        self.assertIn("## Stock failures", report)
        self.assertIn("| `tests/fast/StockFails.toml` | 1 | FAILED (exit 1), unseed 7919 | Type=TestFailure Time=9.5 "
                      "Machine=2.0.1.0:1 Reason=the ring broke | tree: the same (result and unseed) |", report)
        self.assertIn("| `tests/fast/StockFails.toml` | 2 | FAILED (exit 1), unseed 15838 | Type=TestFailure", report)
        self.assertIn("| tree: passed, unseed 15838 |", report)
        self.assertIn("`tests/fast/OursFails.toml`: seed 2 tree: FAILED (exit 1) where stock passed [first SevError: "
                      "Type=TestFailure", report)
        self.assertNotIn("StockFails.toml`: seed", report.split("## Per test")[0])
        # The injected fault's SevError does not count.
        rows = {(r["test"], r["seed"], r["resolver"]): r for r in self.results()}
        self.assertTrue(rows[("tests/fast/OursFails.toml", 1, "stock")]["passed"])
        only_stock = self.fdb_sim("--tests", "tests/fast/StockFails.toml", "--seeds", "2")
        self.assertEqual(only_stock.returncode, 0, only_stock.stderr)

    def test_stock_timeout_skips_the_others(self):
        self.write_test("Hangs.toml", "stock-sleep=30")
        proc = self.fdb_sim("--tests", "tests/fast/Hangs.toml", "--seeds", "1", "--timeout", "1")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual([(r["resolver"], r["timed_out"]) for r in self.results()], [("stock", True)])
        self.assertIn("seed 1 tree: not run, its stock run timed out", self.report())

    def test_a_difference_below_sev_error_is_a_problem(self):
        self.write_test("Warns.toml", "plugin-warns-at=1")
        proc = self.fdb_sim("--tests", "tests/fast/Warns.toml", "--seeds", "1")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("seed 1 tree: the skip list beside it disagreed (ResolverConflictSetPluginDiffers x1)", self.report())

    def test_a_plugin_that_hands_over_is_a_problem_even_with_the_same_unseed(self):
        self.write_test("FallsBack.toml", "plugin-falls-back-at=1")
        proc = self.fdb_sim("--tests", "tests/fast/FallsBack.toml", "--seeds", "1")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("seed 1 tree: the plugin did not decide the whole run (ResolverConflictSetPluginFallback x1: "
                      "Type=ResolverConflictSetPluginFallback Time=3.0 Reason=the engine threw Decides=SkipList)", self.report())

    def test_fault_runs_pass_when_the_hook_saw_the_fault(self):
        self.write_test("CycleTest.toml")
        faults = ",".join(fdb_sim.FAULTS)
        proc = self.fdb_sim("--tests", "tests/fast/CycleTest.toml", "--seeds", "1", "--resolvers", "stock," + faults)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        rows = {r["resolver"]: r for r in self.results()}
        self.assertEqual(set(rows), {"stock", *fdb_sim.FAULTS})
        self.assertTrue(all(r["passed"] for r in rows.values()), rows)
        # The guarded difference's SevError is the expected one; the fault engine runs from the test classes.
        self.assertEqual(rows["fault-wrong-commit"]["sev_errors"], {"ResolverConflictSetPluginDiffers": 1})
        self.assertEqual(rows["fault-wrong-commit-metadata"]["sev_errors"], {"ResolverConflictSetPluginMetadataDiffers": 1})
        run = os.path.join(self.out, "runs", "fast", "CycleTest")
        command = read(os.path.join(run, "fault-throw", "seed-1", "command.txt"))
        self.assertIn("engine=test-faulty", command)
        self.assertIn("test-classes:", command)
        self.assertIn("--knob_resolver_conflict_set_plugin=/nonexistent/libfdbresolver.so",
                      read(os.path.join(run, "fault-no-library", "seed-1", "command.txt")))
        report = self.report()
        self.assertIn("seed 1 fault-oom: ResolverConflictSetPluginFallback x1; 1 Resolvers began (stock's run: 1)", report)
        self.assertIn("problems (ours failed or diverged where stock passed, or a result is missing): **0**", report)

    def test_a_fault_the_hook_did_not_see_fails(self):
        self.write_test("CycleTest.toml", "faults-unseen")
        proc = self.fdb_sim("--tests", "tests/fast/CycleTest.toml", "--seeds", "1", "--resolvers", "stock,fault-throw,fault-no-library")
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        report = self.report()
        self.assertIn("seed 1 fault-throw: FAILED (exit 0) (no plugin event matching Fallback)", report)
        self.assertIn("seed 1 fault-no-library: FAILED (exit 0) (no plugin event matching OpenFailed)", report)

    def test_no_resolver_is_noted(self):
        self.write_test("NoResolver.toml", "no-resolver")
        self.fdb_sim("--tests", "tests/fast/NoResolver.toml", "--seeds", "1")
        self.assertIn("the plugin never opened", self.report())

    def test_named_tests_and_the_negative_one(self):
        self.write_test("CycleTest.toml")
        proc = self.fdb_sim("--tests", "cycle,cycle-broken", "--seeds", "1")
        # The fake fdbserver passes the broken engine's run: a wrong resolver went unnoticed.
        self.assertEqual(proc.returncode, 1, proc.stderr)
        rows = {(r["test"], r["resolver"]): r for r in self.results()}
        self.assertEqual(sorted(rows), [("cycle", "reference"), ("cycle", "stock"), ("cycle", "tree"),
                                        ("cycle", "tree-metrics"), ("cycle-broken", "broken")])
        self.assertIn("`cycle-broken`: seed 1 broken: PASSED (a wrong resolver went unnoticed)", self.report())
        self.assertIn("engine=test-commit-all", read(os.path.join(self.out, "runs", "cycle-broken", "broken", "seed-1", "command.txt")))

    def test_interrupted_then_resumed(self):
        for name in ("Slow1.toml", "Slow2.toml", "Slow3.toml"):
            self.write_test(name, "sleep=1.5")
        proc = self.fdb_sim("--tests", "tests/fast", "--seeds", "1", "--resolvers", "stock", wait=False)
        deadline = time.time() + 60
        while time.time() < deadline and not (os.path.exists(os.path.join(self.out, "results.jsonl"))):
            time.sleep(0.1)
        second = self.fdb_sim("--tests", "tests/fast", "--seeds", "1", "--resolvers", "stock")
        self.assertEqual(second.returncode, 2)
        self.assertIn("another fdb-sim is running into", second.stderr)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted", err)
        done = len(self.results())
        self.assertLess(done, 3)
        report = self.report()
        self.assertIn(f"- simulations: {done} of 3 done ({3 - done} to go)", report)
        self.assertIn(", interrupted", report)
        self.assertNotIn("no result", report)
        again = self.fdb_sim("--tests", "tests/fast", "--seeds", "1", "--resolvers", "stock")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(len(self.results()), 3)
        self.assertIn("all 2 invocations into this folder", self.report())
        self.assertEqual(sorted(r["test"] for r in self.results()),
                         ["tests/fast/Slow1.toml", "tests/fast/Slow2.toml", "tests/fast/Slow3.toml"])

    def test_a_line_cut_short_is_skipped_and_its_run_redone(self):
        self.write_test("Good.toml")
        self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "2", "--resolvers", "stock")
        with open(os.path.join(self.out, "results.jsonl")) as f:
            lines = f.read().splitlines()
        with open(os.path.join(self.out, "results.jsonl"), "w") as f:
            f.write(lines[0] + "\n" + lines[1][:40])  # as a killed invocation may leave it
        proc = self.fdb_sim("--tests", "tests/fast/Good.toml", "--seeds", "2", "--resolvers", "stock")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(self.calls_made()), 3)
        with open(os.path.join(self.out, "results.jsonl")) as f:
            self.assertEqual(len([line for line in f if line.strip().endswith("}")]), 2)

    def test_list_and_usage_errors(self):
        self.write_test("Good.toml")
        self.write_test("Ignored.toml")
        proc = self.fdb_sim("--list", "--tests", "tests/fast", "--seeds", "2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("run      tests/fast/Good.toml (stock, tree)", proc.stdout)
        self.assertIn("not run  tests/fast/Ignored.toml: marked IGNORE", proc.stdout)
        self.assertEqual(self.calls_made(), [])
        for args, message in ((["--tests", "tests/fast/Nope.toml"], "neither a named test"),
                              (["--resolvers", "stock,best"], "unknown resolver 'best'"),
                              (["--seeds", "x"], "--seeds wants"), (["--jobs", "0"], "--jobs needs")):
            proc = self.fdb_sim(*args)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn(message, proc.stderr)

    def test_help_names_every_test_and_resolver(self):
        proc = subprocess.run([sys.executable, SCRIPT, "--help"], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0)
        for name in list(fdb_sim.NAMED) + list(fdb_sim.RESOLVERS) + [fdb_sim.CHECKED_MODE, "--tests", "--keep-logs"]:
            self.assertIn(name, proc.stdout)


if __name__ == "__main__":
    unittest.main()
