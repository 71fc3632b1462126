#include "trace_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace replay {
namespace {

constexpr const char* kTraceFormat = "fdb-resolver-trace/1";
constexpr const char* kDecisionFormat = "fdb-resolver-decisions/1";
/** protobuf's own limit for one message (the Java reader's DelimitedInput.MAX_MESSAGE_BYTES). */
constexpr uint64_t kMaxMessageBytes = 2147483647u - 8;
/** The message buffer grows at most this far ahead of the bytes read. */
constexpr uint64_t kGrowthChunk = uint64_t(64) << 20;

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

/** A malformed message: the reason, without the message's name (the reader adds it). */
struct WireError {
    std::string reason;
};

/**
 * Decodes the protobuf wire format of one message held in [p, end). Positions in errors count from
 * the start of the outermost message, as the Java reader's do.
 */
class Wire {
public:
    Wire(const uint8_t* p, const uint8_t* end, const uint8_t* origin) : p_(p), end_(end), origin_(origin) {}

    bool done() const { return p_ >= end_; }

    /** Reads a tag: the field number, the wire type in *type; the value's bounds are checked by value(). */
    uint32_t tag(int* type) {
        size_t at = offset();
        uint64_t t;
        if (!varint(&t)) bad("truncated tag at byte " + std::to_string(at));
        at_ = at;
        field_ = t >> 3;
        *type = int(t & 7);
        if (field_ == 0) bad("field number 0");
        if (*type != kVarint && *type != kFixed64 && *type != kLengthDelimited && *type != kFixed32) {
            bad(fieldName() + ": invalid wire type " + std::to_string(*type) + " at byte " + std::to_string(at_));
        }
        return field_ > 0x1FFFFFFF ? 0 : uint32_t(field_);  // 0: no field of this schema
    }

    uint64_t varintField() {
        uint64_t v;
        size_t at = offset();
        if (!varint(&v)) bad(fieldName() + ": truncated varint at byte " + std::to_string(at));
        return v;
    }

    /** A length-delimited field's bytes. */
    Wire sub() {
        size_t at = offset();
        uint64_t n;
        if (!varint(&n)) bad(fieldName() + ": truncated length at byte " + std::to_string(at));
        if (n > uint64_t(end_ - p_)) {
            bad(fieldName() + ": length " + std::to_string(n) + " at byte " + std::to_string(at_) +
                " runs past the end of the message");
        }
        Wire w(p_, p_ + n, origin_);
        p_ += n;
        return w;
    }

    KeyRef bytes() {
        Wire w = sub();
        return KeyRef{w.p_, int(w.end_ - w.p_)};
    }

    /** Skips the value of a field this schema does not have (or has with another wire type). */
    void skip(int type) {
        switch (type) {
            case kVarint: varintField(); return;
            case kFixed64: fixed(8, "8-byte"); return;
            case kFixed32: fixed(4, "4-byte"); return;
            default: sub(); return;
        }
    }

    [[noreturn]] void bad(const std::string& reason) const { throw WireError{reason}; }

private:
    size_t offset() const { return size_t(p_ - origin_); }

    std::string fieldName() const { return "field " + std::to_string(field_); }

    bool varint(uint64_t* out) {
        uint64_t value = 0;
        for (int shift = 0; shift < 70 && p_ + shift / 7 < end_; shift += 7) {
            uint8_t b = p_[shift / 7];
            value |= uint64_t(b & 0x7F) << (shift < 64 ? shift : 63);
            if ((b & 0x80) == 0) {
                p_ += shift / 7 + 1;
                *out = value;
                return true;
            }
        }
        return false;
    }

    void fixed(size_t n, const char* what) {
        if (size_t(end_ - p_) < n) {
            bad(fieldName() + ": truncated " + what + " value at byte " + std::to_string(offset()));
        }
        p_ += n;
    }

    const uint8_t* p_;
    const uint8_t* end_;
    const uint8_t* origin_;
    uint64_t field_ = 0;
    size_t at_ = 0;
};

void decodeRange(Wire w, KeyRangeRef* range) {
    range->begin = KeyRef{};
    range->end = KeyRef{};
    while (!w.done()) {
        int type;
        uint32_t field = w.tag(&type);
        if ((field == 1 || field == 2) && type == kLengthDelimited) {
            (field == 1 ? range->begin : range->end) = w.bytes();
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
        if (field == 1 && type == kVarint) {
            tr->read_snapshot = int64_t(w.varintField());
        } else if ((field == 2 || field == 3) && type == kLengthDelimited) {
            auto& list = field == 2 ? tr->read_conflict_ranges : tr->write_conflict_ranges;
            list.emplace_back();
            decodeRange(w.sub(), &list.back());
        } else if (field == 4 && type == kVarint) {
            tr->report_conflicting_keys = w.varintField() != 0;
        } else {
            w.skip(type);
        }
    }
}

/** A TraceHeader's format and workload; throws WireError. */
void decodeHeader(Wire w, std::string* format, std::string* workload) {
    while (!w.done()) {
        int type;
        uint32_t field = w.tag(&type);
        if ((field == 1 || field == 2) && type == kLengthDelimited) {
            KeyRef text = w.bytes();
            (field == 1 ? *format : *workload).assign(reinterpret_cast<const char*>(text.data), size_t(text.length));
        } else {
            w.skip(type);
        }
    }
}

/** What a header's format says is wrong with it, or "" for a trace header. */
std::string formatProblem(const std::string& format) {
    if (format == kTraceFormat) return "";
    return "format is '" + format + "', expected '" + kTraceFormat + "'" +
           (format == kDecisionFormat ? " (this is a decision file, not a trace)" : "");
}

/** A Batch message; its keys point into the message's bytes. Throws WireError. */
void decodeBatch(Wire w, Batch* batch) {
    batch->version = 0;
    batch->newOldestVersion = 0;
    batch->transactionCount = 0;
    while (!w.done()) {
        int type;
        uint32_t field = w.tag(&type);
        if (field == 1 && type == kVarint) {
            batch->version = int64_t(w.varintField());
        } else if (field == 2 && type == kVarint) {
            batch->newOldestVersion = int64_t(w.varintField());
        } else if (field == 3 && type == kLengthDelimited) {
            if (batch->transactionCount == batch->transactions.size()) batch->transactions.emplace_back();
            decodeTransaction(w.sub(), &batch->transactions[batch->transactionCount++]);
        } else {
            w.skip(type);
        }
    }
}

/** A capture segment's trace file name, segment-NNNNNN.trace.gz (the Java side's CaptureChain.traceName). */
std::string segmentName(int number) {
    char name[64];
    std::snprintf(name, sizeof(name), "segment-%06d.trace.gz", number);
    return name;
}

/** The number of a capture segment's trace file name, or -1 for another name. */
int segmentNumber(const std::string& name) {
    const std::string prefix = "segment-", suffix = ".trace.gz";
    if (name.size() < prefix.size() + 6 + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return -1;
    }
    std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(digits);
}

/** A capture folder's segments in order, checked to be numbered without a gap; none: not a capture. */
std::vector<std::pair<int, std::string>> captureSegments(const std::string& folder) {
    std::vector<std::pair<int, std::string>> found;
    DIR* dir = opendir(folder.c_str());
    if (dir == nullptr) return found;
    while (dirent* e = readdir(dir)) {
        int n = segmentNumber(e->d_name);
        if (n >= 0) found.emplace_back(n, e->d_name);
    }
    closedir(dir);
    std::sort(found.begin(), found.end());
    for (size_t i = 1; i < found.size(); i++) {
        if (found[i].first != found[i - 1].first + 1) {
            int from = found[i - 1].first + 1, to = found[i].first - 1;
            throw TraceError("capture " + folder + ": trace segments " + std::to_string(from) +
                             (to > from ? " to " + std::to_string(to) : "") + " are missing (between " +
                             found[i - 1].second + " and " + found[i].second + ")");
        }
    }
    return found;
}

}  // namespace

TraceReader::TraceReader(const std::string& path) : path_(path) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        for (const auto& segment : captureSegments(path)) {
            segments_.push_back(path + (path.back() == '/' ? "" : "/") + segment.second);
            segmentNumbers_.push_back(segment.first);
        }
        if (segments_.empty()) {
            throw TraceError("cannot read " + path + ": " + std::strerror(EISDIR));
        }
        path_ = segments_.front();
    }
    openFile();
}

void TraceReader::openFile() {
    headerRead_ = false;
    messageIndex_ = 0;
    int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw TraceError("cannot open " + path_ + ": " + std::strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw TraceError("cannot read " + path_ + ": " + std::strerror(EISDIR));
    }
    // gzdopen reads gzip (recognized by its magic) and passes any other file through unchanged.
    file_ = gzdopen(fd, "rb");
    if (file_ == nullptr) {
        ::close(fd);
        throw TraceError("cannot read " + path_ + ": out of memory");
    }
    gzbuffer(file_, 1 << 17);
    bool read;
    try {
        read = readMessage();
    } catch (const TraceError& e) {
        std::string what = e.what();
        throw TraceError(what.find("gzip") != std::string::npos ? what : what + " (not a trace file?)");
    }
    if (!read) {
        throw TraceError(path_ + ": empty file: not a trace (no trace header)");
    }
    std::string format, workload, chain, segment, previous;
    auto text = [](KeyRef t) { return std::string(reinterpret_cast<const char*>(t.data), size_t(t.length)); };
    try {
        Wire w(buffer_.data(), buffer_.data() + messageLength_, buffer_.data());
        while (!w.done()) {
            int type;
            uint32_t field = w.tag(&type);
            if ((field == 1 || field == 2) && type == kLengthDelimited) {
                (field == 1 ? format : workload) = text(w.bytes());
            } else if (field == 4 && type == kLengthDelimited) {
                // params: map<string, string>, each entry a message of key (1) and value (2)
                Wire entry = w.sub();
                std::string key, value;
                while (!entry.done()) {
                    int t;
                    uint32_t f = entry.tag(&t);
                    if ((f == 1 || f == 2) && t == kLengthDelimited) {
                        (f == 1 ? key : value) = text(entry.bytes());
                    } else {
                        entry.skip(t);
                    }
                }
                if (key == "capture_chain") chain = value;
                if (key == "segment") segment = value;
                if (key == "previous_segment") previous = value;
            } else {
                w.skip(type);
            }
        }
    } catch (const WireError& e) {
        fail("malformed TraceHeader message: " + e.reason + " (not a trace file?)");
    }
    std::string problem = formatProblem(format);
    if (!problem.empty()) fail(problem);
    if (!segments_.empty()) {
        // A capture folder's segment must continue the chain (as CaptureChain.checkContinues on the Java side).
        int number = segmentNumbers_[segment_];
        if (workload != "capture") fail("workload is '" + workload + "', not a capture's ('capture')");
        if (segment != std::to_string(number)) {
            fail("segment is '" + segment + "', not " + std::to_string(number) + " as the file is named");
        }
        if (segment_ > 0) {
            if (chain != chain_) fail("capture_chain is '" + chain + "', not the folder's first segment's '" + chain_ + "'");
            std::string expected = segmentName(segmentNumbers_[segment_ - 1]);
            if (previous != expected) fail("previous_segment is '" + previous + "', not " + expected);
        }
        chain_ = chain;
    }
    if (segment_ == 0) workload_ = workload;
    headerRead_ = true;
}

TraceReader::~TraceReader() {
    if (file_ != nullptr) gzclose(file_);
}

void TraceReader::fail(const std::string& what) const {
    // While batch b of this file is read, messageIndex_ is b + 1 (the header was message 0).
    std::string where = headerRead_ ? "batch " + std::to_string(batchBase_ + messageIndex_ - 1) : "trace header";
    throw TraceError(path_ + ": " + where + ": " + what);
}

std::string TraceReader::readFailure() const {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code == Z_OK || code == Z_STREAM_END) return "";
    if (code == Z_BUF_ERROR) return "truncated gzip data (the compressed file is cut short)";
    if (code == Z_ERRNO) return std::string("cannot read: ") + std::strerror(errno);
    // zlib prefixes its message with the file's name ("<fd:3>: invalid stored block lengths").
    std::string text = message != nullptr ? message : "";
    size_t colon = text.find(": ");
    return "corrupt gzip data: " + (colon == std::string::npos ? text : text.substr(colon + 2));
}

bool TraceReader::readMessage() {
    uint64_t length = 0;
    int lengthBytes = 0;
    for (;;) {
        int c = gzgetc(file_);
        if (c < 0) {
            std::string failure = readFailure();
            if (!failure.empty()) fail(failure);
            if (lengthBytes == 0) return false;  // a clean end between messages
            fail("truncated length varint (the file ends after " + std::to_string(lengthBytes) + " of its bytes)");
        }
        if (lengthBytes == 10) fail("malformed length varint (over 10 bytes)");
        length |= uint64_t(c & 0x7F) << (7 * lengthBytes);
        lengthBytes++;
        if ((c & 0x80) == 0) break;
    }
    if (length > kMaxMessageBytes) {
        fail("message length " + std::to_string(length) + " exceeds the 2 GiB protobuf limit");
    }
    size_t got = 0;
    while (got < length) {
        if (buffer_.size() <= got) {
            // Grow only as bytes arrive, so that a bogus length cannot exhaust memory.
            buffer_.resize(std::min<uint64_t>(length, std::max<uint64_t>(got + kGrowthChunk, 2 * buffer_.size())));
        }
        size_t want = std::min<uint64_t>(std::min<uint64_t>(length, buffer_.size()) - got, 1u << 30);
        int n = gzread(file_, buffer_.data() + got, unsigned(want));
        if (n <= 0) {
            std::string failure = readFailure();
            if (!failure.empty()) fail(failure);
            fail("truncated message: wanted " + std::to_string(length) + " bytes, got " + std::to_string(got));
        }
        got += size_t(n);
    }
    messageLength_ = length;
    messageIndex_++;
    return true;
}

bool TraceReader::next(Batch* batch) {
    while (!readMessage()) {
        if (segment_ + 1 >= segments_.size()) return false;
        batchBase_ += messageIndex_ - 1;  // this segment's batches
        gzclose(file_);
        file_ = nullptr;
        path_ = segments_[++segment_];
        openFile();
    }
    try {
        decodeBatch(Wire(buffer_.data(), buffer_.data() + messageLength_, buffer_.data()), batch);
    } catch (const WireError& e) {
        messageIndex_--;  // name the batch being decoded, not the next one
        fail("malformed Batch message: " + e.reason);
    }
    return true;
}

TraceStream::TraceStream(int fd, std::string name) : fd_(fd), name_(std::move(name)), buffer_(1 << 16) {}

void TraceStream::fail(const std::string& what) const {
    std::string where = traces_ == 0 ? "" : "trace " + std::to_string(traces_) + ": ";
    where += inHeader_ ? "trace header" : "batch " + std::to_string(batches_);
    throw TraceError(name_ + ": " + where + ": " + what);
}

bool TraceStream::fill(size_t need) {
    while (end_ - start_ < need) {
        if (start_ > 0) {
            // Keep the unread bytes at the front, so the buffer only grows to the largest message.
            std::memmove(buffer_.data(), buffer_.data() + start_, end_ - start_);
            end_ -= start_;
            start_ = 0;
        }
        if (buffer_.size() < need) {
            buffer_.resize(std::min<uint64_t>(need, std::max<uint64_t>(end_ + kGrowthChunk, 2 * buffer_.size())));
        }
        ssize_t n;
        do {
            n = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
        } while (n < 0 && errno == EINTR);
        if (n < 0) fail(std::string("cannot read: ") + std::strerror(errno));
        if (n == 0) return false;
        end_ += size_t(n);
    }
    return true;
}

TraceStream::Kind TraceStream::next(Batch* batch) {
    inHeader_ = false;
    // The length varint: at most 10 bytes, each read as it arrives.
    uint64_t length = 0;
    size_t lengthBytes = 0;
    for (;;) {
        if (!fill(lengthBytes + 1)) {
            if (lengthBytes == 0) return kEnd;
            fail("truncated length varint (the stream ends after " + std::to_string(lengthBytes) + " of its bytes)");
        }
        if (lengthBytes == 10) fail("malformed length varint (over 10 bytes)");
        uint8_t c = buffer_[start_ + lengthBytes];
        length |= uint64_t(c & 0x7F) << (7 * lengthBytes);
        lengthBytes++;
        if ((c & 0x80) == 0) break;
    }
    if (length > kMaxMessageBytes) {
        fail("message length " + std::to_string(length) + " exceeds the 2 GiB protobuf limit");
    }
    if (!fill(lengthBytes + length)) {
        fail("truncated message: wanted " + std::to_string(length) + " bytes, got " +
             std::to_string(end_ - start_ - lengthBytes));
    }
    const uint8_t* message = buffer_.data() + start_ + lengthBytes;
    start_ += lengthBytes + length;
    // 0x0A: field 1, wire type 2 -- a TraceHeader's format (a Batch's field 1 is its varint version).
    if (length > 0 && message[0] == 0x0A) {
        traces_++;
        batches_ = 0;
        inHeader_ = true;
        std::string format;
        workload_.clear();
        try {
            decodeHeader(Wire(message, message + length, message), &format, &workload_);
        } catch (const WireError& e) {
            fail("malformed TraceHeader message: " + e.reason);
        }
        std::string problem = formatProblem(format);
        if (!problem.empty()) fail(problem);
        inHeader_ = false;
        return kHeader;
    }
    if (traces_ == 0) fail("a batch before any trace header (each trace starts with its TraceHeader)");
    try {
        decodeBatch(Wire(message, message + length, message), batch);
    } catch (const WireError& e) {
        fail("malformed Batch message: " + e.reason);
    }
    batches_++;
    return kBatch;
}

}  // namespace replay
