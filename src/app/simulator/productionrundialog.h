// Before a simulation runs on a server marked PRODUCTION: what it will write there, and the profile's name
// to type before the Run button works. Not modal: `confirmed` comes when the name was typed and Run chosen.
#pragma once

#include <QDialog>

class TypedNameGuard;

class ProductionRunDialog : public QDialog
{
    Q_OBJECT
public:
    ProductionRunDialog(const QString &keyPrefix, const QString &endpoint, const QString &productionName,
                        QWidget *parent = nullptr);

signals:
    void confirmed();

private:
    TypedNameGuard *m_guard = nullptr;
};
