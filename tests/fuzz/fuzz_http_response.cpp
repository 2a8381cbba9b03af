// Feeds arbitrary bytes to the HTTP response parser, whole and cut into
// random pieces, directly and through an HttpProtocol session, the way the
// load engine drives them (leftovers after Complete fed again, finishAtEof at
// the end). Input layout: byte 0 = flags (bit 0: HEAD request), byte 1 = seed
// for the cut points, then the server's bytes.
//
// Besides the sanitizers' checks it asserts the feed contract, that where the
// input was cut never changes what was parsed, and that body bytes skipped
// uncopied (skippableBytes/skip) give the same responses as bytes fed.
//
// The session is also fed through TLS, as an https connection reads: the
// pieces are written as records by a server end of a memory BIO pair and
// read by the engine's TlsSession on the client end (one handshake, made
// once per process), and must arrive, and parse, exactly the same.

#include "engine/http_protocol.h"
#include "engine/http_response_parser.h"
#include "engine/tls_session.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <string>
#include <string_view>
#include <vector>

using namespace loadscope::engine;

namespace {

struct Outcome {
    std::vector<uint64_t> responses; // status, body, keep-alive, end offset; four per response
    FeedResult::Status last = FeedResult::Status::NeedMore;
    std::string error;

    bool operator==(const Outcome&) const = default;
};

[[noreturn]] void violated(const char* what) {
    std::fprintf(stderr, "contract violated: %s\n", what);
    std::abort();
}

void check(bool ok, const char* what) {
    if (!ok)
        violated(what);
}

// Adapts a raw parser and a session to one interface for the driver.
struct ParserDriver {
    explicit ParserDriver(bool head)
        : m_head(head) {
        m_parser.begin(head);
    }
    FeedResult feed(std::string_view data) {
        FeedResult r = m_parser.feed(data);
        if (r.status == FeedResult::Status::Complete) {
            check(r.info.statusCode == m_parser.statusCode(), "status mismatch");
            check(r.info.bodyBytes == m_parser.bodyBytes(), "body mismatch");
            m_parser.begin(m_head);
        }
        return r;
    }
    FeedResult finishAtEof() { return m_parser.finishAtEof(); }
    std::string error() const { return std::string(m_parser.error()); }

    bool m_head;
    HttpResponseParser m_parser;
};

struct SessionDriver {
    // `skips`: body bytes the session only counts are given to skip(), as the
    // load worker takes them from the socket with MSG_TRUNC (here from any
    // length, not only 16 KiB), the rest to feed().
    SessionDriver(const HttpProtocol& protocol, bool skips)
        : m_session(protocol.newSession(0, 1))
        , m_skips(skips) {}
    FeedResult feed(std::string_view data) {
        if (!m_skips)
            return m_session->feed(data);
        size_t used = 0;
        for (;;) {
            const std::string_view rest = data.substr(used);
            const uint64_t skippable = m_session->skippableBytes();
            FeedResult r;
            if (skippable > 0 && !rest.empty()) {
                const size_t n = size_t(std::min<uint64_t>(skippable, rest.size()));
                r = m_session->skip(n);
                check(r.status != FeedResult::Status::Malformed, "skip failed");
                check(r.consumed == n, "skip consumed other than it was given");
            } else {
                r = m_session->feed(rest);
            }
            used += r.consumed;
            if (r.status != FeedResult::Status::NeedMore || used == data.size()) {
                r.consumed = used;
                return r;
            }
        }
    }
    FeedResult finishAtEof() { return m_session->finishAtEof(); }
    std::string error() const { return std::string(m_session->lastError()); }

    std::unique_ptr<ProtocolSession> m_session;
    bool m_skips;
};

template <typename Driver>
Outcome run(Driver& driver, std::string_view input, const std::vector<size_t>& cuts) {
    Outcome out;
    size_t pieceStart = 0;
    size_t responseStart = 0;
    const auto record = [&](const FeedResult& r, size_t end) {
        check(r.info.statusCode >= 200 && r.info.statusCode <= 999, "status out of range");
        check(r.info.bodyBytes <= end - responseStart, "more body than bytes");
        out.responses.insert(out.responses.end(),
                             {static_cast<uint64_t>(r.info.statusCode), r.info.bodyBytes,
                              r.info.keepAlive ? 1u : 0u, end});
        responseStart = end;
    };
    for (size_t i = 0; i <= cuts.size(); ++i) {
        const size_t pieceEnd = i < cuts.size() ? cuts[i] : input.size();
        std::string_view piece = input.substr(pieceStart, pieceEnd - pieceStart);
        size_t offset = pieceStart;
        pieceStart = pieceEnd;
        while (true) {
            const FeedResult r = driver.feed(piece);
            check(r.consumed <= piece.size(), "consumed past the input");
            if (r.status == FeedResult::Status::Malformed) {
                out.last = r.status;
                out.error = driver.error();
                check(!out.error.empty(), "Malformed without an error text");
                return out;
            }
            if (r.status == FeedResult::Status::NeedMore) {
                check(r.consumed == piece.size(), "NeedMore left bytes unconsumed");
                break;
            }
            check(r.consumed > 0, "Complete without consuming");
            offset += r.consumed;
            record(r, offset);
            piece.remove_prefix(r.consumed);
            if (piece.empty())
                break;
        }
    }
    const FeedResult eof = driver.finishAtEof();
    check(eof.consumed == 0, "finishAtEof consumed bytes");
    out.last = eof.status;
    if (eof.status == FeedResult::Status::Complete) {
        check(!eof.info.keepAlive, "close-delimited response says keep-alive");
        record(eof, input.size());
    } else if (eof.status == FeedResult::Status::Malformed) {
        out.error = driver.error();
        check(!out.error.empty(), "Malformed without an error text");
    }
    return out;
}

std::vector<size_t> randomCuts(size_t size, uint32_t seed) {
    std::vector<size_t> cuts;
    if (size < 2)
        return cuts;
    uint32_t state = seed * 2654435761u + static_cast<uint32_t>(size) + 1;
    const auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    };
    size_t pos = 0;
    const uint32_t count = 1 + next() % 24;
    for (uint32_t i = 0; i < count && pos + 1 < size; ++i) {
        // Mostly short pieces, so that lines and CRLFs get cut everywhere.
        const size_t step = 1 + next() % ((next() & 3) == 0 ? size : 16);
        pos += step;
        if (pos >= size)
            break;
        cuts.push_back(pos);
    }
    return cuts;
}

// A TLS connection in memory: the server end writes what a fuzz input says
// the server sent, the client end is read through TlsSession, as the engine reads.
class TlsPipe {
public:
    TlsPipe() {
        EVP_PKEY* key = EVP_EC_gen("P-256");
        X509* certificate = X509_new();
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1);
        X509_gmtime_adj(X509_getm_notBefore(certificate), 0);
        X509_gmtime_adj(X509_getm_notAfter(certificate), 3600);
        X509_set_pubkey(certificate, key);
        X509_set_issuer_name(certificate, X509_get_subject_name(certificate));
        X509_sign(certificate, key, EVP_sha256());
        m_serverCtx = SSL_CTX_new(TLS_server_method());
        SSL_CTX_use_certificate(m_serverCtx, certificate);
        SSL_CTX_use_PrivateKey(m_serverCtx, key);
        X509_free(certificate);
        EVP_PKEY_free(key);
        m_clientCtx = SSL_CTX_new(TLS_client_method());
        SSL_CTX_set_verify(m_clientCtx, SSL_VERIFY_NONE, nullptr);
        SSL_CTX_set_read_ahead(m_clientCtx, 1);
        m_server = SSL_new(m_serverCtx);
        SSL* client = SSL_new(m_clientCtx);
        BIO* clientBio = nullptr;
        BIO* serverBio = nullptr;
        BIO_new_bio_pair(&clientBio, 1 << 20, &serverBio, 1 << 20);
        SSL_set_bio(client, clientBio, clientBio);
        SSL_set_bio(m_server, serverBio, serverBio);
        SSL_set_accept_state(m_server);
        SSL_set_connect_state(client);
        m_client = std::make_unique<TlsSession>(client);
        bool clientDone = false;
        bool serverDone = false;
        for (int i = 0; i < 100 && !(clientDone && serverDone); ++i) {
            clientDone = clientDone || m_client->handshake() == TlsSession::Step::Done;
            serverDone = serverDone || SSL_do_handshake(m_server) == 1;
        }
        check(clientDone && serverDone, "the in-memory TLS handshake did not finish");
    }

    // Sends each piece of `input` between `cuts` as its own records and
    // returns what the client read, one string per read.
    std::vector<std::string> carry(std::string_view input, const std::vector<size_t>& cuts) {
        std::vector<std::string> reads;
        size_t start = 0;
        for (size_t i = 0; i <= cuts.size(); ++i) {
            const size_t end = i < cuts.size() ? cuts[i] : input.size();
            size_t written = 0;
            if (end > start)
                check(SSL_write_ex(m_server, input.data() + start, end - start, &written) == 1 &&
                          written == end - start,
                      "the server end could not write");
            start = end;
            for (;;) {
                const ssize_t n = m_client->read(m_buffer, sizeof m_buffer);
                if (n < 0) {
                    check(errno == EAGAIN, "TlsSession failed on a sound stream");
                    break;
                }
                check(n > 0, "TlsSession saw an end of stream that was not sent");
                reads.emplace_back(m_buffer, size_t(n));
            }
        }
        return reads;
    }

private:
    SSL_CTX* m_serverCtx = nullptr;
    SSL_CTX* m_clientCtx = nullptr;
    SSL* m_server = nullptr;
    std::unique_ptr<TlsSession> m_client;
    char m_buffer[64 * 1024];
};

HttpRequestSpec specFor(const char* method) {
    HttpRequestSpec spec;
    spec.method = method;
    spec.host = "fuzz";
    return spec;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2)
        return 0;
    static const HttpProtocol getProtocol(specFor("GET"));
    static const HttpProtocol headProtocol(specFor("HEAD"));

    const bool head = (data[0] & 1) != 0;
    const uint32_t seed = data[1];
    const std::string_view input(reinterpret_cast<const char*>(data + 2), size - 2);

    ParserDriver whole(head);
    const Outcome expected = run(whole, input, {});

    const std::vector<size_t> cuts = randomCuts(input.size(), seed);
    ParserDriver split(head);
    check(run(split, input, cuts) == expected, "split input parsed differently");

    if (input.size() <= 4096) {
        std::vector<size_t> everyByte;
        for (size_t i = 1; i < input.size(); ++i)
            everyByte.push_back(i);
        ParserDriver bytewise(head);
        check(run(bytewise, input, everyByte) == expected, "byte-by-byte parsed differently");
    }

    SessionDriver session(head ? headProtocol : getProtocol, false);
    check(run(session, input, cuts) == expected, "session parsed differently");

    SessionDriver skipping(head ? headProtocol : getProtocol, true);
    check(run(skipping, input, cuts) == expected, "skipping body bytes parsed differently");

    if (data[0] & 2) {
        static TlsPipe pipe;
        const std::vector<std::string> reads = pipe.carry(input, cuts);
        std::string received;
        std::vector<size_t> readCuts;
        for (const std::string& read : reads) {
            if (!received.empty())
                readCuts.push_back(received.size());
            received += read;
        }
        check(received == input, "TLS delivered other bytes than were sent");
        SessionDriver overTls(head ? headProtocol : getProtocol, false);
        check(run(overTls, received, readCuts) == expected, "parsed differently through TLS");
    }
    return 0;
}
