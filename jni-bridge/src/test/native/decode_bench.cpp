// fdbresolver-decode-bench: what decoding a trace costs with the replay driver's hand-written reader
// (src/main/native/replay/trace_reader.cpp) and with protobuf's C++ runtime, used three ways: one Batch
// message reused for every batch, a new message per batch, a new arena per batch. Every way reads the
// same uncompressed trace file and visits every key; the figures are per pass over the file, best of
// five after one pass that grows the reused objects; allocations are counted by replacing operator new.
// Not part of the build: CMake builds it with -DFDBRESOLVER_DECODE_BENCH=ON (docs/fdb-integration.md).
//
//   fdbresolver-decode-bench TRACE...   (plain traces: zcat testdata/golden/NAME.trace.gz > NAME.trace)
#include "trace.pb.h"
#include "trace_reader.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

static std::atomic<uint64_t> g_allocs{0};
void* operator new(size_t n) { g_allocs++; void* p = std::malloc(n ? n : 1); if (!p) throw std::bad_alloc(); return p; }
void* operator new[](size_t n) { g_allocs++; void* p = std::malloc(n ? n : 1); if (!p) throw std::bad_alloc(); return p; }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

struct Result { uint64_t batches = 0, keyBytes = 0, allocs = 0; double seconds = 0; };

Result handWritten(const std::string& path, replay::Batch& batch) {
    Result r;
    replay::TraceReader reader(path);
    uint64_t a0 = g_allocs;
    double t0 = now();
    while (reader.next(&batch)) {
        r.batches++;
        for (size_t t = 0; t < batch.transactionCount; t++) {
            for (auto& k : batch.transactions[t].read_conflict_ranges) r.keyBytes += k.begin.size() + k.end.size();
            for (auto& k : batch.transactions[t].write_conflict_ranges) r.keyBytes += k.begin.size() + k.end.size();
        }
    }
    r.seconds = now() - t0;
    r.allocs = g_allocs - a0;
    return r;
}

enum Mode { kReused, kFresh, kArena };

Result protobuf(const std::string& path, Mode mode, fdbresolver::trace::v1::Batch& reused) {
    Result r;
    int fd = open(path.c_str(), O_RDONLY);
    google::protobuf::io::FileInputStream file(fd, 1 << 17);
    google::protobuf::io::CodedInputStream in(&file);
    in.SetTotalBytesLimit(INT32_MAX);
    uint32_t len;
    in.ReadVarint32(&len);
    auto limit = in.PushLimit(int(len));
    fdbresolver::trace::v1::TraceHeader header;
    header.ParseFromCodedStream(&in);
    in.PopLimit(limit);
    uint64_t a0 = g_allocs;
    double t0 = now();
    while (in.ReadVarint32(&len)) {
        limit = in.PushLimit(int(len));
        google::protobuf::Arena* arena = mode == kArena ? new google::protobuf::Arena() : nullptr;
        fdbresolver::trace::v1::Batch* batch = mode == kReused ? &reused
            : mode == kArena ? google::protobuf::Arena::CreateMessage<fdbresolver::trace::v1::Batch>(arena)
                             : new fdbresolver::trace::v1::Batch();
        batch->Clear();
        if (!batch->MergeFromCodedStream(&in) || !in.ConsumedEntireMessage()) { std::fprintf(stderr, "parse error\n"); std::exit(1); }
        in.PopLimit(limit);
        r.batches++;
        for (const auto& tr : batch->transactions()) {
            for (const auto& k : tr.reads()) r.keyBytes += k.begin().size() + k.end().size();
            for (const auto& k : tr.writes()) r.keyBytes += k.begin().size() + k.end().size();
        }
        if (mode == kFresh) delete batch;
        delete arena;
    }
    r.seconds = now() - t0;
    r.allocs = g_allocs - a0;
    close(fd);
    return r;
}

int main(int argc, char** argv) {
    int runs = 5;
    std::printf("%-28s %8s %12s %12s %12s %12s | %14s %14s %14s %14s\n", "trace", "batches", "hand ms", "pb-reuse ms",
                "pb-fresh ms", "pb-arena ms", "hand allocs/b", "reuse allocs/b", "fresh allocs/b", "arena allocs/b");
    for (int i = 1; i < argc; i++) {
        Result best[4];
        // One Batch of each kind for all passes: from the second pass on, their vectors (and protobuf's
        // cleared elements and strings) have grown to the trace's largest batch: the steady state.
        replay::Batch handBatch;
        fdbresolver::trace::v1::Batch reused, unused;
        for (int run = 0; run <= runs; run++) {
            Result rs[4] = {handWritten(argv[i], handBatch), protobuf(argv[i], kReused, reused), protobuf(argv[i], kFresh, unused),
                            protobuf(argv[i], kArena, unused)};
            if (run == 0) continue;  // the first pass grows the reused objects
            for (int m = 0; m < 4; m++) {
                if (rs[m].keyBytes != rs[0].keyBytes) { std::fprintf(stderr, "key bytes differ\n"); return 1; }
                if (run == 1 || rs[m].seconds < best[m].seconds) best[m] = rs[m];
            }
        }
        std::string name = argv[i];
        name = name.substr(name.rfind('/') + 1);
        std::printf("%-28s %8lu %12.1f %12.1f %12.1f %12.1f | %14.1f %14.1f %14.1f %14.1f\n", name.c_str(),
                    (unsigned long)best[0].batches, best[0].seconds * 1e3, best[1].seconds * 1e3, best[2].seconds * 1e3,
                    best[3].seconds * 1e3, double(best[0].allocs) / best[0].batches, double(best[1].allocs) / best[1].batches,
                    double(best[2].allocs) / best[2].batches, double(best[3].allocs) / best[3].batches);
    }
}
