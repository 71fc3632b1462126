"""fdb-sim as a package: scripts/fdb-sim is its entry point (and its docstring the user's guide).

Modules, in the order they depend on each other: config (what runs: checked mode, budget, named tests,
resolvers, faults), testlist (FoundationDB's tests/CMakeLists.txt and what --tests names), simulation (one run of
fdbserver, its logs, the bridge), results (results.jsonl, for resuming), schedule (stock first, then the others,
on --jobs workers), report (the per-test tables) and cli (the command line). Checked by
`python3 -m unittest discover -s scripts/tests`.
"""
