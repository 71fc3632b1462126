#!/usr/bin/env python3
"""Turns run.sh's output into docs/latency.md's "Against the targets" tables.

Per trace and side, of the two rounds: p50 and p99 from the run with the lower p99, the slowest batch as the
lower of the two runs' slowest (as the 2026-12-04 table did), in CPU time of the resolving thread and in wall
time. Targets (issue 31): engine p99 <= the skip list's p99; engine slowest <= 2x the skip list's slowest;
engine slowest <= 10x its own median."""
import re
import sys
from collections import defaultdict

runs = defaultdict(list)  # (trace, side) -> [fields]
cur = None
for line in open(sys.argv[1] if len(sys.argv) > 1 else '/dev/stdin'):
    m = re.match(r'== r(\d+) (\S+) (\S+)', line)
    if m:
        cur = {}
        runs[(m.group(2), m.group(3))].append(cur)
        continue
    m = re.match(r'([a-z0-9.-]+): (\S+)', line)
    if m and cur is not None:
        cur.setdefault(m.group(1), m.group(2))


def best(rs, kind):
    rs = [r for r in rs if 'cpu-latency-max' in r]  # a run cut short has no latency lines
    pre = 'cpu-latency-' if kind == 'cpu' else 'latency-'
    low = min(rs, key=lambda r: float(r[pre + 'p99']))
    return (float(low[pre + 'p50']), float(low[pre + 'p99']), min(float(r[pre + 'max']) for r in rs))


def skiplist_of(trace):
    return ('lt3000', 'skiplist') if trace.startswith('lt3000-') else (trace, 'skiplist')


order = ['csr', 'csp', 'skl', 'cp', 'cr', 'lt', 'tuple-12', 'lt3000-16m', 'lt3000-128m', 'lt3000-1g']
names = {'csr': 'conflictset-range', 'csp': 'conflictset-point', 'skl': 'skiplisttest', 'cp': 'custom-point',
         'cr': 'custom-range', 'lt': 'longtrace (1,000 batches)', 'tuple-12': 'tuple keys, 12 subspaces',
         'lt3000-16m': 'longtrace, 16 MiB budget', 'lt3000-128m': 'longtrace, 128 MiB budget',
         'lt3000-1g': 'longtrace, 1 GiB budget (does not bind)'}
for kind in ('cpu', 'wall'):
    print(f'\n{kind.upper()} time per batch, ms: p50 / p99 / slowest; targets: p99 <= skip list, slowest <= 2x skip list, slowest <= 10x own p50\n')
    print('| trace | skip list | engine | p99 engine / skip list | slowest engine / skip list | slowest / p50 | engine settled | p99 / skip list | slowest / skip list | slowest / p50 |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    met = defaultdict(int)
    for t in order:
        sl = runs.get(skiplist_of(t))
        if not sl or not all(any('cpu-latency-max' in r for r in runs.get(k, [])) for k in
                             (skiplist_of(t), (t, 'tree'), (t, 'settled'))):
            continue
        s = best(sl, kind)
        row = f'| {names[t]} | {s[0]:.2f} / {s[1]:.2f} / {s[2]:.2f}'
        for side in ('tree', 'settled'):
            e = best(runs[(t, side)], kind)
            r99, rmax, rmed = e[1] / s[1], e[2] / s[2], e[2] / e[0]
            for k, ok in (('p99', r99 <= 1), ('max', rmax <= 2), ('med', rmed <= 10)):
                met[(side, k)] += ok
            row += f' | {e[0]:.2f} / {e[1]:.2f} / {e[2]:.2f} | {r99:.2f} | {rmax:.2f} | {rmed:.1f}'
        print(row + ' |')
    print('\nrows meeting each target (plain, settled): ' + ', '.join(
        f'{k} {met[("tree", k)]}/{met[("settled", k)]}' for k in ('p99', 'max', 'med')))

lt = {b: runs.get((f'lt30k-{b}', 'settled')) for b in ('16m', '1g')}
if all(lt.values()):
    print('\nlongtrace of 30,000 batches (history past 1 GiB), engine settled, ms: p50 / p99 / slowest, CPU and wall\n')
    for b, rs in lt.items():
        c, w = best(rs, 'cpu'), best(rs, 'wall')
        r = rs[0]
        print(f'{b}: CPU {c[0]:.2f} / {c[1]:.2f} / {c[2]:.2f}, wall {w[0]:.2f} / {w[1]:.2f} / {w[2]:.2f}, '
              f'history {int(r["history-bytes"]):,} B, full sweeps {r.get("full-sweep-evictions")}')
    c16, c1g = best(lt['16m'], 'cpu')[2], best(lt['1g'], 'cpu')[2]
    w16, w1g = best(lt['16m'], 'wall')[2], best(lt['1g'], 'wall')[2]
    print(f'slowest at 1 GiB / slowest at 16 MiB: CPU {c1g / c16:.2f}, wall {w1g / w16:.2f} (target <= 2)')
