// AppSettings: the app's QSettings, always in an owner-only file (it names the user's servers and files).
#pragma once

#include <QSettings>

class AppSettings : public QSettings
{
public:
    // Makes the settings file owner-only (creating it so) before anything is read or written.
    AppSettings();
};
