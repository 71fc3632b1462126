// Stand-in for FoundationDB's fdbclient/FDBTypes.h for the standalone skip-list comparator: Version, keys
// and key ranges. As in FoundationDB, a range whose begin sorts after its end is refused with inverted_range.
// Not FoundationDB's code; see README.md beside this folder.
#ifndef FDBRESOLVER_STANDIN_FDBCLIENT_FDBTYPES_H
#define FDBRESOLVER_STANDIN_FDBCLIENT_FDBTYPES_H
#pragma once

#include <cstdint>

#include "flow/flow.h"

using Version = int64_t;
using KeyRef = StringRef;
using Key = Standalone<StringRef>;

struct KeyRangeRef {
	KeyRef begin, end;

	KeyRangeRef() = default;
	KeyRangeRef(const KeyRef& begin, const KeyRef& end) : begin(begin), end(end) {
		if (begin > end)
			throw inverted_range();
	}
	/** A copy of `from`'s keys in `arena`. */
	KeyRangeRef(Arena& arena, const KeyRangeRef& from) : begin(arena, from.begin), end(arena, from.end) {}

	bool operator==(const KeyRangeRef& r) const { return begin == r.begin && end == r.end; }
	bool operator!=(const KeyRangeRef& r) const { return !(*this == r); }
	bool empty() const { return begin == end; }
};

#endif
