# thread-cpu.py SECONDS: every 5 s, for each fdbserver process of class resolution on this host (containers share the
# kernel), the CPU ticks (10 ms) each of its threads used (net: the network thread, whose id is the process id), and the
# network thread's run time, run-queue wait (/proc/PID/task/PID/schedstat) and voluntary / involuntary context switches
# over those 5 s. Run beside scripts/fdb-cluster-bench --resolver-cpu 1 (docs/latency.md, "The successor's first seconds").
import os,time,sys,collections
def procs():
    out=[]
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try: cmd=open(f'/proc/{p}/cmdline','rb').read().split(b'\0')
        except: continue
        if cmd and cmd[0].endswith(b'fdbserver') and b'resolution' in cmd: out.append(p)
    return out
def sample(pid):
    d=collections.Counter()
    try:
        for t in os.listdir(f'/proc/{pid}/task'):
            try:
                name=open(f'/proc/{pid}/task/{t}/comm').read().strip()
                f=open(f'/proc/{pid}/task/{t}/stat').read().rsplit(')',1)[1].split()
                d[('net' if t==pid else name)]+=int(f[11])+int(f[12])
            except: pass
        ss=open(f'/proc/{pid}/task/{pid}/schedstat').read().split()
        d['net_run_ms']=int(ss[0])//1000000; d['net_rq_wait_ms']=int(ss[1])//1000000
        for l in open(f'/proc/{pid}/task/{pid}/status'):
            if l.startswith('voluntary_ctxt_switches'): d['net_vcsw']=int(l.split()[1])
            if l.startswith('nonvoluntary_ctxt_switches'): d['net_nvcsw']=int(l.split()[1])
    except: pass
    return d
prev={}
end=time.time()+float(sys.argv[1])
while time.time()<end:
    for pid in procs():
        s=sample(pid)
        if pid in prev:
            delta={k:v-prev[pid].get(k,0) for k,v in s.items() if v-prev[pid].get(k,0)>0}
            if delta.get('net',0)+delta.get('C2 CompilerThre',0)>3:
                print(time.strftime('%H:%M:%S'), pid, ' '.join(f'{k}={v}' for k,v in sorted(delta.items(), key=lambda x:-x[1])[:12]), flush=True)
        prev[pid]=s
    time.sleep(5)
