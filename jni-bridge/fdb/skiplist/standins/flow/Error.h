// Stand-in for FoundationDB's flow/Error.h for the standalone skip-list comparator: an Error that carries
// flow's error name and description, and ASSERT, which FoundationDB keeps in release builds (a failed one
// throws internal_error, here too). Not FoundationDB's code; see README.md beside this folder.
#ifndef FDBRESOLVER_STANDIN_FLOW_ERROR_H
#define FDBRESOLVER_STANDIN_FLOW_ERROR_H
#pragma once

#include <exception>

class Error : public std::exception {
public:
	Error(const char* name, const char* description) : name_(name), description_(description) {}
	/** As flow's: the description ("Range begin key larger than end key"), which the comparator prints. */
	const char* what() const noexcept override { return description_; }
	/** As flow's: the error's name ("inverted_range"). */
	const char* name() const { return name_; }

private:
	const char* name_; // string literals: flow's errors are a static table
	const char* description_;
};

// The two errors this code can raise, with flow's names and descriptions (flow/error_definitions.h).
inline Error internal_error() {
	return Error("internal_error", "An internal error occurred");
}
inline Error inverted_range() {
	return Error("inverted_range", "Range begin key larger than end key");
}

// Throws internal_error. Out of line so that the checks in the skip list's hot loops stay one compare and a
// rarely taken branch.
[[noreturn]] void assertionFailed(const char* condition, const char* file, int line);

#define ASSERT(condition)                                                                                              \
	do {                                                                                                               \
		if (!(condition)) [[unlikely]]                                                                                 \
			assertionFailed(#condition, __FILE__, __LINE__);                                                           \
	} while (0)

#endif
