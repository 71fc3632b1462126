// Stand-in for FoundationDB's fdbclient/CommitTransaction.h for the standalone skip-list comparator:
// CommitTransactionRef with the members the Resolver's conflict check reads (its mutations, tenant ids and
// span context, which the conflict set never reads, are left out). Not FoundationDB's code; see README.md
// beside this folder.
#ifndef FDBRESOLVER_STANDIN_FDBCLIENT_COMMITTRANSACTION_H
#define FDBRESOLVER_STANDIN_FDBCLIENT_COMMITTRANSACTION_H
#pragma once

#include "fdbclient/FDBTypes.h"

struct CommitTransactionRef {
	VectorRef<KeyRangeRef> read_conflict_ranges;
	VectorRef<KeyRangeRef> write_conflict_ranges;
	Version read_snapshot = 0;
	bool report_conflicting_keys = false;
	bool lock_aware = false;
};

#endif
