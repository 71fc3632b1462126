// Stand-in for FoundationDB's fdbclient/SystemData.h for the standalone skip-list comparator: ConflictSet.cpp
// includes it but uses nothing of it beyond the key types. Not FoundationDB's code; see README.md beside
// this folder.
#pragma once

#include "fdbclient/FDBTypes.h"
