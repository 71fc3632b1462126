// Stand-in for FoundationDB's fdbrpc/fdbrpc.h for the standalone skip-list comparator: ConflictSet.cpp
// includes it but uses nothing of it beyond flow's basics. Not FoundationDB's code; see README.md beside
// this folder.
#pragma once

#include "flow/flow.h"
