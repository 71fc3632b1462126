#include "trace_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace replay {
namespace {

constexpr const char* kTraceFormat = "fdb-resolver-trace/1";
constexpr uint64_t kMaxMessageBytes = uint64_t(1) << 31;

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

/** Decodes the protobuf wire format of one message held in [p, end). */
class Wire {
public:
    Wire(const uint8_t* p, const uint8_t* end, const char* message) : p_(p), end_(end), message_(message) {}

    bool done() const { return p_ >= end_; }

    uint64_t varint() {
        uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p_ >= end_) bad("a varint runs past the end");
            uint8_t b = *p_++;
            value |= uint64_t(b & 0x7F) << shift;
            if ((b & 0x80) == 0) return value;
        }
        bad("a varint is longer than 10 bytes");
    }

    /** Reads a tag; returns the field number, the wire type in *type. */
    uint32_t tag(int* type) {
        uint64_t t = varint();
        *type = int(t & 7);
        if ((t >> 3) == 0 || (t >> 3) > 0x1FFFFFFF) bad("field number " + std::to_string(t >> 3));
        return uint32_t(t >> 3);
    }

    /** A length-delimited field: returns its bytes. */
    Wire sub(const char* what) {
        uint64_t n = varint();
        if (n > uint64_t(end_ - p_)) bad(std::string("a length-delimited field (") + what + ") runs past the end");
        Wire w(p_, p_ + n, what);
        p_ += n;
        return w;
    }

    KeyRef bytes(const char* what) {
        Wire w = sub(what);
        if (w.end_ - w.p_ > INT32_MAX) bad("a key is longer than 2 GiB");
        return KeyRef{w.p_, int(w.end_ - w.p_)};
    }

    void skip(int type) {
        switch (type) {
            case kVarint: varint(); return;
            case kFixed64: advance(8); return;
            case kFixed32: advance(4); return;
            case kLengthDelimited: sub("unknown field"); return;
            default: bad("unsupported wire type " + std::to_string(type));
        }
    }

    void expect(int type, int wanted, const char* field) {
        if (type != wanted) bad(std::string("field ") + field + " has wire type " + std::to_string(type));
    }

    [[noreturn]] void bad(const std::string& what) const {
        throw TraceError(std::string(message_) + ": " + what);
    }

private:
    void advance(size_t n) {
        if (size_t(end_ - p_) < n) bad("a fixed-width field runs past the end");
        p_ += n;
    }

    const uint8_t* p_;
    const uint8_t* end_;
    const char* message_;
};

void decodeRange(Wire w, KeyRangeRef* range) {
    range->begin = KeyRef{};
    range->end = KeyRef{};
    while (!w.done()) {
        int type;
        uint32_t field = w.tag(&type);
        if (field == 1) {
            w.expect(type, kLengthDelimited, "KeyRange.begin");
            range->begin = w.bytes("KeyRange.begin");
        } else if (field == 2) {
            w.expect(type, kLengthDelimited, "KeyRange.end");
            range->end = w.bytes("KeyRange.end");
        } else {
            w.skip(type);
        }
    }
}

void decodeTransaction(Wire w, CommitTransactionRef* tr) {
    tr->read_snapshot = 0;
    tr->read_conflict_ranges.clear();
    tr->write_conflict_ranges.clear();
    tr->report_conflicting_keys = false;
    while (!w.done()) {
        int type;
        uint32_t field = w.tag(&type);
        switch (field) {
            case 1:
                w.expect(type, kVarint, "Transaction.read_snapshot");
                tr->read_snapshot = int64_t(w.varint());
                break;
            case 2:
            case 3: {
                w.expect(type, kLengthDelimited, field == 2 ? "Transaction.reads" : "Transaction.writes");
                auto& list = field == 2 ? tr->read_conflict_ranges : tr->write_conflict_ranges;
                list.emplace_back();
                decodeRange(w.sub("KeyRange"), &list.back());
                break;
            }
            case 4:
                w.expect(type, kVarint, "Transaction.report_conflicting_keys");
                tr->report_conflicting_keys = w.varint() != 0;
                break;
            default:
                w.skip(type);
        }
    }
}

}  // namespace

TraceReader::TraceReader(const std::string& path) : path_(path) {
    FILE* probe = std::fopen(path.c_str(), "rb");
    if (probe == nullptr) {
        throw TraceError(path + ": cannot open: " + std::strerror(errno));
    }
    unsigned char magic[2] = {0, 0};
    size_t got = std::fread(magic, 1, 2, probe);
    std::fclose(probe);
    compressed_ = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    // gzopen reads gzip (recognized by its magic) and passes any other file through unchanged.
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) {
        throw TraceError(path + ": cannot open");
    }
    gzbuffer(file_, 1 << 17);
    if (!readMessage()) {
        fail("empty file: no TraceHeader");
    }
    std::string where = path_ + ": header: malformed TraceHeader message";
    Wire w(buffer_.data(), buffer_.data() + messageLength_, where.c_str());
    std::string format;
    while (!w.done()) {
        int type;
        uint32_t field = w.tag(&type);
        if (field == 1 || field == 2) {
            w.expect(type, kLengthDelimited, field == 1 ? "TraceHeader.format" : "TraceHeader.workload");
            KeyRef text = w.bytes("TraceHeader");
            (field == 1 ? format : workload_).assign(reinterpret_cast<const char*>(text.data), text.length);
        } else {
            w.skip(type);
        }
    }
    if (format != kTraceFormat) {
        fail("not a resolver trace: header format is \"" + format + "\", expected \"" + kTraceFormat + "\"");
    }
    headerRead_ = true;
}

TraceReader::~TraceReader() {
    if (file_ != nullptr) gzclose(file_);
}

void TraceReader::fail(const std::string& what) const {
    // messageIndex_ counts the messages read so far: the header is message 0, batch b is message b + 1.
    std::string where = messageIndex_ <= 1 && !headerRead_ ? "header" : "batch " + std::to_string(messageIndex_ - 1);
    throw TraceError(path_ + ": " + where + ": " + what);
}

bool TraceReader::readMessage() {
    uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
        int c = gzgetc(file_);
        if (c < 0) {
            int code = 0;
            const char* why = gzerror(file_, &code);
            if (code != Z_OK && code != Z_STREAM_END) fail(std::string("cannot read: ") + why);
            if (shift == 0) return false;  // a clean end between messages
            fail("the file ends inside a length prefix");
        }
        if (shift >= 64) fail("a length prefix is longer than 10 bytes");
        length |= uint64_t(c & 0x7F) << shift;
        if ((c & 0x80) == 0) break;
    }
    if (length > kMaxMessageBytes) fail("a message claims " + std::to_string(length) + " bytes");
    if (buffer_.size() < length) buffer_.resize(length);
    size_t got = 0;
    while (got < length) {
        int n = gzread(file_, buffer_.data() + got, unsigned(std::min<uint64_t>(length - got, 1u << 30)));
        if (n < 0) {
            int code = 0;
            fail(std::string("cannot read: ") + gzerror(file_, &code));
        }
        if (n == 0) {
            fail("truncated: the message needs " + std::to_string(length) + " bytes, the file has " +
                 std::to_string(got));
        }
        got += size_t(n);
    }
    messageLength_ = length;
    messageIndex_++;
    return true;
}

bool TraceReader::next(Batch* batch) {
    if (!readMessage()) return false;
    std::string where = path_ + ": batch " + std::to_string(messageIndex_ - 2) + ": malformed Batch message";
    Wire w(buffer_.data(), buffer_.data() + messageLength_, where.c_str());
    batch->version = 0;
    batch->newOldestVersion = 0;
    batch->transactionCount = 0;
    while (!w.done()) {
        int type;
        uint32_t field = w.tag(&type);
        switch (field) {
            case 1:
                w.expect(type, kVarint, "Batch.version");
                batch->version = int64_t(w.varint());
                break;
            case 2:
                w.expect(type, kVarint, "Batch.new_oldest_version");
                batch->newOldestVersion = int64_t(w.varint());
                break;
            case 3:
                w.expect(type, kLengthDelimited, "Batch.transactions");
                if (batch->transactionCount == batch->transactions.size()) batch->transactions.emplace_back();
                decodeTransaction(w.sub("Transaction"), &batch->transactions[batch->transactionCount++]);
                break;
            default:
                w.skip(type);
        }
    }
    return true;
}

}  // namespace replay
