// Help ▸ About: versions of LockScope, Qt, hiredis and the connected Redis.
#pragma once

class QWidget;
struct ServerInfo;

namespace AboutDialog {
void show(QWidget *parent, const ServerInfo &server);
}
