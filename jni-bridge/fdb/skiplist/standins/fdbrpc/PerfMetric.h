// Stand-in for FoundationDB's fdbrpc/PerfMetric.h for the standalone skip-list comparator: the named
// seconds counters ConflictSet.cpp adds each phase's time to (the comparator prints them as phase-* lines).
// Not FoundationDB's code; see README.md beside this folder.
#ifndef FDBRESOLVER_STANDIN_FDBRPC_PERFMETRIC_H
#define FDBRESOLVER_STANDIN_FDBRPC_PERFMETRIC_H
#pragma once

#include <string>
#include <vector>

#include "flow/flow.h"

class PerfMetric {
public:
	PerfMetric(std::string name, double value) : name_(std::move(name)), value_(value) {}
	const std::string& name() const { return name_; }
	double value() const { return value_; }
	std::string formatted() const { return format("%.3g", value_); }

private:
	std::string name_;
	double value_;
};

class PerfDoubleCounter {
public:
	explicit PerfDoubleCounter(std::string name) : name_(std::move(name)) {}
	PerfDoubleCounter(std::string name, std::vector<PerfDoubleCounter*>& registry) : name_(std::move(name)) {
		registry.push_back(this);
	}
	void operator+=(double delta) { value_ += delta; }
	double getValue() const { return value_; }
	PerfMetric getMetric() const { return PerfMetric(name_, value_); }
	void clear() { value_ = 0; }

private:
	std::string name_;
	double value_ = 0;
};

#endif
