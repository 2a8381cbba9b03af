#pragma once

#include <QString>
#include <QStringList>

// Man pages made from the help the programs print, so that a page cannot say
// other than --help: `loadscope-man-page` (man_page_main.cpp) runs at build
// time, gathers the help of the window's parser, of loadscope-cli and of each
// of its commands and subcommands, and writes loadscope(1) and loadscope-cli(1).
namespace loadscope::cli {

struct ManPageSource {
    QString program; // "loadscope-cli"
    QString version; // "0.1.0"
    // The program's own --help: "Usage: PROGRAM ..." then what it is; its first
    // line after the usage is the page's NAME line.
    QString help;
    // Each command's --help, in the order the program lists them, each under
    // its own usage line.
    QStringList commandHelps;
    QStringList seeAlso; // other pages of section 1
};

// man(7) source: NAME, SYNOPSIS and DESCRIPTION from `help`, COMMANDS with a
// subsection per command, SEE ALSO. Help text is read as the programs print it:
// paragraphs, "Heading:" lines, and lists whose items are indented two spaces,
// their term and text apart by two or more spaces, the text's further lines
// indented deeper (Qt's option lists and the project's own). Everything is
// escaped for roff (backslashes, a leading dot or quote, option dashes,
// characters beyond ASCII).
QString manPage(const ManPageSource& source);

} // namespace loadscope::cli
