# find_skiplist_comparator [--cache DIR]: FoundationDB's skip list as a program, in the order of the Java side's
# FdbSkipListComparator (callers check FDBRESOLVER_FDB_SKIPLIST first, as it does):
#  1. the comparator of FoundationDB's full build (scripts/build-fdb): the reference wherever it exists, used
#     even when built from an older patch series (it still decides with FoundationDB's skip list);
#  2. else the standalone one (scripts/build-skiplist: FoundationDB's ConflictSet.cpp alone, about a minute),
#     when built from this checkout's sources.
# Returns 0 when one is found, 1 when none. Sets:
#   skiplist_comparator  its path, or empty
#   skiplist_from        build-fdb or build-skiplist
#   skiplist_note        build-fdb's "stale: ..." line when the full build is older than the checkout, else empty
#   skiplist_why_not     when none is found: what is missing and how to get it, in one line
find_skiplist_comparator() {
  local scripts status=0 where path err
  scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  skiplist_comparator="" skiplist_from="" skiplist_note="" skiplist_why_not=""
  err="$(mktemp)"
  where="$("$scripts/build-fdb" --where "$@" 2>"$err")" || status=$?
  path="$(sed -n 's/^fdb-skiplist: //p' <<<"$where")"
  if [[ -n "$path" && -x "$path" ]]; then
    skiplist_comparator="$path" skiplist_from=build-fdb
    [[ $status -eq 4 ]] && skiplist_note="$(cat "$err")"
    rm -f "$err"
    return 0
  fi
  skiplist_why_not="$(sed 's/^build-fdb: //; s/^not built: //' "$err")"
  rm -f "$err"
  [[ -n "$skiplist_why_not" ]] || skiplist_why_not="no ${path:-comparator} (scripts/build-fdb --where exited $status)"
  if where="$("$scripts/build-skiplist" --where "$@" 2>/dev/null)"; then
    path="$(sed -n 's/^fdb-skiplist: //p' <<<"$where")"
    if [[ -n "$path" && -x "$path" ]]; then
      skiplist_comparator="$path" skiplist_from=build-skiplist skiplist_why_not=""
      return 0
    fi
  fi
  skiplist_why_not+="; or build the standalone comparator from FoundationDB's ConflictSet.cpp alone in about a minute: scripts/build-skiplist"
  return 1
}

# prepare_skiplist_comparator: for scripts/test. The live checks against FoundationDB's skip list need a
# comparator, and SkipListComparatorsAgreeTest checks the standalone one against the full build's: wherever
# FoundationDB's source is here, the standalone one is built (scripts/build-skiplist --no-clone: the source found
# as build-fdb finds it, never cloned; about a minute, a no-op once built). Returns 0 when it is built, or when no
# source is here (build-skiplist's one line says so on stderr, and the tests say NOT RUN unless the full build or
# FDBRESOLVER_FDB_SKIPLIST gives a comparator); 1 when the source is here but the build failed.
prepare_skiplist_comparator() {
  local scripts status=0
  scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  "$scripts/build-skiplist" --no-clone >/dev/null || status=$?
  case $status in
    0) if [[ -z "${FDBRESOLVER_FDB_SKIPLIST+set}" ]] && ! { find_skiplist_comparator && [[ $skiplist_from == build-fdb ]]; }; then
         echo "test: FoundationDB is not built here: the live skip-list checks use the standalone comparator" \
              "(scripts/build-skiplist)" >&2
       fi ;;
    3) ;; # no FoundationDB source: build-skiplist said so
    *) echo "test: scripts/build-skiplist failed (exit $status) although FoundationDB's source is here" >&2
       return 1 ;;
  esac
  return 0
}

# skiplist_allocator COMPARATOR: how to run FoundationDB's skip list over the allocator fdbserver runs it over.
# fdbserver links jemalloc (FoundationDB's USE_JEMALLOC, statically), and over glibc's malloc the skip list took up to
# twice as long on the benchmark workloads as over jemalloc (custom-range 7.3-8.1 s against 3.6; docs/tree.md, "The
# skip list's allocator"), so a ratio against it flattered the engine. Both comparators link jemalloc themselves now
# (patch 0003 as fdbserver does; scripts/build-skiplist where libjemalloc.a is here); one built without it, or
# before, runs with libjemalloc.so.2 preloaded. Sets:
#   skiplist_run        the command prefix to run the comparator with: (env LD_PRELOAD=libjemalloc) or empty
#   skiplist_allocator  one line for the report: which allocator, and why
# FDBRESOLVER_SKIPLIST_MALLOC=system keeps glibc's malloc for a comparator that does not link jemalloc (to compare
# the two: scripts/build-skiplist on a machine without libjemalloc-dev builds one).
skiplist_allocator() {
  local comparator="$1" lib=""
  skiplist_run=()
  # jemalloc's messages start "<jemalloc>:", in every binary that links it, stripped or not.
  if grep -q -a -F '<jemalloc>' "$comparator" 2>/dev/null; then
    skiplist_allocator="jemalloc (linked in the comparator, as in fdbserver)"
    return 0
  fi
  if [[ "${FDBRESOLVER_SKIPLIST_MALLOC:-jemalloc}" == system ]]; then
    skiplist_allocator="glibc malloc (FDBRESOLVER_SKIPLIST_MALLOC=system; fdbserver runs the skip list over jemalloc)"
    return 0
  fi
  for lib in /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 \
             /usr/lib64/libjemalloc.so.2 /usr/lib/libjemalloc.so.2; do
    if [[ -f "$lib" ]]; then
      skiplist_run=(env "LD_PRELOAD=$lib")
      skiplist_allocator="jemalloc ($lib preloaded, as fdbserver links it)"
      return 0
    fi
  done
  skiplist_allocator="glibc malloc: no libjemalloc.so.2 here (apt-get install libjemalloc2); fdbserver runs the skip list over jemalloc, faster"
}
