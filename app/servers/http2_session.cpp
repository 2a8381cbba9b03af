#include "app/servers/http2_session.h"

#include "app/servers/server_loop.h"

#include <algorithm>
#include <cstring>
#include <nghttp2/nghttp2.h>

namespace loadscope::app {

namespace {

// Output gathered from nghttp2 before one write: a few DATA frames, so that a write carries many
// frames without a connection holding much memory.
constexpr size_t kOutputBatch = 64 * 1024;

nghttp2_nv header(std::string_view name, std::string_view value) {
    // Names and values live as long as the server (literals, the session's own strings).
    return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
            reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
            NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

} // namespace

struct Http2Callbacks {
    static Http2Session& of(void* user) { return *static_cast<Http2Session*>(user); }

    static int beginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user) {
        if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
            of(user).m_streams.try_emplace(frame->hd.stream_id);
        return 0;
    }

    static int header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t nameLength, const uint8_t* value, size_t valueLength, uint8_t,
                      void* user) {
        if (frame->hd.type != NGHTTP2_HEADERS ||
            std::string_view(reinterpret_cast<const char*>(name), nameLength) != ":method")
            return 0;
        Http2Session& session = of(user);
        const auto found = session.m_streams.find(frame->hd.stream_id);
        if (found != session.m_streams.end())
            found->second.head =
                std::string_view(reinterpret_cast<const char*>(value), valueLength) == "HEAD";
        return 0;
    }

    static int frameReceived(nghttp2_session*, const nghttp2_frame* frame, void* user) {
        // A request is answered once it is whole, its body (if any) read and dropped, as
        // HTTP/1.1 requests are.
        if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
            (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
            return of(user).respond(frame->hd.stream_id) ? 0 : NGHTTP2_ERR_CALLBACK_FAILURE;
        return 0;
    }

    // A client that broke the protocol is told so by a GOAWAY with an error, whether nghttp2
    // found it (a frame that is wrong where it stands) or fail() did: counted once, here.
    static int frameSent(nghttp2_session*, const nghttp2_frame* frame, void* user) {
        if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR)
            of(user).m_loop.countError();
        return 0;
    }

    static int streamClosed(nghttp2_session*, int32_t streamId, uint32_t, void* user) {
        of(user).m_streams.erase(streamId);
        return 0;
    }

    // Called only as far as the client's stream and connection windows allow.
    static ssize_t readBody(nghttp2_session*, int32_t streamId, uint8_t* buffer, size_t length,
                            uint32_t* flags, nghttp2_data_source*, void* user) {
        Http2Session& session = of(user);
        const auto found = session.m_streams.find(streamId);
        if (found == session.m_streams.end())
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; // resets that stream only
        Http2Session::Stream& stream = found->second;
        const size_t size = std::min(length, session.m_document.size() - stream.offset);
        std::memcpy(buffer, session.m_document.data() + stream.offset, size);
        stream.offset += size;
        if (stream.offset == session.m_document.size())
            *flags |= NGHTTP2_DATA_FLAG_EOF;
        return ssize_t(size);
    }
};

Http2Session::Http2Session(ServerLoop& loop, std::string_view document)
    : m_loop(loop)
    , m_document(document)
    , m_contentLength(std::to_string(document.size())) {}

Http2Session::~Http2Session() {
    nghttp2_session_del(m_session);
}

std::unique_ptr<Http2Session> Http2Session::create(ServerLoop& loop, std::string_view document) {
    std::unique_ptr<Http2Session> session(new Http2Session(loop, document));
    nghttp2_session_callbacks* callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0)
        return nullptr;
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks,
                                                            &Http2Callbacks::beginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &Http2Callbacks::header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Http2Callbacks::frameReceived);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &Http2Callbacks::frameSent);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks,
                                                           &Http2Callbacks::streamClosed);
    const int made = nghttp2_session_server_new(&session->m_session, callbacks, session.get());
    nghttp2_session_callbacks_del(callbacks);
    if (made != 0)
        return nullptr;
    // The server's connection preface: its SETTINGS, sent before anything is read.
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, kMaxConcurrentStreams}};
    if (nghttp2_submit_settings(session->m_session, NGHTTP2_FLAG_NONE, settings,
                                std::size(settings)) != 0)
        return nullptr;
    return session;
}

void Http2Session::receive(std::span<const char> bytes) {
    if (m_broken)
        return;
    // Errors in frames nghttp2 answers itself (RST_STREAM, or GOAWAY and the end of reading);
    // what it returns here is an error it cannot go on from, such as a wrong preface.
    const ssize_t used = nghttp2_session_mem_recv(
        m_session, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (used < 0)
        fail();
}

void Http2Session::fail() {
    // The GOAWAY tells the client why (and counts the error once sent); a session that cannot
    // even queue it just closes.
    if (nghttp2_session_terminate_session(m_session, NGHTTP2_PROTOCOL_ERROR) != 0) {
        m_loop.countError();
        m_broken = true;
    }
}

bool Http2Session::respond(int32_t streamId) {
    const auto found = m_streams.find(streamId);
    if (found == m_streams.end() || found->second.answered)
        return true;
    found->second.answered = true;
    const nghttp2_nv headers[] = {
        header(":status", "200"),
        header("server", "loadscope"),
        header("content-type", "text/html"),
        header("content-length", m_contentLength),
    };
    nghttp2_data_provider body{};
    body.read_callback = &Http2Callbacks::readBody;
    const bool withBody = !found->second.head && !m_document.empty();
    if (nghttp2_submit_response(m_session, streamId, headers, std::size(headers),
                                withBody ? &body : nullptr) != 0)
        return false;
    m_loop.countRequests(1);
    return true;
}

std::string_view Http2Session::output() {
    if (m_outputOffset >= m_output.size()) {
        m_output.clear();
        m_outputOffset = 0;
    }
    while (!m_broken && m_output.size() - m_outputOffset < kOutputBatch) {
        const uint8_t* data = nullptr;
        const ssize_t size = nghttp2_session_mem_send(m_session, &data);
        if (size < 0) {
            m_broken = true;
            m_loop.countError();
            break;
        }
        if (size == 0)
            break;
        m_output.append(reinterpret_cast<const char*>(data), size_t(size));
    }
    return std::string_view(m_output).substr(m_outputOffset);
}

bool Http2Session::finished() const {
    return m_broken ||
           (m_outputOffset >= m_output.size() && !nghttp2_session_want_read(m_session) &&
            !nghttp2_session_want_write(m_session));
}

} // namespace loadscope::app
