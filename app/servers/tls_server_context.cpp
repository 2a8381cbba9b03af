#include "app/servers/tls_server_context.h"

#include "app/common/checked_file_reader.h"
#include "engine/tls_pem.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace loadscope::app {

namespace {

Error openSslError(const QString& what) {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    char text[256] = "unknown error";
    if (code != 0)
        ERR_error_string_n(code, text, sizeof text);
    return invalidInput(QStringLiteral("%1: %2").arg(what, QString::fromLatin1(text)));
}

struct KeyAndCertificate {
    EVP_PKEY* key = nullptr;
    X509* certificate = nullptr;
    ~KeyAndCertificate() {
        X509_free(certificate);
        EVP_PKEY_free(key);
    }
};

bool addExtension(X509* certificate, int nid, const char* value) {
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, certificate, certificate, nullptr, nullptr, 0);
    X509_EXTENSION* extension =
        X509V3_EXT_conf_nid(nullptr, &context, nid, const_cast<char*>(value));
    if (!extension)
        return false;
    const bool added = X509_add_ext(certificate, extension, -1) == 1;
    X509_EXTENSION_free(extension);
    return added;
}

// A self-signed certificate for a server on this machine, valid for a week.
bool makeSelfSigned(KeyAndCertificate& out) {
    out.key = EVP_EC_gen("P-256");
    out.certificate = X509_new();
    if (!out.key || !out.certificate)
        return false;
    X509* certificate = out.certificate;
    X509_set_version(certificate, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate), long(time(nullptr)));
    X509_gmtime_adj(X509_getm_notBefore(certificate), -3600);
    X509_gmtime_adj(X509_getm_notAfter(certificate), 7L * 24 * 3600);
    X509_set_pubkey(certificate, out.key);
    X509_NAME* name = X509_get_subject_name(certificate);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(certificate, name);
    return addExtension(certificate, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost") &&
           addExtension(certificate, NID_basic_constraints, "critical,CA:TRUE") &&
           X509_sign(certificate, out.key, EVP_sha256()) > 0;
}

std::string pemOf(X509* certificate) {
    BIO* memory = BIO_new(BIO_s_mem());
    std::string pem;
    if (memory && PEM_write_bio_X509(memory, certificate) == 1) {
        char* data = nullptr;
        const long size = BIO_ctrl(memory, BIO_CTRL_INFO, 0, &data); // BIO_get_mem_data
        pem.assign(data, size_t(size));
    }
    BIO_free(memory);
    return pem;
}

// ALPN: the server's order wins, h2 before http/1.1 when offered.
template <bool Http2>
int selectProtocol(SSL*, const unsigned char** out, unsigned char* outLength,
                   const unsigned char* in, unsigned inLength, void*) {
    static const unsigned char both[] = "\x02h2\x08http/1.1";
    static const unsigned char http1[] = "\x08http/1.1";
    const unsigned char* mine = Http2 ? both : http1;
    const unsigned mineLength = Http2 ? sizeof both - 1 : sizeof http1 - 1;
    unsigned char* selected = nullptr;
    if (SSL_select_next_proto(&selected, outLength, mine, mineLength, in, inLength) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK; // no ALPN agreement is not an error for HTTP/1.1
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

} // namespace

bool TlsServerContext::negotiatedHttp2(const SSL* ssl) {
    const unsigned char* protocol = nullptr;
    unsigned length = 0;
    SSL_get0_alpn_selected(ssl, &protocol, &length);
    return length == 2 && protocol[0] == 'h' && protocol[1] == '2';
}

TlsServerContext::~TlsServerContext() {
    SSL_CTX_free(m_ctx);
}

Result<std::unique_ptr<TlsServerContext>>
TlsServerContext::create(const std::string& certFile, const std::string& keyFile, bool offerHttp2) {
    std::unique_ptr<TlsServerContext> context(new TlsServerContext);
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        return openSslError(QStringLiteral("TLS context"));
    context->m_ctx = ctx;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_alpn_select_cb(ctx, offerHttp2 ? &selectProtocol<true> : &selectProtocol<false>,
                               nullptr);
    if (certFile.empty()) {
        KeyAndCertificate made;
        if (!makeSelfSigned(made))
            return openSslError(QStringLiteral("cannot make a self-signed certificate"));
        if (SSL_CTX_use_certificate(ctx, made.certificate) != 1 ||
            SSL_CTX_use_PrivateKey(ctx, made.key) != 1)
            return openSslError(QStringLiteral("self-signed certificate"));
        context->m_certificatePem = pemOf(made.certificate);
        return context;
    }
    // Read through the checked reader and handed to OpenSSL as text: a path
    // naming a FIFO or a device is refused, never waited on (tls_pem.h).
    const std::string& key = keyFile.empty() ? certFile : keyFile;
    const auto certificatePem =
        readPemFile(QStringLiteral("certificate"), QString::fromStdString(certFile));
    if (!certificatePem)
        return certificatePem.error();
    auto keyPem = keyFile.empty() ? certificatePem
                                  : readPemFile(QStringLiteral("key"), QString::fromStdString(key));
    if (!keyPem)
        return keyPem.error();
    if (auto problem = engine::useCertificateChain(ctx, *certificatePem))
        return invalidInput(
            QStringLiteral("certificate '%1': %2")
                .arg(QString::fromStdString(certFile), QString::fromStdString(*problem)));
    if (auto problem = engine::usePrivateKey(ctx, *keyPem))
        return invalidInput(
            QStringLiteral("key '%1': %2")
                .arg(QString::fromStdString(key), QString::fromStdString(*problem)));
    if (SSL_CTX_check_private_key(ctx) != 1)
        return openSslError(QStringLiteral("key and certificate"));
    if (X509* certificate = SSL_CTX_get0_certificate(ctx))
        context->m_certificatePem = pemOf(certificate);
    return context;
}

SSL* TlsServerContext::accept(int fd) const {
    SSL* ssl = SSL_new(m_ctx);
    if (!ssl)
        return nullptr;
    SSL_set_fd(ssl, fd);
    SSL_set_accept_state(ssl);
    return ssl;
}

uint64_t TlsServerContext::resumedHandshakes() const {
    return uint64_t(SSL_CTX_sess_hits(m_ctx));
}

Result<void> prepareTls(const ServerTlsConfig& config, bool offerHttp2,
                        std::unique_ptr<TlsServerContext>& context) {
    if (!config.tls || context)
        return {};
    auto made = TlsServerContext::create(config.tlsCertFile, config.tlsKeyFile, offerHttp2);
    if (!made)
        return made.error();
    context = std::move(*made);
    return {};
}

} // namespace loadscope::app
