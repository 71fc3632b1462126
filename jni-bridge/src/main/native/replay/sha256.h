// SHA-256 (FIPS 180-4), for the replay driver's decision and conflicting-keys hashes.
#ifndef FDBRESOLVER_REPLAY_SHA256_H
#define FDBRESOLVER_REPLAY_SHA256_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace replay {

class Sha256 {
public:
    Sha256();
    void update(const void* data, size_t length);
    /** Finishes and returns the digest as lowercase hex; the object is then spent. */
    std::string hexDigest();

private:
    void compress(const uint8_t* block);

    uint32_t state_[8];
    uint8_t buffer_[64];
    size_t buffered_ = 0;
    uint64_t totalBytes_ = 0;
};

}  // namespace replay

#endif
