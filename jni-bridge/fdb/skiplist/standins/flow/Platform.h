// Stand-in for FoundationDB's flow/Platform.h, written for fdbresolver's standalone skip-list comparator
// (scripts/build-skiplist): only what fdbserver/resolver/ConflictSet.cpp uses from it, with the same
// meaning. Not FoundationDB's code; see README.md beside this folder.
#ifndef FDBRESOLVER_STANDIN_FLOW_PLATFORM_H
#define FDBRESOLVER_STANDIN_FLOW_PLATFORM_H
#pragma once

#include <xmmintrin.h> // _mm_prefetch, as flow's platform header makes available

#define force_inline inline __attribute__((__always_inline__))

// GCC and clang have no __assume; flow maps it to "unreachable unless cond", which lets the compiler drop
// the switch's default in the skip list's CheckMax::advance. Same here, so the generated code matches.
#ifndef __assume
#define __assume(cond)                                                                                                 \
	do {                                                                                                               \
		if (!(cond))                                                                                                   \
			__builtin_unreachable();                                                                                   \
	} while (0)
#endif

// The allocation instrumentation is compiled out of FoundationDB's release builds, as here.
#define INSTRUMENT_ALLOCATE(name)
#define INSTRUMENT_RELEASE(name)

// Wall-clock seconds, as flow's timer() (CLOCK_REALTIME): ConflictSet.cpp reads it around each phase, so
// its cost is part of a batch's, as in FoundationDB.
double timer();

// Pins the calling thread to one core (only ConflictSet.cpp's unused benchmark calls it).
void setAffinity(int proc);

#endif
