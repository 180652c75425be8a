#include "util/secure.h"

#include <openssl/crypto.h>

namespace bc {

void secure_wipe(void* p, size_t n) {
    if (p != nullptr && n != 0) OPENSSL_cleanse(p, n);
}

bool ct_equal(const uint8_t* a, const uint8_t* b, size_t n) {
    return CRYPTO_memcmp(a, b, n) == 0;
}

}  // namespace bc
