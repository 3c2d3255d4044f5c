// lockscope: the desktop app. All widgets live in lockscope_gui; this only parses arguments and shows the
// window.
#include "common/appoptions.h"
#include "mainwindow.h"
#include "version.h"

#include <QApplication>
#include <QIcon>

#include <cstdio>

int main(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);

    // --version and --help must work on a machine without a display.
    if (AppOptions::isInfoOnly(arguments)) {
        QCoreApplication app(argc, argv);
        AppOptions options;
        QString message;
        const auto outcome = AppOptions::parse(arguments, &options, &message);
        std::fprintf(outcome == AppOptions::Outcome::ExitUsage ? stderr : stdout, "%s\n",
                     qPrintable(message));
        return outcome == AppOptions::Outcome::ExitUsage ? 2 : 0;
    }

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("LockScope"));
    QApplication::setApplicationDisplayName(QStringLiteral("LockScope"));
    QApplication::setApplicationVersion(QStringLiteral(LOCKSCOPE_VERSION));
    QApplication::setOrganizationName(QStringLiteral("LockScope"));
    QApplication::setDesktopFileName(QStringLiteral("io.github.lockscope.LockScope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/lockscope.svg")));

    AppOptions options;
    QString message;
    const auto outcome = AppOptions::parse(QApplication::arguments(), &options, &message);
    if (outcome != AppOptions::Outcome::Run) {
        std::fprintf(stderr, "lockscope: %s\n", qPrintable(message));
        return 2;
    }

    MainWindow window(options);
    window.show();
    return app.exec();
}
