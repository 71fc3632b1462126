// SHA-256 for the replay driver's decision and conflicting-keys hashes: OpenSSL's libcrypto (EVP), so
// that the hashes come from the same audited code every other tool uses.
#ifndef FDBRESOLVER_REPLAY_SHA256_H
#define FDBRESOLVER_REPLAY_SHA256_H

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace replay {

/** One SHA-256 computation, fed incrementally. */
class Sha256 {
public:
    Sha256() : context_(EVP_MD_CTX_new()) {
        if (context_ == nullptr || EVP_DigestInit_ex(context_, EVP_sha256(), nullptr) != 1) {
            EVP_MD_CTX_free(context_);
            throw std::runtime_error("OpenSSL cannot start a SHA-256 digest");
        }
    }
    ~Sha256() { EVP_MD_CTX_free(context_); }
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(const void* data, size_t length) {
        if (length > 0 && EVP_DigestUpdate(context_, data, length) != 1) {
            throw std::runtime_error("OpenSSL SHA-256 update failed");
        }
    }

    /** Finishes and returns the digest as lowercase hex; the object is then spent. */
    std::string hexDigest() {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(context_, digest, &length) != 1) {
            throw std::runtime_error("OpenSSL SHA-256 final failed");
        }
        static const char kHex[] = "0123456789abcdef";
        std::string hex;
        for (unsigned int i = 0; i < length; i++) {
            hex += kHex[digest[i] >> 4];
            hex += kHex[digest[i] & 15];
        }
        return hex;
    }

private:
    EVP_MD_CTX* context_;
};

}  // namespace replay

#endif
