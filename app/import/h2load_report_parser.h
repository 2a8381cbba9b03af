#pragma once

#include "app/import/imported_report.h"

#include <QString>

namespace loadscope::app {

class ReportLines;

// Reads h2load reports (nghttp2's HTTP/2 and HTTP/1.1 benchmark): the threads and clients it
// spawned, the negotiated protocol and TLS, the request counts, status classes and traffic, and
// the min/max/mean/sd table of request, connect and first-byte times. Streams per connection
// (-m) are not in the report; they are read from the command above it when it was kept.
class H2loadReportParser {
public:
    static ImportResult parse(const ReportLines& lines, const QString& fileName);
};

} // namespace loadscope::app
