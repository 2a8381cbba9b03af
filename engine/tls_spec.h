#pragma once

#include <cstdint>
#include <string>

namespace loadscope::engine {

// Which TLS versions the client offers.
enum class TlsVersion : uint8_t {
    Any,   // 1.2 or 1.3, whichever the server picks
    Tls12, // 1.2 only
    Tls13, // 1.3 only
};

// TLS for a load run's connections (https). Plain value; off by default.
struct TlsSpec {
    bool enabled = false;
    // The URL's host: sent as SNI unless it is an IP literal, and the name
    // (or address) the certificate must carry when verifying.
    std::string serverName;
    bool verify = true; // false: --insecure (ab -k style: accept any certificate)
    // Files by name (for messages) and by their text, which the caller read
    // through its checked reader: the engine opens no file of the user's, so
    // that none can block it (a FIFO) or feed it for ever (a device).
    std::string caFile;   // PEM bundle to verify against; empty: the system store
    std::string certFile; // client certificate (PEM); empty: none
    std::string keyFile;  // its private key; empty: in certFile
    std::string caPem;    // caFile's text
    std::string certPem;  // certFile's text
    std::string keyPem;   // keyFile's text; empty with keyFile: certFile's
    // Resume the worker's last session on every new connection, as browsers
    // do; false measures full handshakes only.
    bool resume = true;
    TlsVersion version = TlsVersion::Any;
    std::string alpn = "http/1.1"; // one protocol name offered by ALPN; empty: none

    friend bool operator==(const TlsSpec&, const TlsSpec&) = default;
};

} // namespace loadscope::engine
