// The out-of-line parts of the flow stand-ins (this folder's headers) for the standalone skip-list
// comparator. Not FoundationDB's code; see README.md beside this folder.
#include <sched.h>
#include <time.h>

#include <cstdarg>
#include <cstdio>
#include <random>
#include <vector>

#include "fdbserver/resolver/ResolverBug.h"
#include "flow/flow.h"

double timer() {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return double(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

void setAffinity(int proc) {
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(proc, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

void assertionFailed(const char* condition, const char* file, int line) {
	// As FoundationDB does: the failed condition traced (here, on stderr), then internal_error thrown, which
	// the comparator reports as its error and exit code.
	std::fprintf(stderr, "assertion failed: %s at %s:%d\n", condition, file, line);
	throw internal_error();
}

namespace {
class SeededRandom final : public IRandom {
public:
	explicit SeededRandom(uint64_t seed) : engine_(seed) {}
	double random01() override { return std::uniform_real_distribution<double>(0.0, 1.0)(engine_); }
	int randomInt(int min, int maxPlusOne) override {
		return std::uniform_int_distribution<int>(min, maxPlusOne - 1)(engine_);
	}

private:
	std::mt19937_64 engine_;
};
} // namespace

IRandom* deterministicRandom() {
	static SeededRandom random(1);
	return &random;
}

std::string format(const char* form, ...) {
	va_list args;
	va_start(args, form);
	va_list again;
	va_copy(again, args);
	int length = std::vsnprintf(nullptr, 0, form, args);
	va_end(args);
	std::vector<char> text(size_t(length > 0 ? length : 0) + 1);
	std::vsnprintf(text.data(), text.size(), form, again);
	va_end(again);
	return std::string(text.data(), size_t(length > 0 ? length : 0));
}

std::shared_ptr<ISimBug> ResolverBugID::create() const {
	return std::make_shared<ResolverBug>();
}
