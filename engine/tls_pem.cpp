#include "engine/tls_pem.h"

#include <climits>
#include <memory>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace loadscope::engine {

namespace {

struct BioFree {
    void operator()(BIO* bio) const { BIO_free(bio); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

// A read-only BIO over `pem`, which outlives it.
Bio memoryBio(std::string_view pem) {
    if (pem.size() > size_t(INT_MAX))
        return nullptr;
    return Bio(BIO_new_mem_buf(pem.data(), int(pem.size())));
}

// No pass phrase: an encrypted key fails to load instead of prompting on the
// terminal, which would block a worker thread or a server's start.
int noPassPhrase(char* /*buffer*/, int /*size*/, int /*rwflag*/, void* /*user*/) {
    return 0;
}

// OpenSSL's reason for the last failure, else `fallback`; the queue emptied.
std::string failure(const char* fallback) {
    const unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    if (code == 0)
        return fallback;
    char text[256] = {};
    ERR_error_string_n(code, text, sizeof text);
    return text;
}

// The end of the text ends a loop of PEM reads with "no start line": not an error.
bool onlyEndOfText() {
    const unsigned long code = ERR_peek_last_error();
    if (code == 0 ||
        (ERR_GET_LIB(code) == ERR_LIB_PEM && ERR_GET_REASON(code) == PEM_R_NO_START_LINE)) {
        ERR_clear_error();
        return true;
    }
    return false;
}

} // namespace

std::optional<std::string> addTrustedCertificates(SSL_CTX* ctx, std::string_view pem) {
    ERR_clear_error();
    const Bio bio = memoryBio(pem);
    if (!bio)
        return failure("cannot read it");
    STACK_OF(X509_INFO)* infos = PEM_X509_INFO_read_bio(bio.get(), nullptr, noPassPhrase, nullptr);
    if (!infos)
        return failure("no certificate in it");
    X509_STORE* store = SSL_CTX_get_cert_store(ctx);
    int added = 0;
    for (int i = 0; i < sk_X509_INFO_num(infos); ++i) {
        X509_INFO* info = sk_X509_INFO_value(infos, i);
        if (info->x509 && X509_STORE_add_cert(store, info->x509) == 1)
            ++added;
        if (info->crl)
            X509_STORE_add_crl(store, info->crl);
    }
    sk_X509_INFO_pop_free(infos, X509_INFO_free);
    if (added == 0)
        return failure("no certificate in it");
    ERR_clear_error();
    return std::nullopt;
}

std::optional<std::string> useCertificateChain(SSL_CTX* ctx, std::string_view pem) {
    ERR_clear_error();
    const Bio bio = memoryBio(pem);
    if (!bio)
        return failure("cannot read it");
    X509* leaf = PEM_read_bio_X509_AUX(bio.get(), nullptr, noPassPhrase, nullptr);
    if (!leaf)
        return failure("no certificate in it");
    const int used = SSL_CTX_use_certificate(ctx, leaf);
    X509_free(leaf);
    if (used != 1)
        return failure("the certificate was refused");
    // SSL_CTX_clear_chain_certs and SSL_CTX_add0_chain_cert, without the
    // macros' C casts.
    SSL_CTX_ctrl(ctx, SSL_CTRL_CHAIN, 0, nullptr);
    while (X509* issuer = PEM_read_bio_X509(bio.get(), nullptr, noPassPhrase, nullptr)) {
        if (SSL_CTX_ctrl(ctx, SSL_CTRL_CHAIN_CERT, 0, issuer) != 1) {
            X509_free(issuer);
            return failure("a chain certificate was refused");
        }
    }
    if (!onlyEndOfText())
        return failure("a chain certificate cannot be read");
    return std::nullopt;
}

std::optional<std::string> usePrivateKey(SSL_CTX* ctx, std::string_view pem) {
    ERR_clear_error();
    const Bio bio = memoryBio(pem);
    if (!bio)
        return failure("cannot read it");
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, noPassPhrase, nullptr);
    if (!key)
        return failure("no private key in it");
    const int used = SSL_CTX_use_PrivateKey(ctx, key);
    EVP_PKEY_free(key);
    if (used != 1)
        return failure("the key was refused");
    return std::nullopt;
}

} // namespace loadscope::engine
