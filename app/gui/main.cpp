// The workbench window's entry point: arguments in, window out.
#include "app/gui/window_options.h"
#include "engine/file_limit.h"
#include "ui/shell/main_window.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>

int main(int argc, char* argv[]) {
    QApplication application(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Loadscope"));
    QApplication::setApplicationName(QStringLiteral("loadscope"));
    QApplication::setApplicationDisplayName(QStringLiteral("Loadscope"));
    QApplication::setApplicationVersion(QStringLiteral(LOADSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("loadscope"));

    QCommandLineParser parser;
    loadscope::app::addWindowOptions(parser);
    parser.process(application);

    // A sweep at c=1000 through the local proxy holds over 2000 descriptors;
    // take what the hard limit allows, as the command line does per run.
    loadscope::engine::raiseOpenFileLimit(1'000'000);

    loadscope::ui::MainWindow window;
    QApplication::setWindowIcon(window.windowIcon());
    window.show();
    const QStringList arguments = parser.positionalArguments();
    if (arguments.isEmpty()) {
        window.newSession();
    } else {
        // Once the window is up, so that an error has a window to appear over.
        QTimer::singleShot(0, &window,
                           [&window, path = arguments.first()] { window.openSession(path); });
    }
    return QApplication::exec();
}
