// A production server's safety catch: a field where the user types the profile's name, and a check that
// says whether it was typed exactly. Used before a write to a server marked PRODUCTION (force unlock, set
// TTL, CONFIG SET) and before a simulation runs on it.
#pragma once

#include <QWidget>

class QLineEdit;

class TypedNameGuard : public QWidget
{
    Q_OBJECT
public:
    // `what`: the action, in a few words ("force-unlock", "run the simulation").
    TypedNameGuard(const QString &profileName, const QString &what, QWidget *parent = nullptr);

    bool isSatisfied() const;
    QLineEdit *nameEdit() const { return m_name; }

signals:
    void satisfiedChanged(bool satisfied);

private:
    QString m_expected;
    QLineEdit *m_name = nullptr;
};
