// AppSettings: QSettings whose file is made private first, wherever in the app it is opened.
#include "appsettings.h"

#include "logging.h"
#include "profiles/profilestore.h"

AppSettings::AppSettings()
{
    QString error;
    if (!ProfileStore::makePrivate(fileName(), &error))
        qCWarning(lcUi).noquote() << error;
}
