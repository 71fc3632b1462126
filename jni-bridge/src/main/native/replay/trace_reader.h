// Streams a resolver trace (docs/formats.md): length-delimited protobuf messages, one
// TraceHeader then one Batch per resolver batch, optionally gzip-compressed (zlib recognizes the
// magic 1f 8b). The protobuf wire format is decoded by hand, so no protoc is needed. Batches are
// decoded into FoundationDB-shaped types whose keys point into the message buffer (no copy): they
// stay valid until the next call to next().
#ifndef FDBRESOLVER_REPLAY_TRACE_READER_H
#define FDBRESOLVER_REPLAY_TRACE_READER_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <zlib.h>

namespace replay {

/** FDB's StringRef/KeyRef: begin() and size(). */
struct KeyRef {
    const uint8_t* data = nullptr;
    int length = 0;
    const uint8_t* begin() const { return data; }
    int size() const { return length; }
};

/** FDB's KeyRangeRef: begin and end keys. */
struct KeyRangeRef {
    KeyRef begin;
    KeyRef end;
};

/** FDB's CommitTransactionRef, the members the resolver reads. */
struct CommitTransactionRef {
    int64_t read_snapshot = 0;
    std::vector<KeyRangeRef> read_conflict_ranges;
    std::vector<KeyRangeRef> write_conflict_ranges;
    bool report_conflicting_keys = false;
};

struct Batch {
    int64_t version = 0;
    int64_t newOldestVersion = 0;
    /** transactions[0 .. transactionCount); later entries are kept for reuse. */
    std::vector<CommitTransactionRef> transactions;
    size_t transactionCount = 0;
};

/** A malformed trace: what and where. */
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class TraceReader {
public:
    /** Opens the file and reads its header; throws TraceError. */
    explicit TraceReader(const std::string& path);
    ~TraceReader();
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    /** Reads the next batch into *batch; false at the end of the trace. Throws TraceError. */
    bool next(Batch* batch);

    const std::string& workload() const { return workload_; }
    bool compressed() const { return compressed_; }

private:
    /** Reads one length-delimited message into buffer_; false at a clean end of file. */
    bool readMessage();
    [[noreturn]] void fail(const std::string& what) const;

    std::string path_;
    gzFile file_ = nullptr;
    bool compressed_ = false;
    std::vector<uint8_t> buffer_;
    size_t messageLength_ = 0;
    uint64_t messageIndex_ = 0;
    bool headerRead_ = false;
    std::string workload_;
};

}  // namespace replay

#endif
