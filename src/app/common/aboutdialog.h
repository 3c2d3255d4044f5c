// Help ▸ About: versions of LockScope, Qt, hiredis, OpenSSL and the connected Redis.
#pragma once

#include <QString>

class QWidget;
struct ServerInfo;

namespace AboutDialog {
// The box's text (HTML): what a bug report needs.
QString text(const ServerInfo &server);
void show(QWidget *parent, const ServerInfo &server);
} // namespace AboutDialog
