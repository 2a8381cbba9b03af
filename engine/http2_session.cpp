#include "engine/http2_session.h"

#include "engine/request_queue.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

namespace loadscope::engine {

namespace {

constexpr uint64_t kFrameHeaderBytes = 9; // RFC 9113 4.1

uint32_t windowOf(int bits) {
    return uint32_t((uint64_t(1) << bits) - 1);
}

std::string streamText(int32_t id) {
    return "stream " + std::to_string(id);
}

// At most this much of a text the server chose (its GOAWAY's debug data).
constexpr size_t kMaxQuotedBytes = 128;

// What a connection error's code says, for a GOAWAY nghttp2 sent without a
// reason of its own (an HPACK failure has none).
std::string connectionErrorText(uint32_t code) {
    switch (code) {
    case NGHTTP2_COMPRESSION_ERROR:
        return "a header block HPACK cannot decode";
    case NGHTTP2_FLOW_CONTROL_ERROR:
        return "flow control broken";
    case NGHTTP2_FRAME_SIZE_ERROR:
        return "a frame of a size not allowed";
    case NGHTTP2_ENHANCE_YOUR_CALM:
        return "a flood of frames";
    default:
        return "a frame the protocol does not allow";
    }
}

// nghttp2's error callback names the field it refused in this form; it also
// reports fields it merely ignored, which reset nothing.
constexpr std::string_view kRefusedFieldText = "Invalid HTTP header field was received";

} // namespace

// nghttp2's callbacks, each a thin step into the session that registered it.
struct Http2Callbacks {
    static Http2Session& of(void* user) { return *static_cast<Http2Session*>(user); }
    static Http2Session::Stream* stream(nghttp2_session* session, int32_t id) {
        return id == 0 ? nullptr
                       : static_cast<Http2Session::Stream*>(
                             nghttp2_session_get_stream_user_data(session, id));
    }

    static int beginFrame(nghttp2_session* session, const nghttp2_frame_hd* hd, void* user) {
        // A stream's bytes are its frames, headers included, as h2load counts traffic.
        if (Http2Session::Stream* s = stream(session, hd->stream_id)) {
            if (s->firstByteNs == 0)
                s->firstByteNs = of(user).m_now;
            s->unconfirmed = kFrameHeaderBytes + hd->length;
            s->bytes += s->unconfirmed;
        }
        return 0;
    }

    static int header(nghttp2_session* session, const nghttp2_frame* frame, const uint8_t* name,
                      size_t nameLength, const uint8_t* value, size_t valueLength,
                      uint8_t /*flags*/, void* user) {
        Http2Session::Stream* s = stream(session, frame->hd.stream_id);
        if (!s || frame->hd.type != NGHTTP2_HEADERS)
            return 0;
        const std::string_view n(reinterpret_cast<const char*>(name), nameLength);
        const std::string_view v(reinterpret_cast<const char*>(value), valueLength);
        if (n == ":status") {
            int code = 0;
            for (char c : v)
                code = code * 10 + (c - '0'); // nghttp2 checked it: three digits
            s->info.statusCode = code;
        } else if (n == "content-length") {
            int64_t length = 0;
            for (char c : v) // nghttp2 checked it: digits, within int64
                length = length * 10 + (c - '0');
            s->contentLength = length;
        } else if (n == "server" && of(user).m_server.empty()) {
            of(user).m_server.assign(v);
        }
        return 0;
    }

    static int dataChunk(nghttp2_session* session, uint8_t /*flags*/, int32_t id,
                         const uint8_t* /*data*/, size_t length, void* /*user*/) {
        if (Http2Session::Stream* s = stream(session, id))
            s->info.bodyBytes += length; // counted, never copied
        return 0;
    }

    static int frameReceived(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
        Http2Session& self = of(user);
        self.m_callbackError.clear(); // it was about a field this frame's block ignored
        if (Http2Session::Stream* s = stream(session, frame->hd.stream_id))
            s->unconfirmed = 0; // received whole
        switch (frame->hd.type) {
        case NGHTTP2_SETTINGS:
            if (!(frame->hd.flags & NGHTTP2_FLAG_ACK))
                self.m_settingsReceived = true;
            return 0;
        case NGHTTP2_GOAWAY:
            self.m_goaway = true;
            self.m_goawayLastStream = frame->goaway.last_stream_id;
            self.m_goawayError = frame->goaway.error_code;
            if (frame->goaway.error_code != NGHTTP2_NO_ERROR) {
                const std::string_view debug(
                    reinterpret_cast<const char*>(frame->goaway.opaque_data),
                    std::min(frame->goaway.opaque_data_len, kMaxQuotedBytes));
                self.m_lastError = "HTTP/2: the server ended the session with GOAWAY " +
                                   std::string(nghttp2_http2_strerror(frame->goaway.error_code)) +
                                   " (last stream " + std::to_string(frame->goaway.last_stream_id) +
                                   (debug.empty() ? "" : ": \"" + std::string(debug) + '"') + ")";
            }
            return 0;
        case NGHTTP2_RST_STREAM:
            if (Http2Session::Stream* s = stream(session, frame->hd.stream_id)) {
                s->resetByPeer = true;
                s->resetCode = frame->rst_stream.error_code;
            }
            return 0;
        case NGHTTP2_HEADERS:
        case NGHTTP2_DATA:
            if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) {
                Http2Session::Stream* s = stream(session, frame->hd.stream_id);
                if (s && !s->ended) {
                    s->ended = true;
                    self.emit(*s, StreamEvent::Kind::Complete, ErrorClass::Exception, {});
                }
            }
            return 0;
        default:
            return 0;
        }
    }

    // What the client saw wrong in a stream's response when it reset it
    // (nghttp2 checks each response against HTTP's rules, RFC 9113 8.1).
    static std::string resetReason(const Http2Session::Stream& s) {
        if (!s.invalid.empty())
            return s.invalid;
        if (s.info.statusCode == 0)
            return "the response has no :status";
        if (s.contentLength >= 0 && s.info.bodyBytes != uint64_t(s.contentLength))
            return "its DATA (" + std::to_string(s.info.bodyBytes) +
                   " bytes) does not match its content-length " + std::to_string(s.contentLength);
        return "the response breaks HTTP's rules";
    }

    // nghttp2 found a frame it must refuse. A malformed response costs its
    // stream (nghttp2 resets it, and the stream ends as the RST_STREAM goes
    // out); anything else is a connection error, which ends the session
    // with a GOAWAY that says why (frameSent).
    static int invalidFrame(nghttp2_session* session, const nghttp2_frame* frame, int libError,
                            void* user) {
        Http2Session& self = of(user);
        std::string reason = std::exchange(self.m_callbackError, {});
        if (reason.empty())
            reason = nghttp2_strerror(libError);
        Http2Session::Stream* s = stream(session, frame->hd.stream_id);
        // A messaging error's reason is told from the stream itself (resetReason).
        if (s && s->invalid.empty() && libError != NGHTTP2_ERR_HTTP_MESSAGING)
            s->invalid = reason;
        if (!s || (libError != NGHTTP2_ERR_HTTP_HEADER && libError != NGHTTP2_ERR_HTTP_MESSAGING))
            self.m_protocolError = reason;
        return 0;
    }

    static int frameSent(nghttp2_session* /*session*/, const nghttp2_frame* frame, void* user) {
        if (frame->hd.type != NGHTTP2_GOAWAY || frame->goaway.error_code == NGHTTP2_NO_ERROR)
            return 0;
        // The client's own GOAWAY: nghttp2 puts its reason in the debug data.
        Http2Session& self = of(user);
        self.m_goawaySent = true;
        std::string why(reinterpret_cast<const char*>(frame->goaway.opaque_data),
                        frame->goaway.opaque_data_len);
        if (why.empty())
            why = self.m_protocolError;
        if (why.empty())
            why = connectionErrorText(frame->goaway.error_code);
        self.m_lastError = "HTTP/2: the server broke the protocol (" + why +
                           "): the client ended the session with GOAWAY " +
                           nghttp2_http2_strerror(frame->goaway.error_code);
        return 0;
    }

    static int streamClosed(nghttp2_session* session, int32_t id, uint32_t errorCode, void* user) {
        Http2Session& self = of(user);
        Http2Session::Stream* s = stream(session, id);
        if (!s)
            return 0;
        if (!s->ended) {
            const std::string code = nghttp2_http2_strerror(errorCode);
            const bool refusedByGoaway = self.m_goaway && id > self.m_goawayLastStream;
            if (!s->resetByPeer && errorCode != NGHTTP2_NO_ERROR && !refusedByGoaway &&
                !self.m_goawaySent) {
                // Not the server's reset, nor the session's end: the client's
                // own RST_STREAM, for a response it cannot take.
                self.emit(*s, StreamEvent::Kind::Failed, ErrorClass::Exception,
                          "HTTP/2: the client reset " + streamText(id) + " (" + code +
                              "): " + resetReason(*s));
            } else if (s->resetByPeer) {
                self.emit(*s, StreamEvent::Kind::Failed, ErrorClass::RstStream,
                          "HTTP/2: the server reset " + streamText(id) + " (RST_STREAM " +
                              nghttp2_http2_strerror(s->resetCode) + ")");
            } else if (refusedByGoaway) {
                self.emit(*s, StreamEvent::Kind::Refused, ErrorClass::Goaway,
                          "HTTP/2: the server's GOAWAY (" +
                              std::string(nghttp2_http2_strerror(self.m_goawayError)) +
                              ", last stream " + std::to_string(self.m_goawayLastStream) +
                              ") refused " + streamText(id));
            } else {
                self.emit(*s, StreamEvent::Kind::Failed, ErrorClass::Exception,
                          "HTTP/2: " + streamText(id) + " closed without its response (" + code +
                              (self.m_lastError.empty() ? "" : ": " + self.m_lastError) + ")");
            }
        }
        nghttp2_session_set_stream_user_data(session, id, nullptr);
        self.release(s);
        return 0;
    }

    static int error(nghttp2_session* /*session*/, int /*code*/, const char* message, size_t length,
                     void* user) {
        const std::string_view text(message, length);
        if (text.starts_with(kRefusedFieldText))
            of(user).m_callbackError.assign(text);
        return 0;
    }

    static ssize_t readBody(nghttp2_session* session, int32_t id, uint8_t* buffer, size_t length,
                            uint32_t* flags, nghttp2_data_source* /*source*/, void* user) {
        const std::string& body = of(user).m_request.body;
        Http2Session::Stream* s = stream(session, id);
        const uint64_t sent = s ? s->bodySent : body.size();
        const size_t n = std::min<size_t>(length, body.size() - sent);
        std::memcpy(buffer, body.data() + sent, n);
        if (s)
            s->bodySent += n;
        if (sent + n == body.size())
            *flags |= NGHTTP2_DATA_FLAG_EOF;
        return ssize_t(n);
    }
};

Http2Session::Http2Session(const Http2Request& request, const Http2Settings& settings)
    : m_request(request)
    , m_settings(settings) {
    m_fields.reserve(request.fields.size());
    for (const auto& [name, value] : request.fields) {
        nghttp2_nv nv{};
        nv.name = reinterpret_cast<uint8_t*>(const_cast<char*>(name.data()));
        nv.namelen = name.size();
        nv.value = reinterpret_cast<uint8_t*>(const_cast<char*>(value.data()));
        nv.valuelen = value.size();
        nv.flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
        m_fields.push_back(nv);
    }
    start();
}

Http2Session::~Http2Session() {
    if (m_session)
        nghttp2_session_del(m_session);
}

void Http2Session::start() {
    if (m_session)
        nghttp2_session_del(m_session); // calls no callback
    m_session = nullptr;
    m_streamStore.clear();
    m_freeStreams.clear();
    m_lastStream = 0;
    m_settingsReceived = false;
    m_goaway = false;
    m_goawayLastStream = 0;
    m_goawayError = 0;
    m_failed = false;
    m_goawaySent = false;
    m_events.clear();
    m_callbackError.clear();
    m_protocolError.clear();
    nghttp2_session_callbacks* callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) {
        m_failed = true;
        m_lastError = "HTTP/2: out of memory";
        return;
    }
    nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks, &Http2Callbacks::beginFrame);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &Http2Callbacks::header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks,
                                                              &Http2Callbacks::dataChunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Http2Callbacks::frameReceived);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks,
                                                           &Http2Callbacks::streamClosed);
    nghttp2_session_callbacks_set_error_callback2(callbacks, &Http2Callbacks::error);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks,
                                                                 &Http2Callbacks::invalidFrame);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &Http2Callbacks::frameSent);
    const int created =
        nghttp2_session_client_new3(&m_session, callbacks, this, nullptr, m_memory.mem());
    nghttp2_session_callbacks_del(callbacks);
    if (created != 0) {
        m_session = nullptr;
        m_failed = true;
        m_lastError = std::string("HTTP/2: ") + nghttp2_strerror(created);
        return;
    }
    // No server push, and windows that do not throttle a benchmark unless asked.
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, windowOf(m_settings.windowBits)},
    };
    nghttp2_submit_settings(m_session, NGHTTP2_FLAG_NONE, settings, std::size(settings));
    // The connection's window starts at 65535 whatever the SETTINGS say.
    nghttp2_session_set_local_window_size(m_session, NGHTTP2_FLAG_NONE, 0,
                                          int32_t(windowOf(m_settings.connectionWindowBits)));
}

Http2Session::Stream* Http2Session::newStream() {
    Stream* s = nullptr;
    if (!m_freeStreams.empty()) {
        s = m_freeStreams.back();
        m_freeStreams.pop_back();
    } else {
        s = &m_streamStore.emplace_back();
    }
    *s = Stream{};
    return s;
}

void Http2Session::release(Stream* stream) {
    m_freeStreams.push_back(stream);
}

void Http2Session::emit(Stream& s, StreamEvent::Kind kind, ErrorClass error, std::string message) {
    StreamEvent e;
    e.kind = kind;
    e.stream = s.id;
    e.info = s.info;
    e.bytes = s.bytes - s.unconfirmed;
    e.firstByteNs = s.firstByteNs;
    e.error = error;
    e.message = std::move(message);
    m_events.push_back(std::move(e));
}

void Http2Session::queueRequest(RequestQueue& out) {
    m_lastStream = 0;
    if (!m_session || m_failed)
        return;
    Stream* s = newStream();
    nghttp2_data_provider body{};
    body.read_callback = &Http2Callbacks::readBody;
    const int32_t id = nghttp2_submit_request(m_session, nullptr, m_fields.data(), m_fields.size(),
                                              m_request.body.empty() ? nullptr : &body, s);
    if (id < 0) {
        release(s);
        m_failed = true;
        m_lastError = std::string("HTTP/2: cannot open a stream: ") + nghttp2_strerror(id);
        return;
    }
    s->id = id;
    m_lastStream = id;
    produce(out);
}

void Http2Session::produce(RequestQueue& out) {
    if (!m_session || m_failed)
        return;
    for (;;) {
        const uint8_t* bytes = nullptr;
        const ssize_t n = nghttp2_session_mem_send(m_session, &bytes);
        if (n < 0) {
            m_failed = true;
            m_lastError = std::string("HTTP/2: ") + nghttp2_strerror(int(n));
            return;
        }
        if (n == 0)
            return;
        // Valid only until the next call: copied.
        out.append(std::string_view(reinterpret_cast<const char*>(bytes), size_t(n)));
    }
}

bool Http2Session::canOpenStream(size_t outstanding) const {
    // The library's own answer covers a GOAWAY sent (a protocol error it
    // found in the server's bytes), received or pending, and spent stream ids.
    if (!m_session || m_failed || m_goaway || !nghttp2_session_check_request_allowed(m_session))
        return false;
    // Until the server's SETTINGS arrive its stream limit is unknown: one
    // stream goes out with the preface, the rest once the limit is known,
    // so that nghttp2 never holds a submitted stream back (its latency would
    // then include the wait).
    if (!m_settingsReceived)
        return outstanding == 0;
    return outstanding <
           nghttp2_session_get_remote_settings(m_session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
}

bool Http2Session::receive(std::string_view data, int64_t now, std::vector<StreamEvent>& events) {
    if (!m_session || m_failed)
        return false;
    m_now = now;
    const ssize_t n = nghttp2_session_mem_recv(
        m_session, reinterpret_cast<const uint8_t*>(data.data()), data.size());
    takeEvents(events);
    if (n < 0) {
        m_failed = true;
        m_lastError = std::string("HTTP/2: ") + nghttp2_strerror(int(n));
        return false;
    }
    return true;
}

void Http2Session::takeEvents(std::vector<StreamEvent>& events) {
    if (m_events.empty())
        return;
    std::move(m_events.begin(), m_events.end(), std::back_inserter(events));
    m_events.clear();
}

bool Http2Session::over() const {
    return !m_session || m_failed ||
           (!nghttp2_session_want_read(m_session) && !nghttp2_session_want_write(m_session));
}

FeedResult Http2Session::feed(std::string_view data) {
    m_fedEvents.clear();
    FeedResult r;
    r.consumed = data.size();
    if (!receive(data, m_now, m_fedEvents)) {
        r.status = FeedResult::Status::Malformed;
        return r;
    }
    for (StreamEvent& e : m_fedEvents) {
        if (e.kind == StreamEvent::Kind::Complete) {
            r.status = FeedResult::Status::Complete;
            r.info = e.info;
            return r;
        }
        m_lastError = e.message;
        r.status = FeedResult::Status::Malformed;
        return r;
    }
    if (over() && !m_lastError.empty())
        r.status = FeedResult::Status::Malformed;
    return r;
}

FeedResult Http2Session::finishAtEof() {
    FeedResult r;
    if (m_streamStore.size() > m_freeStreams.size()) {
        m_lastError = "HTTP/2: the connection closed before the response ended";
        r.status = FeedResult::Status::Malformed;
    }
    return r;
}

void Http2Session::resetConnection() {
    m_lastError.clear();
    start();
}

} // namespace loadscope::engine
