#!/usr/bin/env python3
"""Two or more builds of fdbresolver (and FoundationDB's skip list) benched on one trace, alternated, ROUNDS times.

    BENCH_ARGS="--warmup 200 [--settle-jit]" ab.py TRACE ROUNDS NAME=WORKTREE[:OPTION=VALUE...][@JVM_OPTION...]... [NAME=SL]

Each NAME=WORKTREE is a checkout whose scripts/fdbresolver runs `bench TRACE --no-batch-cpu $BENCH_ARGS` (with the
engine options given, and the JVM options after @ in FDBRESOLVER_JAVA_OPTS); NAME=SL runs the skip list comparator
named by $FDBRESOLVER_FDB_SKIPLIST with $BENCH_ARGS. Prints, per variant, the best and the median of the whole and of
each phase, and which variants gave which decision hash. Used for docs/tree.md, "Experiments on tuple keys and the
flood".
"""
import subprocess, sys, statistics, re, os
trace=sys.argv[1]; rounds=int(sys.argv[2]); variants=[]
extra=os.environ.get('BENCH_ARGS','--warmup 200').split()
for a in sys.argv[3:]:
    name,rest=a.split('=',1); rest,_,jvmopts=rest.partition('@'); parts=rest.split(':')
    variants.append((name,parts[0],parts[1:]+[o for o in jvmopts.split('@') if o]))
env=dict(os.environ, JAVA_HOME=os.environ.get('JAVA_HOME', '/usr/lib/jvm/temurin-25-jdk-amd64'))
res={v[0]:[] for v in variants}; hashes={}
SL=os.environ.get('FDBRESOLVER_FDB_SKIPLIST', '')
for r in range(rounds):
    for name,root,opts in variants:
        if root=='SL':
            # Over jemalloc, as fdbserver runs its skip list (docs/tree.md, "The skip list's allocator"): linked in
            # the comparator since 2026-12-06, preloaded into one built before.
            je='/usr/lib/x86_64-linux-gnu/libjemalloc.so.2'
            linked=b'<jemalloc>' in open(SL,'rb').read()
            preload=not linked and os.environ.get('FDBRESOLVER_SKIPLIST_MALLOC')!='system' and os.path.exists(je)
            cmd=(['env','LD_PRELOAD='+je] if preload else [])+[SL,trace]+extra
        else:
            cmd=[root+'/scripts/fdbresolver','bench',trace,'--no-batch-cpu']+extra+['--engine-option='+o for o in opts if not o.startswith(('-X', '-D'))]
        venv=dict(env)
        jvm=[o for o in opts if o.startswith(('-X', '-D'))]
        if jvm: venv['FDBRESOLVER_JAVA_OPTS']=' '.join(jvm)
        out=subprocess.run(cmd,capture_output=True,text=True,env=venv).stdout
        d={}
        for k in ('seconds','phase-sort','phase-checkRead','phase-mergeWrite','phase-removeBefore','history-bytes','decision-hash','latency-p99','latency-max'):
            m=re.search(r'^'+k+r': (\S+)',out,re.M)
            if m: d[k]=m.group(1)
        res[name].append(d); hashes.setdefault(d.get('decision-hash'),[]).append(name)
def col(name,k): return [float(d[k]) for d in res[name] if k in d]
print(f"{trace} rounds={rounds}")
for name,_,_ in variants:
    row=[]
    for k in ('seconds','phase-sort','phase-checkRead','phase-mergeWrite','phase-removeBefore'):
        c=col(name,k)
        if not c: continue  # the skip list's comparator prints no phases
        row.append(f"{k.replace('phase-','')} best {min(c):.3f} med {statistics.median(c):.3f}")
    print(f"  {name:10s} "+" | ".join(row)+f" | hist {res[name][0].get('history-bytes')}")
print("  hashes:", {k[:12] if k else None:sorted(set(v)) for k,v in hashes.items()})
