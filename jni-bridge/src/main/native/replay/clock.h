// Clocks for the native drivers' timings (fdbresolver-replay, and the skip-list comparator built inside
// FoundationDB's tree): wall time, and CPU time of the calling thread, which is where the engine runs
// (the JVM executes a call on the caller's thread; the skip list has no other).
#ifndef FDBRESOLVER_REPLAY_CLOCK_H
#define FDBRESOLVER_REPLAY_CLOCK_H

#include <time.h>

#include <cstdint>

namespace replay {

inline int64_t monotonicNanos() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline int64_t threadCpuNanos() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace replay

#endif
