// Streams a resolver trace (docs/formats.md): length-delimited protobuf messages, one TraceHeader
// then one Batch per resolver batch, optionally gzip-compressed (zlib recognizes the magic 1f 8b).
//
// Why the protobuf wire format is decoded by hand here, rather than by protoc-generated C++ classes.
// Measured (fdbresolver-decode-bench, docs/fdb-integration.md): on the golden traces this reader decodes
// as fast as protobuf's C++ runtime parsing into one reused Batch message (0.8-1.05x its time), 1.5-3.1x
// faster than a fresh arena per batch and 3.7-5.6x faster than a fresh message per batch, the usual
// idiom; and it allocates nothing per batch (a few allocations per file while its one message buffer
// grows), where a fresh message makes 51-32,513 allocations per batch and an arena 6-10,130. So it is
// not faster than protobuf used at its best; it stays because it needs nothing beside zlib (no
// libprotobuf or protoc in the bridge's build, no second protobuf version beside protobuf-java's), it
// hands out keys as FoundationDB's KeyRef shape pointing into the message buffer (no std::string per
// key), and it reports a damaged trace in the Java reader's words (protobuf's C++ parser says only that
// parsing failed). Decoding stays streaming and allocation-free either way: one message buffer and one
// Batch, whose vectors keep their capacity from batch to batch. The Java side decodes the same way
// (BatchWireDecoder).
//
// Decoding follows protobuf's rules for this schema: fields in any order, the last scalar wins, a
// known field number with another wire type is an unknown field, unknown fields are skipped. Errors
// use the Java reader's wording (org.fdbresolver.harness.trace), so both name the same fault alike.
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

/**
 * A trace that cannot be read: one line naming the file and, for a damaged trace, the message at fault
 * ("trace header" or "batch N", batches counted from 0), e.g. "cannot open t.trace: No such file or
 * directory" or "t.trace: batch 3: truncated message: wanted 176 bytes, got 88".
 */
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/**
 * Reads a trace file, or a capture's folder (docs/capture.md) as one trace: its segments
 * segment-NNNNNN.trace.gz in order, each one's header checked to continue the chain (a capture's, numbered as
 * its file, of the same chain, naming the previous segment). Batches are counted across the chain; errors name
 * the segment's file.
 */
class TraceReader {
public:
    /** Opens the file (or the capture folder's first segment) and reads its header; throws TraceError. */
    explicit TraceReader(const std::string& path);
    ~TraceReader();
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    /** Reads the next batch into *batch; false at the end of the trace. Throws TraceError. */
    bool next(Batch* batch);

    const std::string& workload() const { return workload_; }

    /** For a capture folder, its first segment's number (above 0 once rotation deleted the oldest); else -1. */
    int firstSegment() const { return segments_.empty() ? -1 : segmentNumbers_.front(); }

private:
    /** Opens path_ and reads and checks its header. */
    void openFile();
    /** Reads one length-delimited message into buffer_; false at a clean end of file. */
    bool readMessage();
    /** Why zlib stopped reading (a cut or corrupt gzip stream, an I/O error), or "" at a plain end. */
    std::string readFailure() const;
    [[noreturn]] void fail(const std::string& what) const;

    std::string path_;
    gzFile file_ = nullptr;
    std::vector<uint8_t> buffer_;
    size_t messageLength_ = 0;
    /** Messages read so far: the header is message 0, batch b is message b + 1. */
    uint64_t messageIndex_ = 0;
    bool headerRead_ = false;
    std::string workload_;
    /** A capture folder's segment files in order and their numbers (empty for one file), and the one being read. */
    std::vector<std::string> segments_;
    std::vector<int> segmentNumbers_;
    size_t segment_ = 0;
    /** Batches of the segments before this one; the header's capture_chain and segment (a capture's). */
    uint64_t batchBase_ = 0;
    std::string chain_;
    std::string segmentParam_;
    std::string previousSegmentParam_;
};

/**
 * Traces back to back on a file descriptor, read as they arrive: what `fdbresolver fuzz` writes into the
 * skip-list comparator's stdin (fdbresolver-fdb-skiplist --stream, docs/formats.md "Streams"). Each trace
 * is a TraceHeader and then its batches, with the trace file's framing but never gzip; a message whose
 * first field is field 1 with wire type 2 (a TraceHeader's format string; a Batch's field 1 is a varint)
 * starts the next trace. Unlike TraceReader, which reads through zlib and so waits for a full buffer, this
 * returns a message as soon as its last byte has arrived, so a writer may send one batch and wait for its
 * answer. Allocation-free per message once its buffer has grown to the largest message.
 */
class TraceStream {
public:
    enum Kind { kEnd, kHeader, kBatch };

    /** `name` names the stream in errors ("stdin"). */
    TraceStream(int fd, std::string name);
    TraceStream(const TraceStream&) = delete;
    TraceStream& operator=(const TraceStream&) = delete;

    /**
     * Reads the next message: kHeader (a new trace; workload() names it), kBatch (decoded into *batch, its keys
     * pointing into this stream's buffer until the next call) or kEnd at a clean end of the stream. Throws
     * TraceError naming the trace and batch: "stdin: trace 2: batch 5: truncated message: ...".
     */
    Kind next(Batch* batch);

    const std::string& workload() const { return workload_; }
    /** Traces begun so far (1 after the first header). */
    uint64_t traces() const { return traces_; }

private:
    /** Reads until at least `need` bytes are buffered from start_; false if the stream ends first. */
    bool fill(size_t need);
    [[noreturn]] void fail(const std::string& what) const;

    int fd_;
    std::string name_;
    std::vector<uint8_t> buffer_;
    size_t start_ = 0;
    size_t end_ = 0;
    uint64_t traces_ = 0;
    /** Batches of the current trace read so far. */
    uint64_t batches_ = 0;
    bool inHeader_ = false;
    std::string workload_;
};

}  // namespace replay

#endif
