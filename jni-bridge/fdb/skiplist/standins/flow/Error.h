// Stand-in for FoundationDB's flow/Error.h for the standalone skip-list comparator: an Error that carries
// flow's error name, and ASSERT, which FoundationDB keeps in release builds (a failed one throws
// internal_error there too). Not FoundationDB's code; see README.md beside this folder.
#ifndef FDBRESOLVER_STANDIN_FLOW_ERROR_H
#define FDBRESOLVER_STANDIN_FLOW_ERROR_H
#pragma once

#include <exception>

class Error : public std::exception {
public:
	explicit Error(const char* name) : name_(name) {}
	const char* what() const noexcept override { return name_; }
	const char* name() const { return name_; }

private:
	const char* name_; // a string literal: flow's error names are static
};

inline Error internal_error() {
	return Error("internal_error");
}
inline Error inverted_range() {
	return Error("inverted_range");
}

// Out of line so that the checks in the skip list's hot loops stay one compare and a rarely taken branch.
[[noreturn]] void assertionFailed(const char* condition, const char* file, int line);

#define ASSERT(condition)                                                                                              \
	do {                                                                                                               \
		if (!(condition)) [[unlikely]]                                                                                 \
			assertionFailed(#condition, __FILE__, __LINE__);                                                           \
	} while (0)

#endif
