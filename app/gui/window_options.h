#pragma once

class QCommandLineParser;

namespace loadscope::app {

// The window's command line: its description, --help, --version and the
// optional session to open. One definition for the window's main() and for
// its man page, which is made from this parser's own help (man_page.h).
void addWindowOptions(QCommandLineParser& parser);

} // namespace loadscope::app
