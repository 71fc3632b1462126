// Stand-in for FoundationDB's flow/flow.h for the standalone skip-list comparator: the few general pieces
// ConflictSet.cpp names (Void and a ready Future for its unit test's signature, the deterministic random
// source its bug injection and benchmark draw from, format). Not FoundationDB's code; see README.md beside
// this folder. Like flow.h, it also brings the standard containers flow's users rely on it for.
#ifndef FDBRESOLVER_STANDIN_FLOW_FLOW_H
#define FDBRESOLVER_STANDIN_FLOW_FLOW_H
#pragma once

#include <cstdarg>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flow/Arena.h"
#include "flow/Error.h"
#include "flow/FastAlloc.h"
#include "flow/Platform.h"

struct Void {};

/** Only ready values: nothing here waits (the unit test's body returns Void()). */
template <class T>
class Future {
public:
	Future(const T& value) : value_(value) {}
	const T& get() const { return value_; }

private:
	T value_;
};

class IRandom {
public:
	virtual ~IRandom() = default;
	/** In [0, 1). */
	virtual double random01() = 0;
	/** In [min, maxPlusOne). */
	virtual int randomInt(int min, int maxPlusOne) = 0;
};

/** The process's seeded random source (fixed seed: runs repeat). */
IRandom* deterministicRandom();

std::string format(const char* form, ...) __attribute__((format(printf, 1, 2)));

#endif
