// Stand-in for FoundationDB's flow/UnitTest.h for the standalone skip-list comparator: TEST_CASE compiles
// the test's body as an unused function, as flow does when its unit tests are disabled; the comparator
// runs none. Not FoundationDB's code; see README.md beside this folder.
#ifndef FDBRESOLVER_STANDIN_FLOW_UNITTEST_H
#define FDBRESOLVER_STANDIN_FLOW_UNITTEST_H
#pragma once

#include "flow/flow.h"

struct UnitTestParameters {};

#define FDBRESOLVER_STANDIN_CONCAT2(a, b) a##b
#define FDBRESOLVER_STANDIN_CONCAT(a, b) FDBRESOLVER_STANDIN_CONCAT2(a, b)
#define TEST_CASE(name)                                                                                                \
	[[maybe_unused]] static Future<Void> FDBRESOLVER_STANDIN_CONCAT(disabledTestCase, __LINE__)(                       \
	    [[maybe_unused]] const UnitTestParameters& params)

#endif
