// The violations of the run on screen, as a list model: one sentence each, in red, with their time window.
// Live updates usually extend the list; rows are inserted then, and the model is reset only when the
// checker's answer changed earlier rows.
#pragma once

#include "sim/violation.h"

#include <QAbstractListModel>

class ViolationModel : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role { StartUsRole = Qt::UserRole + 1, EndUsRole, TypeRole };

    explicit ViolationModel(QObject *parent = nullptr);

    void setViolations(const QList<Violation> &violations);
    const QList<Violation> &violations() const { return m_violations; }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QList<Violation> m_violations;
};
