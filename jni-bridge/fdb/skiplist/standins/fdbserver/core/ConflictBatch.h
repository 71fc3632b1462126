// Stand-in for FoundationDB's fdbserver/core/ConflictBatch.h for the standalone skip-list comparator: the
// base of ConflictBatch, which only names the commit results. Not FoundationDB's code; see README.md
// beside this folder.
#ifndef FDBRESOLVER_STANDIN_FDBSERVER_CONFLICTBATCH_H
#define FDBRESOLVER_STANDIN_FDBSERVER_CONFLICTBATCH_H
#pragma once

#include <cstdint>

struct ConflictBatchStatus {
	enum TransactionCommitResult : uint8_t {
		TransactionConflict = 0,
		TransactionTooOld,
		TransactionUnusedResultValue1,
		TransactionCommitted,
		TransactionLockReject,
	};
};

#endif
