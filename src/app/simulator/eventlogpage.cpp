// EventLogPage: the filters drive the model's own filter; the table only shows it.
#include "eventlogpage.h"

#include "eventlogmodel.h"
#include "outputfile.h"
#include "timeline/timelinedata.h"

#include <QBuffer>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

EventLogPage::EventLogPage(EventLogModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    auto *logLayout = new QVBoxLayout(this);
    logLayout->setContentsMargins(0, 4, 0, 0);
    auto *filters = new QHBoxLayout;
    m_worker = new QComboBox(this);
    m_lock = new QComboBox(this);
    m_kind = new QComboBox(this);
    m_worker->setToolTip(tr("Only this worker's events (and its process's faults)"));
    m_lock->setToolTip(tr("Only events on this lock key"));
    m_kind->setToolTip(tr("Only this kind of event"));
    m_kind->addItem(tr("All kinds"), -1);
    for (int k = 0; k <= int(HistoryEvent::Kind::Round); ++k)
        m_kind->addItem(HistoryEvent::kindName(HistoryEvent::Kind(k)), k);
    filters->addWidget(new QLabel(tr("Filter:"), this));
    filters->addWidget(m_worker);
    filters->addWidget(m_lock);
    filters->addWidget(m_kind);
    filters->addStretch(1);
    auto *exportLog = new QToolButton(this);
    exportLog->setText(tr("Export shown rows…"));
    exportLog->setToolTip(tr("Save the rows shown (filters applied) as CSV"));
    connect(exportLog, &QToolButton::clicked, this, &EventLogPage::exportRequested);
    filters->addWidget(exportLog);
    logLayout->addLayout(filters);
    for (QComboBox *c : {m_worker, m_lock, m_kind})
        connect(c, &QComboBox::currentIndexChanged, this, &EventLogPage::applyFilter);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    for (int c = 0; c < EventLogModel::Detail; ++c)
        m_table->setColumnWidth(c, c == EventLogModel::Lock ? 150 : c == EventLogModel::Time ? 90 : 70);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &index) {
        emit timeClicked(index.data(EventLogModel::TimeUsRole).toLongLong());
    });
    logLayout->addWidget(m_table, 1);
}

void EventLogPage::refresh()
{
    QScrollBar *bar = m_table->verticalScrollBar();
    const bool atBottom = bar->value() >= bar->maximum() - 2;
    m_model->refresh();
    if (atBottom && m_table->isVisible())
        m_table->scrollToBottom();
}

void EventLogPage::setRunLayout(const TimelineData *d)
{
    for (QComboBox *c : {m_worker, m_lock})
        c->blockSignals(true);
    m_worker->clear();
    m_worker->addItem(tr("All workers"), -1);
    m_lock->clear();
    m_lock->addItem(tr("All lock keys"), -1);
    if (d) {
        for (int w = 0; w < d->workerCount(); ++w)
            m_worker->addItem(d->layout().workers.at(w), w);
        for (int l = 0; l < d->lockCount(); ++l)
            m_lock->addItem(d->layout().locks.at(l), l);
    }
    for (QComboBox *c : {m_worker, m_lock})
        c->blockSignals(false);
    applyFilter();
}

void EventLogPage::applyFilter()
{
    m_model->setFilter(m_worker->currentData().toInt(), m_lock->currentData().toInt(),
                       m_kind->currentData().toInt());
}

bool EventLogPage::writeCsv(const QString &path, QString *error) const
{
    // The log is formatted in memory, then written whole: the file is unbuffered.
    QBuffer csv;
    csv.open(QIODevice::WriteOnly);
    QString reason;
    if (m_model->writeCsv(csv) < 0 || !OutputFile::writeWhole(path, csv.data(), &reason)) {
        *error = tr("Cannot write %1: %2")
                     .arg(path, reason.isEmpty() ? tr("the log could not be formatted") : reason);
        return false;
    }
    return true;
}
