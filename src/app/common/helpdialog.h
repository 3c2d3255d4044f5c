// The Help menu's two windows: the user guide (the README, bundled, readable offline) and the list of
// keyboard shortcuts, read from the actions the main window really has (so it cannot go stale).
#pragma once

#include <QString>
#include <QStringList>

class QWidget;

namespace HelpDialog {

// The README as shipped inside the program, without its pictures (they are not bundled).
QString guideMarkdown();
void showGuide(QWidget *parent);

// "shortcut — what it does" for every action of `window` (and its children) that has a shortcut.
QStringList shortcutLines(const QWidget *window);
void showShortcuts(QWidget *window);

} // namespace HelpDialog
