#pragma once

#include <optional>
#include <string>
#include <string_view>

typedef struct ssl_ctx_st SSL_CTX;

// Certificates and keys into an SSL_CTX from PEM text in memory. OpenSSL's
// *_file functions open the path themselves, and a path can name a FIFO that
// blocks the open until a writer comes, or a device that never ends: the
// caller reads the file through its checked reader (app's
// readRegularFile) and hands the text here. An encrypted key is refused, not
// asked for on the terminal. Each answers one line of what is wrong, or
// nothing.
namespace loadscope::engine {

// Every certificate of a PEM bundle as a trust anchor for verification.
std::optional<std::string> addTrustedCertificates(SSL_CTX* ctx, std::string_view pem);
// The first certificate as the context's own, the rest as its chain.
std::optional<std::string> useCertificateChain(SSL_CTX* ctx, std::string_view pem);
// The first private key of `pem` (a certificate file may hold it too).
std::optional<std::string> usePrivateKey(SSL_CTX* ctx, std::string_view pem);

} // namespace loadscope::engine
