// Stand-in for FoundationDB's flow/SimBugInjector.h for the standalone skip-list comparator. flow's bug
// injector hands out a bug only inside its simulator, when enabled; outside it get() returns an empty
// pointer, and ConflictBatch then never injects a fault. The comparator runs outside the simulator, so here
// get() always returns an empty pointer. Not FoundationDB's code; see README.md beside this folder.
#ifndef FDBRESOLVER_STANDIN_FLOW_SIMBUGINJECTOR_H
#define FDBRESOLVER_STANDIN_FLOW_SIMBUGINJECTOR_H
#pragma once

#include <memory>

class ISimBug {
public:
	virtual ~ISimBug() = default;
	/** Counts an injected fault's effect (never called outside the simulator). */
	void hit() { hits_++; }

private:
	long hits_ = 0;
};

class IBugIdentifier {
public:
	virtual ~IBugIdentifier() = default;
	virtual std::shared_ptr<ISimBug> create() const = 0;
};

class SimBugInjector {
public:
	template <class T>
	std::shared_ptr<T> get(const IBugIdentifier&) const {
		return nullptr;
	}
};

#endif
