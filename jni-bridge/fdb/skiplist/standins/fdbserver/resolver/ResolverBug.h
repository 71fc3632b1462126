// Stand-in for FoundationDB's fdbserver/resolver/ResolverBug.h for the standalone skip-list comparator: the
// Resolver's injectable faults (never injected outside FoundationDB's simulator; flow/SimBugInjector.h).
// Not FoundationDB's code; see README.md beside this folder.
#ifndef FDBRESOLVER_STANDIN_FDBSERVER_RESOLVERBUG_H
#define FDBRESOLVER_STANDIN_FDBSERVER_RESOLVERBUG_H
#pragma once

#include <memory>

#include "flow/SimBugInjector.h"

struct ResolverBug : public ISimBug {
	double ignoreTooOldProbability = 0.0;
	double ignoreWriteSetProbability = 0.0;
	double ignoreReadSetProbability = 0.0;
};

class ResolverBugID : public IBugIdentifier {
public:
	std::shared_ptr<ISimBug> create() const override;
};

#endif
