"""fdb-sim: what it runs (the checked mode, the plugin's budget and JVM, the named tests, resolvers and faults), and
the two helpers every part uses (say, UsageError)."""
import dataclasses
import re
import sys

# The checked mode: the plugin and FoundationDB's skip list both decide every batch, and the Resolver sends the
# plugin's answer only where both agree (mode=guarded: the first difference is a SevError, and the skip list goes
# on alone), with the plugin's counters left out of ResolverMetrics so that a run can reproduce the stock run's
# unseed. The one place this configuration is written.
CHECKED_MODE = "mode=guarded;resolver_metrics=0"

# The plugin's own JVM: quick to start, the simulation's one busy thread beside it. Every simulated process shares
# one JVM, and each open checks that its heap holds every open resolver's history bound (the budget and a
# sixteenth) plus 64 MiB of working memory: 2 GiB holds a dozen 64 MiB resolvers alive at once (several
# generations of several resolvers each, across recoveries), far more than a simulated cluster's 5 s window needs.
PLUGIN_BUDGET = "64m"
PLUGIN_JVM = "jvm_option=-Xmx2g;jvm_option=-XX:+UseSerialGC;jvm_option=-XX:TieredStopAtLevel=1"


@dataclasses.dataclass(frozen=True)
class NamedTest:
    name: str
    file: str  # under the FoundationDB source
    what: str
    configuration: str = ""  # lines added to the test's [configuration]
    expect: str = "pass"
    replace: tuple = ()  # (text, replacement) pairs applied to the file, each text required to occur


NAMED_TESTS = [
    NamedTest("conflict-range", "tests/rare/ConflictRangeCheck.toml",
              "ConflictRange: random conflict ranges checked against a model of the conflict rules"),
    NamedTest("conflict-range-ryow", "tests/rare/ConflictRangeRYOWCheck.toml",
              "ConflictRange through read-your-writes transactions"),
    NamedTest("cycle", "tests/fast/CycleTest.toml",
              "Cycle: a ring of keys stays one cycle under clogging, rollbacks and attrition"),
    NamedTest("increment", "tests/fast/IncrementTest.toml",
              "Increment: concurrent increments all counted (serializable counters)"),
    NamedTest("serializability", "tests/slow/Serializability.toml",
              "Serializability: random transactions checked against a serial replay"),
    NamedTest("report-conflicting-keys", "tests/fast/ReportConflictingKeys.toml",
              "ReportConflictingKeys: the conflicting ranges a client is told"),
    NamedTest("cycle-3-resolvers", "tests/fast/CycleTest.toml",
              "Cycle with three resolvers (the key space split between them)", "resolverCount = 3"),
    NamedTest("txn-timeout-15", "tests/fast/TxnTimeout.toml",
              "TxnTimeout as shipped: 7 s transactions under a 15 s window, beside Cycle at 250 transactions/s for 360 s"),
    NamedTest("txn-timeout-60", "tests/fast/TxnTimeout.toml",
              "TxnTimeout with a 60 s window (both life knobs 60,000,000) and 30 s transactions",
              replace=(("= 15000000", "= 60000000"), ("txnMinDuration = 7", "txnMinDuration = 30"))),
    NamedTest("txn-timeout-300", "tests/fast/TxnTimeout.toml",
              "TxnTimeout with a 300 s window, 150 s transactions for 900 s, versions in flight raised to 600 s",
              replace=(("= 15000000", "= 300000000"), ("txnMinDuration = 7", "txnMinDuration = 150"),
                       ("testDuration = 360.0", "testDuration = 900.0"),
                       ("max_write_transaction_life_versions = 300000000",
                        "max_write_transaction_life_versions = 300000000\n# the proxy asserts the read window fits in "
                        "the versions in flight (100 s by default)\nmax_versions_in_flight = 600000000"))),
    NamedTest("cycle-broken", "tests/fast/CycleTest.toml",
              "Cycle with an engine that commits everything, deciding alone (mode=plugin): must FAIL",
              expect="fail"),
]
NAMED = {t.name: t for t in NAMED_TESTS}
# The long-window TxnTimeout variants take minutes to a quarter of an hour each: named on request only.
DEFAULT_TESTS = [t.name for t in NAMED_TESTS if t.expect == "pass" and not t.name.startswith("txn-timeout")]

RESOLVERS = {
    "stock": "FoundationDB's skip list, no plugin",
    "tree": "the tree engine in the checked mode",
    "reference": "the reference engine in the checked mode",
    "tree-single": "the tree with its one-descent read path, in the checked mode",
    "tree-metrics": "the tree as an operator runs it (mode=plugin, the metadata guard on): its figures in "
                    "ResolverMetrics; must reproduce stock's unseed",
    "tree-plugin": "the tree deciding alone (mode=plugin, the skip list guarding only the system keys), counters left "
                   "out of ResolverMetrics: the answers sent are the plugin's, and the run must reproduce stock's",
    "tree-capture": "the tree in the checked mode, capturing every batch into the run's folder (capture/)",
}


@dataclasses.dataclass(frozen=True)
class FaultCase:
    """A resolver that fails on purpose (issue 15): what the hook in FoundationDB's Resolver must survive. The run
    passes when the test passes (fdbserver exits 0 and logs no SevError but the ones the fault is expected to log),
    and a plugin event shows the hook saw the fault (expect_event, a pattern of the event's type)."""
    what: str
    settings: str  # the plugin's configuration, before the class path, budget and JVM options
    expect_event: str
    allowed_errors: tuple = ()
    library: str = None  # a library path instead of the bridge's (a missing one)
    class_path: str = None  # a class path instead of the bridge's (a wrong one)
    env: tuple = ()  # (name, value) pairs set in fdbserver's environment


# A room of 64 KiB beside the simulation's JVM for the skip list (issue 32, item 7): process_memory_limit less
# host_memory_reserve less what the JVM may take — its heap limit (PLUGIN_JVM's -Xmx2g under the Serial collector
# reports 2,075,918,336 bytes) and the bridge's allowance beside it (192 MiB and a sixteenth of the heap; HeapPlan).
# In shadow and guarded mode the skip list passes it within a minute of a Cycle run's simulated time, and the hook must
# then step the plugin aside. (In plugin mode the skip list holds only the metadata guard's system keys, 15-18 KB in
# Cycle: no fault there.)
SIM_JVM_MAX_HEAP = 2_075_918_336
SIM_SKIP_LIST_ROOM = 64 << 10
SIM_PROCESS_MEMORY_LIMIT = 3 << 30
SIM_ROOM_SETTINGS = (f"process_memory_limit={SIM_PROCESS_MEMORY_LIMIT};host_memory_reserve="
                     f"{SIM_PROCESS_MEMORY_LIMIT - SIM_SKIP_LIST_ROOM - (SIM_JVM_MAX_HEAP + (192 << 20) + SIM_JVM_MAX_HEAP // 16)}")

# The test-faulty engine (jni-bridge's test classes) fails from its 20th batch on, every batch, in each Resolver: well
# after the cluster came up, and again in every Resolver that recoveries recruit.
FAULTY = "engine=test-faulty;engine_option=after=20;engine_option=every=1;engine_option=fault="
FAULTS = {
    "fault-throw": FaultCase("the plugin throws on every batch from its 20th, deciding alone (mode=plugin)",
                             "mode=plugin;" + FAULTY + "throw", "Fallback"),
    "fault-throw-guarded": FaultCase("the same in guarded mode", "mode=guarded;" + FAULTY + "throw", "Fallback"),
    "fault-oom": FaultCase("the plugin runs its heap out (a real OutOfMemoryError), deciding alone",
                           "mode=plugin;" + FAULTY + "oom", "Fallback"),
    "fault-malformed": FaultCase("the plugin returns a malformed result (an index past a transaction's reads), deciding alone",
                                 "mode=plugin;" + FAULTY + "malformed", "Fallback"),
    "fault-wrong-commit": FaultCase("the plugin answers COMMIT for every CONFLICT, guarded: the skip list's answer is "
                                    "sent and it goes on alone; the one SevError is the hook's",
                                    "mode=guarded;" + FAULTY + "wrong-commit", r"PluginDiffers",
                                    allowed_errors=("ResolverConflictSetPluginDiffers",)),
    "fault-wrong-commit-shadow": FaultCase("the same in shadow mode: the skip list decides, the differences are counted",
                                           "mode=shadow;" + FAULTY + "wrong-commit", "ShadowDiffers"),
    "fault-wrong-commit-metadata": FaultCase("the plugin answers COMMIT for every CONFLICT of a transaction with a range "
                                             "in the system keys, deciding alone: the metadata guard sends the skip "
                                             "list's answer and it goes on alone; the one SevError is the guard's",
                                             "mode=plugin;" + FAULTY + "wrong-commit-system", r"MetadataDiffers",
                                             allowed_errors=("ResolverConflictSetPluginMetadataDiffers",)),
    "fault-no-conflicting-reads": FaultCase("the plugin answers a committing reporting transaction CONFLICT with no "
                                            "conflicting reads (the commit proxy would assert), deciding alone: caught "
                                            "as malformed (run it on report-conflicting-keys: Cycle reports none)",
                                            "mode=plugin;" + FAULTY + "no-conflicting-reads", "Fallback"),
    "fault-jvm-xms": FaultCase("the JVM's options would make HotSpot exit at start (-Xms above -Xmx): refused before "
                               "the JVM starts, the skip list decides", "mode=plugin;engine=tree;jvm_option=-Xms3g",
                               "OpenFailed"),
    "fault-jvm-environment-xms": FaultCase("the environment's _JAVA_OPTIONS=-Xms3g, above the simulation's -Xmx2g (HotSpot "
                                           "would exit at start): refused before the JVM starts, the skip list decides",
                                           "mode=plugin;engine=tree", "OpenFailed", env=(("_JAVA_OPTIONS", "-Xms3g"),)),
    "fault-jvm-trial-start": FaultCase("options only a start can refuse (two collectors: -XX:+UseG1GC beside the "
                                       "simulation's Serial one): the trial start in a child process fails, the JVM "
                                       "never starts in fdbserver, the skip list decides",
                                       "mode=plugin;engine=tree;jvm_option=-XX:+UseG1GC", "OpenFailed"),
    "fault-jvm-exit-option": FaultCase("a JVM option that ends the process on purpose (-XX:+ExitOnOutOfMemoryError): "
                                       "refused, the skip list decides",
                                       "mode=plugin;engine=tree;jvm_option=-XX:+ExitOnOutOfMemoryError", "OpenFailed"),
    "fault-capture-folder-full": FaultCase("a capture folder bound (256 KiB) far below what the run records, "
                                           "guarded: each Resolver's open and each new segment delete the oldest "
                                           "finished chains (warnings), nothing else changes",
                                           "mode=guarded;engine=tree;capture=capture;capture_queue_bytes=4m;"
                                           "capture_segment_bytes=64k;capture_max_bytes=128k;"
                                           "capture_folder_max_bytes=256k", "Warning"),
    "fault-skip-list-room": FaultCase("the skip list outgrows the process's room beside the JVM (64 KiB), guarded: "
                                      "the plugin steps aside before the process would pass --memory, and the skip "
                                      "list goes on alone", "mode=guarded;engine=tree;" + SIM_ROOM_SETTINGS, "Fallback"),
    "fault-skip-list-room-shadow": FaultCase("the same in shadow mode", "mode=shadow;engine=tree;" + SIM_ROOM_SETTINGS,
                                             "Fallback"),
    "fault-close-slow-capture": FaultCase("the plugin throws from its 20th batch, deciding alone, while its capture's "
                                          "writer is 20 ms a record behind (a slow disk): the fallback's close must "
                                          "return at once (the event's CloseSeconds), the writer finishing behind it",
                                          "mode=plugin;" + FAULTY + "throw;engine_option=capture_delay_millis=20;"
                                          "capture=capture;capture_queue_bytes=4m", "Fallback"),
    "fault-no-library": FaultCase("the plugin's library is missing", "mode=plugin;engine=tree", "OpenFailed",
                                  library="/nonexistent/libfdbresolver.so"),
    "fault-bad-class-path": FaultCase("the plugin's class path holds no engine", "mode=plugin;engine=tree", "OpenFailed",
                                      class_path="/nonexistent/*"),
}
RESOLVERS.update({name: f.what for name, f in FAULTS.items()})

# Resolvers whose runs must reproduce the stock run: every one that decides (the faults aside). tree-metrics too
# since the plugin's figures are details of ResolverMetrics, not counters (a counter draws a random UID when made).
CHECKED_RESOLVERS = ("tree", "reference", "tree-single", "tree-capture", "tree-plugin", "tree-metrics")
DEFAULT_RESOLVERS_NAMED = ["stock", "tree", "reference", "tree-metrics"]
DEFAULT_RESOLVERS_FILES = ["stock", "tree"]
BROKEN = "broken"  # the negative test's engine: commits everything
RECHECK = "stock-again"  # stock once more, when a checked resolver's unseed differed

# Plugin events that report the skip list beside the plugin deciding otherwise (ResolverConflictSetPluginDiffers,
# ...ShadowDiffers), and those that say the plugin did not decide (it did not open, or handed over to the skip
# list, which then decides alone: such a run can pass and reproduce the unseed without the plugin).
DIFFERENCE = re.compile(r"Differ|Disagree|Mismatch")
NOT_DECIDING = re.compile(r"OpenFailed|Fallback")
ROCKSDB_ENGINES = {"4", "5", "ssd-rocksdb-v1", "ssd-sharded-rocksdb"}


def say(message):
    print(f"fdb-sim: {message}", file=sys.stderr, flush=True)


class UsageError(Exception):
    pass
