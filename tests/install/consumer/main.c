/* Encrypts and decrypts a buffer through an installed bulkcrypt's C API, on the CPU:
 * AES-256-CTR, checked against a known answer (NIST SP 800-38A F.5.5, first block) and
 * by a round trip over a length that is not whole blocks. Built with
 * -DBC_EXPECTED_VERSION="X.Y.Z", the version the package or pkg-config file claims,
 * which the library must report. Exit status 0 when everything holds. */
#include <stdio.h>
#include <string.h>

#include <bulkcrypt/bulkcrypt.h>

#ifndef BC_EXPECTED_VERSION
#error "build with -DBC_EXPECTED_VERSION=\"X.Y.Z\" (the installed package's version)"
#endif

static const uint8_t kKey[32] = {
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
    0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4};
static const uint8_t kCounter[16] = {
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff};
static const uint8_t kPlain[16] = {
    0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a};
static const uint8_t kCipher[16] = {
    0x60, 0x1e, 0xc3, 0x13, 0x77, 0x57, 0x89, 0xa5, 0xb7, 0xa7, 0xf5, 0x04, 0xbb, 0xf3, 0xd2, 0x28};

#define MESSAGE_LEN 100003 /* not whole blocks */
static uint8_t plain[MESSAGE_LEN], cipher[MESSAGE_LEN], back[MESSAGE_LEN];

static int failed(const char *what, bc_status s) {
    fprintf(stderr, "consumer: %s: %s (%s)\n", what, bc_status_message(s), bc_last_error());
    return 1;
}

int main(void) {
    bc_context *ctx = NULL;
    bc_key *key = NULL;
    bc_status s;
    size_t n = 0, i;
    uint8_t block[16];
    int rc = 1;

    if (strcmp(bc_version(), BC_EXPECTED_VERSION) != 0) {
        fprintf(stderr, "consumer: bc_version() is %s, the package says %s\n", bc_version(),
                BC_EXPECTED_VERSION);
        return 1;
    }
    if ((s = bc_context_create("cpu", NULL, &ctx)) != BC_OK) return failed("bc_context_create", s);
    if ((s = bc_key_create(ctx, "aes-256-ctr", kKey, sizeof kKey, &key)) != BC_OK) {
        failed("bc_key_create", s);
        goto out;
    }

    s = bc_encrypt(key, kCounter, sizeof kCounter, kPlain, sizeof kPlain, block, sizeof block, &n, NULL);
    if (s != BC_OK) {
        failed("bc_encrypt (known answer)", s);
        goto out;
    }
    if (n != sizeof block || memcmp(block, kCipher, sizeof kCipher) != 0) {
        fprintf(stderr, "consumer: aes-256-ctr known answer differs\n");
        goto out;
    }

    for (i = 0; i < MESSAGE_LEN; ++i) plain[i] = (uint8_t)(i * 131u + 7u);
    s = bc_encrypt(key, kCounter, sizeof kCounter, plain, MESSAGE_LEN, cipher, sizeof cipher, &n, NULL);
    if (s != BC_OK) {
        failed("bc_encrypt", s);
        goto out;
    }
    if (n != MESSAGE_LEN || memcmp(cipher, plain, MESSAGE_LEN) == 0) {
        fprintf(stderr, "consumer: the ciphertext has the wrong length or equals the plaintext\n");
        goto out;
    }
    s = bc_decrypt(key, kCounter, sizeof kCounter, cipher, MESSAGE_LEN, back, sizeof back, &n, NULL);
    if (s != BC_OK) {
        failed("bc_decrypt", s);
        goto out;
    }
    if (n != MESSAGE_LEN || memcmp(back, plain, MESSAGE_LEN) != 0) {
        fprintf(stderr, "consumer: decryption did not give the plaintext back\n");
        goto out;
    }
    printf("consumer: bulkcrypt %s on %s: aes-256-ctr known answer and a %d-byte round trip\n",
           bc_version(), bc_context_device_name(ctx), MESSAGE_LEN);
    rc = 0;
out:
    bc_key_destroy(key);
    bc_context_destroy(ctx);
    return rc;
}
