// ScenarioEditor: JSON in, widgets, JSON out; validation by ScenarioParser.
#include "scenarioeditor.h"

#include "ui_scenarioeditor.h"

#include "locks/lockcatalog.h"
#include "sim/clientcatalog.h"
#include "sim/scenarioparser.h"
#include "common/timelinepalette.h"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>

namespace {

// The algorithm combo's data for a real library: "client:redis-py"; a scenario's own command: kYourClient.
const QString kClientPrefix = QStringLiteral("client:");
const QString kYourClient = QStringLiteral("client-command");

const QStringList kStrategies {QStringLiteral("spin"), QStringLiteral("fixed"), QStringLiteral("jitter"),
                               QStringLiteral("backoff"), QStringLiteral("pubsub")};
const QStringList kClocks {QStringLiteral("monotonic"), QStringLiteral("cached-5ms")};
const QStringList kEngines {QStringLiteral("threads"), QStringLiteral("events")};
const QStringList kDistributions {QStringLiteral("fixed"), QStringLiteral("uniform"),
                                  QStringLiteral("exponential")};

struct FaultType
{
    const char *id;
    const char *tip;
};
const FaultType kFaultTypes[] = {
    {"pause", "The process stops the world for duration_ms: its threads and its watchdog (a GC pause)"},
    {"crash", "The process dies holding its locks"},
    {"delay", "Every command of the process is delayed by delay_ms"},
    {"server-restart", "The server crashes and restarts without persistence: it comes back empty"},
    {"server-pause", "The server is frozen (SIGSTOP) for duration_ms"},
    {"server-kill", "The server dies and stays down"},
    {"failover", "The master dies and its replica is promoted"},
    {"clock-skew", "The process's clock is off (edit skew_ms/rate in the JSON file)"},
    {"crash-after-setnx", "Seed 001's flaw: the process dies between SETNX and EXPIRE"},
    {"get-del-delay", "Seed 002's flaw: delay_ms between the release's GET and its DEL"},
    {"drop-notifications", "The process's pub/sub listener loses every release message"},
    {"partition", "The process is cut off from the servers for duration_ms: its commands get no reply"},
};

enum FaultColumn { FType, FAt, FChance, FProcess, FServer, FDuration, FDelay, FColumns };
const char *const kFaultFields[]
    = {"type", "at_ms", "probability", "process", "server", "duration_ms", "delay_ms"};

QString numberText(const QJsonValue &v)
{
    return v.isDouble() ? QString::number(v.toDouble()) : QString();
}

} // namespace

ScenarioEditor::ScenarioEditor(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::ScenarioEditor>())
{
    m_ui->setupUi(this);
    for (const LockAlgorithmInfo &info : LockCatalog::all())
        m_ui->algorithmCombo->addItem(info.title, info.id);
    m_ui->algorithmCombo->addItem(tr("No lock at all (baseline)"), QStringLiteral("none"));
    // Real libraries (docs/client-protocol.md): each worker a process of its own running the library.
    m_ui->algorithmCombo->insertSeparator(m_ui->algorithmCombo->count());
    for (const ClientCatalog::Adapter &a : ClientCatalog::all())
        m_ui->algorithmCombo->addItem(tr("%1 (real library)").arg(a.title), kClientPrefix + a.id);

    QTableWidget *faults = m_ui->faultsTable;
    faults->setColumnCount(FColumns);
    faults->setHorizontalHeaderLabels({tr("Type"), tr("At (ms)"), tr("Chance/s"), tr("Process"), tr("Server"),
                                       tr("Duration (ms)"), tr("Delay (ms)")});
    faults->horizontalHeaderItem(FAt)->setToolTip(tr("When it happens (run time); empty: by chance instead"));
    faults->horizontalHeaderItem(FChance)->setToolTip(
        tr("Chance per second of run time, when no time is given"));
    faults->horizontalHeaderItem(FProcess)->setToolTip(
        tr("Which process (0 = the first); empty: every one or a random one"));
    faults->verticalHeader()->hide();
    faults->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    faults->horizontalHeader()->setStretchLastSection(true);
    faults->setMinimumHeight(110);

    QTableWidget *steps = m_ui->stepsTable;
    steps->setColumnCount(5);
    steps->setHorizontalHeaderLabels({tr("At"), tr("Actor"), tr("Action"), tr("ms"), tr("Note")});
    steps->verticalHeader()->hide();
    steps->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    steps->horizontalHeader()->setStretchLastSection(true);
    steps->setMinimumHeight(160);

    m_ui->expectationsEdit->setMaximumHeight(90);
    m_ui->expectationsEdit->setPlaceholderText(tr("e.g. overlaps == 0"));

    const auto edited = [this] { onEdited(); };
    for (QSpinBox *s : findChildren<QSpinBox *>())
        connect(s, &QSpinBox::valueChanged, this, edited);
    for (QDoubleSpinBox *s : findChildren<QDoubleSpinBox *>())
        connect(s, &QDoubleSpinBox::valueChanged, this, edited);
    for (QCheckBox *c : findChildren<QCheckBox *>())
        connect(c, &QCheckBox::toggled, this, edited);
    for (QComboBox *c : std::initializer_list<QComboBox *> {m_ui->algorithmCombo, m_ui->retryCombo, m_ui->clockCombo,
                                                           m_ui->csDistributionCombo, m_ui->engineCombo})
        connect(c, &QComboBox::currentIndexChanged, this, edited);
    connect(m_ui->titleEdit, &QLineEdit::textEdited, this, edited);
    connect(m_ui->keyPrefixEdit, &QLineEdit::textEdited, this, edited);
    connect(m_ui->expectationsEdit, &QPlainTextEdit::textChanged, this, edited);
    connect(faults, &QTableWidget::itemChanged, this, edited);
    connect(m_ui->addFaultButton, &QPushButton::clicked, this, [this] {
        addFaultRow(QJsonObject {{QStringLiteral("type"), QStringLiteral("pause")},
                                 {QStringLiteral("at_ms"), 1000},
                                 {QStringLiteral("process"), 0},
                                 {QStringLiteral("duration_ms"), 2000}});
        onEdited();
    });
    connect(m_ui->removeFaultButton, &QPushButton::clicked, this, [this] {
        const int row = m_ui->faultsTable->currentRow();
        if (row >= 0) {
            m_ui->faultsTable->removeRow(row);
            onEdited();
        }
    });
    for (QAbstractSpinBox *box : findChildren<QAbstractSpinBox *>())
        guardWheel(box);
    for (QComboBox *box : findChildren<QComboBox *>())
        guardWheel(box);
    // The editor is narrow beside the timeline: nothing may need more than its width. A field whose least
    // width does not fit beside its name goes under it; long texts wrap.
    for (QFormLayout *form : findChildren<QFormLayout *>())
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    for (QCheckBox *box : findChildren<QCheckBox *>())
        wrapText(box);
    m_ui->kindLabel->setWordWrap(true);
    setScenario(Scenario());
}

void ScenarioEditor::wrapText(QCheckBox *box)
{
    if (box->text().isEmpty())
        return;
    auto *row = new QWidget(box->parentWidget());
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *label = new QLabel(box->text(), row);
    label->setWordWrap(true);
    label->setToolTip(box->toolTip());
    label->installEventFilter(this);
    m_boxOfLabel.insert(label, box);
    box->setAccessibleName(box->text()); // the label is what a screen reader would otherwise miss
    // replaceWidget hands back the box's old layout item, which nobody owns any more.
    delete box->parentWidget()->layout()->replaceWidget(box, row);
    box->setText(QString());
    box->setParent(row);
    layout->addWidget(box, 0, Qt::AlignTop);
    layout->addWidget(label, 1);
    box->installEventFilter(this); // the label goes grey with the box (EnabledChange)
}

ScenarioEditor::~ScenarioEditor() = default;

void ScenarioEditor::guardWheel(QWidget *field)
{
    field->setFocusPolicy(Qt::StrongFocus); // the wheel alone must not focus it either
    field->installEventFilter(this);
}

bool ScenarioEditor::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::MouseButtonRelease) {
        if (QCheckBox *box = m_boxOfLabel.value(watched); box && box->isEnabled()) {
            box->toggle();
            return true;
        }
    }
    if (event->type() == QEvent::EnabledChange) {
        // A box disabled (its option does not apply) greys its wrapped text too.
        for (auto it = m_boxOfLabel.begin(); it != m_boxOfLabel.end(); ++it) {
            if (it.value() == watched)
                qobject_cast<QWidget *>(it.key())->setEnabled(it.value()->isEnabled());
        }
    }
    if (event->type() == QEvent::Wheel) {
        auto *field = qobject_cast<QWidget *>(watched);
        if (field && !field->hasFocus()) {
            // Not for this field: ignored, Qt hands the wheel on to its parents, and the form scrolls.
            event->ignore();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void ScenarioEditor::setScenario(const Scenario &scenario)
{
    m_base = ScenarioParser::toJson(scenario);
    fill();
    m_modified = false;
}

void ScenarioEditor::fill()
{
    m_loading = true;
    const QJsonObject o = m_base;
    const QJsonObject a = o.value(QStringLiteral("algorithm")).toObject();
    const QJsonObject retry = a.value(QStringLiteral("retry")).toObject();
    const QJsonObject w = o.value(QStringLiteral("workload")).toObject();
    const QJsonObject cs = w.value(QStringLiteral("critical_section")).toObject();
    const QJsonObject servers = o.value(QStringLiteral("servers")).toObject();
    const QJsonObject resource = o.value(QStringLiteral("resource")).toObject();
    const bool story = o.value(QStringLiteral("kind")).toString() == QLatin1String("story");

    m_ui->titleEdit->setText(o.value(QStringLiteral("title")).toString());
    m_ui->titleEdit->setCursorPosition(0); // a title longer than the field shows its start
    const bool events = w.value(QStringLiteral("engine")).toString() == QLatin1String("events");
    m_ui->kindLabel->setText(story ? tr("story (scripted steps, one actor per process)")
                             : events ? tr("workload (workers looping as fibers on the event engine)")
                                      : tr("workload (worker threads looping)"));
    m_ui->summaryLabel->setText(o.value(QStringLiteral("summary")).toString());
    m_ui->summaryLabel->setVisible(!m_ui->summaryLabel->text().isEmpty());

    const QJsonObject client = o.value(QStringLiteral("client")).toObject();
    QString algorithm = a.value(QStringLiteral("id")).toString();
    if (client.contains(QStringLiteral("adapter"))) {
        algorithm = kClientPrefix + client.value(QStringLiteral("adapter")).toString();
    } else if (client.contains(QStringLiteral("command"))) {
        // A program of the user's, named in the file: offered as it is, not editable here.
        algorithm = kYourClient;
        const int existing = m_ui->algorithmCombo->findData(kYourClient);
        if (existing >= 0)
            m_ui->algorithmCombo->removeItem(existing);
        const QStringList argv = client.value(QStringLiteral("command")).toVariant().toStringList();
        m_ui->algorithmCombo->addItem(tr("Your adapter: %1").arg(argv.join(u' ')), kYourClient);
    }
    m_ui->algorithmCombo->setCurrentIndex(std::max(0, m_ui->algorithmCombo->findData(algorithm)));
    m_ui->leaseSpin->setValue(a.value(QStringLiteral("lease_ms")).toInt());
    m_ui->watchdogCheck->setChecked(a.value(QStringLiteral("watchdog")).toBool());
    m_ui->watchdogPeriodSpin->setValue(a.value(QStringLiteral("watchdog_period_ms")).toInt());
    m_ui->retryCombo->setCurrentIndex(
        std::max<int>(0, kStrategies.indexOf(retry.value(QStringLiteral("strategy")).toString())));
    m_ui->retryIntervalSpin->setValue(retry.value(QStringLiteral("interval_ms")).toInt());
    m_ui->retryJitterSpin->setValue(retry.value(QStringLiteral("jitter_ms")).toInt());
    m_ui->retryMaxSpin->setValue(retry.value(QStringLiteral("max_ms")).toInt());
    m_ui->acquireTimeoutSpin->setValue(a.value(QStringLiteral("acquire_timeout_ms")).toInt());
    m_ui->reentrancySpin->setValue(a.value(QStringLiteral("reentrancy")).toInt());
    m_ui->poolSizeSpin->setValue(a.value(QStringLiteral("pool_size")).toInt());
    m_ui->clockCombo->setCurrentIndex(
        std::max<int>(0, kClocks.indexOf(a.value(QStringLiteral("clock")).toString())));

    m_ui->engineCombo->setCurrentIndex(
        std::max<int>(0, kEngines.indexOf(w.value(QStringLiteral("engine")).toString())));
    updateWorkerLimits(); // before the counts: a fleet's counts are above the thread engine's limits
    m_ui->processesSpin->setValue(w.value(QStringLiteral("processes")).toInt());
    m_ui->threadsSpin->setValue(w.value(QStringLiteral("threads_per_process")).toInt());
    m_ui->locksSpin->setValue(w.value(QStringLiteral("locks")).toInt());
    m_ui->durationSpin->setValue(w.value(QStringLiteral("duration_s")).toDouble());
    m_ui->operationsSpin->setValue(int(w.value(QStringLiteral("operations")).toDouble()));
    m_ui->csDistributionCombo->setCurrentIndex(
        std::max<int>(0, kDistributions.indexOf(cs.value(QStringLiteral("distribution")).toString())));
    m_ui->csMsSpin->setValue(cs.value(QStringLiteral("ms")).toDouble());
    m_ui->csMinSpin->setValue(cs.value(QStringLiteral("min_ms")).toDouble());
    m_ui->csMaxSpin->setValue(cs.value(QStringLiteral("max_ms")).toDouble());
    m_ui->csMeanSpin->setValue(cs.value(QStringLiteral("mean_ms")).toDouble());
    m_ui->thinkSpin->setValue(w.value(QStringLiteral("think_ms")).toDouble());
    m_ui->seedSpin->setValue(int(std::min(2147483647.0, w.value(QStringLiteral("seed")).toDouble())));
    m_ui->keyPrefixEdit->setText(w.value(QStringLiteral("key_prefix")).toString());

    m_ui->serverCountSpin->setValue(servers.value(QStringLiteral("count")).toInt());
    m_ui->replicasSpin->setValue(servers.value(QStringLiteral("replicas")).toInt());
    m_ui->clusterCheck->setChecked(servers.value(QStringLiteral("cluster")).toBool());
    m_ui->sentinelCheck->setChecked(servers.value(QStringLiteral("sentinel")).toBool());
    m_ui->restartDelaySpin->setValue(servers.value(QStringLiteral("restart_delay_ms")).toDouble());
    m_ui->counterCheck->setChecked(resource.value(QStringLiteral("counter")).toBool());
    m_ui->counterInitialSpin->setValue(int(resource.value(QStringLiteral("counter_initial")).toDouble()));
    m_ui->fencedStoreCheck->setChecked(resource.value(QStringLiteral("fenced_store")).toBool());

    fillFaults(o.value(QStringLiteral("faults")).toArray());

    m_ui->workloadGroup->setVisible(!story);
    m_ui->storyGroup->setVisible(story);
    const QJsonObject storyObject = o.value(QStringLiteral("story")).toObject();
    const QJsonArray actors = storyObject.value(QStringLiteral("actors")).toArray();
    QStringList actorNames;
    for (const QJsonValue &v : actors)
        actorNames << v.toString();
    m_ui->actorsLabel->setText(
        tr("Actors (each a process of its own): %1").arg(actorNames.join(QStringLiteral(", "))));
    const QJsonArray steps = storyObject.value(QStringLiteral("steps")).toArray();
    m_ui->stepsTable->setRowCount(int(steps.size()));
    for (int i = 0; i < steps.size(); ++i) {
        const QJsonObject s = steps.at(i).toObject();
        const QStringList cells {
            numberText(s.value(QStringLiteral("at_ms"))), s.value(QStringLiteral("actor")).toString(),
            s.value(QStringLiteral("action")).toString(), numberText(s.value(QStringLiteral("ms"))),
            s.value(QStringLiteral("note")).toString()};
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells.at(c));
            item->setToolTip(cells.at(c));
            m_ui->stepsTable->setItem(i, c, item);
        }
    }

    const QJsonArray variants = o.value(QStringLiteral("variants")).toArray();
    QStringList variantNames;
    for (const QJsonValue &v : variants)
        variantNames << v.toObject().value(QStringLiteral("name")).toString();
    m_ui->variantsLabel->setText(
        variantNames.isEmpty()
            ? tr("One run. Expectations (one per line) decide whether it showed what it should:")
            : tr("A comparison: the run is repeated for each variant (%1) with its own settings. "
                 "Expectations "
                 "may compare them, e.g. %2.overlaps:")
                  .arg(variantNames.join(QStringLiteral(", ")), variantNames.first()));
    QStringList expect;
    for (const QJsonValue &v : o.value(QStringLiteral("expect")).toArray())
        expect << v.toString();
    m_ui->expectationsEdit->setPlainText(expect.join(u'\n'));

    updateAlgorithmInfo();
    updateEnabled();
    m_loading = false;
    validate();
}

void ScenarioEditor::fillFaults(const QJsonArray &faults)
{
    m_ui->faultsTable->setRowCount(0);
    for (const QJsonValue &v : faults)
        addFaultRow(v.toObject());
}

void ScenarioEditor::addFaultRow(const QJsonObject &fault)
{
    QTableWidget *t = m_ui->faultsTable;
    const bool loading = m_loading;
    m_loading = true;
    const int row = t->rowCount();
    t->insertRow(row);
    auto *type = new QComboBox(t);
    guardWheel(type);
    for (const FaultType &f : kFaultTypes) {
        type->addItem(QString::fromLatin1(f.id));
        type->setItemData(type->count() - 1, tr(f.tip), Qt::ToolTipRole);
    }
    type->setCurrentText(fault.value(QStringLiteral("type")).toString());
    type->setProperty("original", fault); // fields the table does not show (servers, where, skew…) survive
    connect(type, &QComboBox::currentIndexChanged, this, [this] { onEdited(); });
    t->setCellWidget(row, FType, type);
    for (int c = FAt; c < FColumns; ++c) {
        const QJsonValue v = fault.value(QLatin1String(kFaultFields[c]));
        t->setItem(row, c, new QTableWidgetItem(numberText(v)));
    }
    m_loading = loading;
}

QJsonArray ScenarioEditor::faultsJson() const
{
    QJsonArray list;
    const QTableWidget *t = m_ui->faultsTable;
    for (int row = 0; row < t->rowCount(); ++row) {
        auto *type = qobject_cast<QComboBox *>(t->cellWidget(row, FType));
        QJsonObject o = type ? type->property("original").toJsonObject() : QJsonObject();
        o.insert(QStringLiteral("type"), type ? type->currentText() : QStringLiteral("pause"));
        for (int c = FAt; c < FColumns; ++c) {
            const QString key = QLatin1String(kFaultFields[c]);
            const QString text = t->item(row, c) ? t->item(row, c)->text().trimmed() : QString();
            if (text.isEmpty()) {
                o.remove(key);
                continue;
            }
            bool ok = false;
            const double value = text.toDouble(&ok);
            // Not a number: passed as text so the parser names the field and says what is allowed.
            o.insert(key, ok ? QJsonValue(value) : QJsonValue(text));
        }
        list.append(o);
    }
    return list;
}

QJsonObject ScenarioEditor::json() const
{
    QJsonObject o = m_base;
    o.insert(QStringLiteral("title"), m_ui->titleEdit->text());
    QJsonObject a = o.value(QStringLiteral("algorithm")).toObject();
    const QString id = m_ui->algorithmCombo->currentData().toString();
    const bool client = id.startsWith(kClientPrefix) || id == kYourClient;
    if (id.startsWith(kClientPrefix)) {
        // The library's own options stay when the same adapter is kept (redis-py's timeout, say).
        QJsonObject c = o.value(QStringLiteral("client")).toObject();
        const QString adapter = id.mid(kClientPrefix.size());
        if (c.value(QStringLiteral("adapter")).toString() != adapter)
            c = QJsonObject();
        c.remove(QStringLiteral("command"));
        c.insert(QStringLiteral("adapter"), adapter);
        o.insert(QStringLiteral("client"), c);
    } else if (!client) {
        o.remove(QStringLiteral("client"));
        if (a.value(QStringLiteral("id")).toString() != id)
            a.insert(QStringLiteral("fencing"), id == QLatin1String("fenced"));
        a.insert(QStringLiteral("id"), id);
    }
    a.insert(QStringLiteral("lease_ms"), m_ui->leaseSpin->value());
    a.insert(QStringLiteral("watchdog"), m_ui->watchdogCheck->isChecked());
    a.insert(QStringLiteral("watchdog_period_ms"), m_ui->watchdogPeriodSpin->value());
    a.insert(QStringLiteral("acquire_timeout_ms"), m_ui->acquireTimeoutSpin->value());
    a.insert(QStringLiteral("reentrancy"), m_ui->reentrancySpin->value());
    a.insert(QStringLiteral("pool_size"), m_ui->poolSizeSpin->value());
    a.insert(QStringLiteral("clock"), kClocks.value(m_ui->clockCombo->currentIndex()));
    QJsonObject retry = a.value(QStringLiteral("retry")).toObject();
    retry.insert(QStringLiteral("strategy"), kStrategies.value(m_ui->retryCombo->currentIndex()));
    retry.insert(QStringLiteral("interval_ms"), m_ui->retryIntervalSpin->value());
    retry.insert(QStringLiteral("jitter_ms"), m_ui->retryJitterSpin->value());
    retry.insert(QStringLiteral("max_ms"), m_ui->retryMaxSpin->value());
    a.insert(QStringLiteral("retry"), retry);
    o.insert(QStringLiteral("algorithm"), a);

    QJsonObject w = o.value(QStringLiteral("workload")).toObject();
    w.insert(QStringLiteral("engine"), client ? kEngines.first() : kEngines.value(m_ui->engineCombo->currentIndex()));
    w.insert(QStringLiteral("processes"), m_ui->processesSpin->value());
    w.insert(QStringLiteral("threads_per_process"), client ? 1 : m_ui->threadsSpin->value());
    w.insert(QStringLiteral("locks"), m_ui->locksSpin->value());
    w.insert(QStringLiteral("duration_s"), m_ui->durationSpin->value());
    w.insert(QStringLiteral("operations"), m_ui->operationsSpin->value());
    w.insert(QStringLiteral("think_ms"), m_ui->thinkSpin->value());
    w.insert(QStringLiteral("seed"), m_ui->seedSpin->value());
    w.insert(QStringLiteral("key_prefix"), m_ui->keyPrefixEdit->text());
    QJsonObject cs = w.value(QStringLiteral("critical_section")).toObject();
    cs.insert(QStringLiteral("distribution"),
              kDistributions.value(m_ui->csDistributionCombo->currentIndex()));
    cs.insert(QStringLiteral("ms"), m_ui->csMsSpin->value());
    cs.insert(QStringLiteral("min_ms"), m_ui->csMinSpin->value());
    cs.insert(QStringLiteral("max_ms"), m_ui->csMaxSpin->value());
    cs.insert(QStringLiteral("mean_ms"), m_ui->csMeanSpin->value());
    w.insert(QStringLiteral("critical_section"), cs);
    o.insert(QStringLiteral("workload"), w);

    QJsonObject servers = o.value(QStringLiteral("servers")).toObject();
    servers.insert(QStringLiteral("count"), m_ui->serverCountSpin->value());
    servers.insert(QStringLiteral("replicas"), m_ui->replicasSpin->value());
    servers.insert(QStringLiteral("cluster"), m_ui->clusterCheck->isChecked());
    servers.insert(QStringLiteral("sentinel"), m_ui->sentinelCheck->isChecked());
    servers.insert(QStringLiteral("restart_delay_ms"), m_ui->restartDelaySpin->value());
    o.insert(QStringLiteral("servers"), servers);
    QJsonObject resource = o.value(QStringLiteral("resource")).toObject();
    resource.insert(QStringLiteral("counter"), m_ui->counterCheck->isChecked());
    resource.insert(QStringLiteral("counter_initial"), m_ui->counterInitialSpin->value());
    resource.insert(QStringLiteral("fenced_store"), m_ui->fencedStoreCheck->isChecked());
    o.insert(QStringLiteral("resource"), resource);

    o.insert(QStringLiteral("faults"), faultsJson());
    QJsonArray expect;
    for (const QString &line : m_ui->expectationsEdit->toPlainText().split(u'\n')) {
        if (!line.trimmed().isEmpty())
            expect.append(line.trimmed());
    }
    o.insert(QStringLiteral("expect"), expect);
    return o;
}

bool ScenarioEditor::scenario(Scenario *out, QStringList *errors) const
{
    return ScenarioParser().parse(json(), out, errors);
}

void ScenarioEditor::setLocked(bool locked)
{
    for (QGroupBox *g : findChildren<QGroupBox *>())
        g->setEnabled(!locked);
}

void ScenarioEditor::updateAlgorithmInfo()
{
    const QString id = m_ui->algorithmCombo->currentData().toString();
    if (id.startsWith(kClientPrefix) || id == kYourClient) {
        const ClientCatalog::Adapter *adapter = ClientCatalog::find(id.mid(kClientPrefix.size()));
        m_ui->algorithmInfo->setText(
            tr("<p style='margin:0'><i>%1</i></p><p>Each worker is a process of its own running the real library "
               "through an adapter (docs/client-protocol.md). A pause is SIGSTOP, a crash SIGKILL, and network "
               "faults go through a TCP proxy. Its replies are timed on LockScope's clock; a reply that never "
               "comes is an unknown outcome.</p>")
                .arg(adapter ? adapter->summary.toHtmlEscaped() : tr("A program of yours speaking the client protocol.")));
        return;
    }
    const LockAlgorithmInfo *info = LockCatalog::find(id);
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    if (!info) {
        m_ui->algorithmInfo->setText(
            tr("<i>No lock: every worker goes straight into the critical section. The baseline that shows "
               "what a lock is for (lost updates).</i>"));
        return;
    }
    m_ui->algorithmInfo->setText(
        tr("<p style='margin:0'><i>%1</i></p><p>%2</p><p style='color:%3'><b>Flaw:</b> %4</p>")
            .arg(info->origin.toHtmlEscaped(), info->explanation.toHtmlEscaped(), tp.stale.name(),
                 info->flaw.toHtmlEscaped()));
}

void ScenarioEditor::updateEnabled()
{
    const QString strategy = kStrategies.value(m_ui->retryCombo->currentIndex());
    m_ui->watchdogPeriodSpin->setEnabled(m_ui->watchdogCheck->isChecked());
    m_ui->retryIntervalSpin->setEnabled(strategy != QLatin1String("spin")
                                        && strategy != QLatin1String("pubsub"));
    m_ui->retryJitterSpin->setEnabled(strategy == QLatin1String("jitter"));
    m_ui->retryMaxSpin->setEnabled(strategy == QLatin1String("backoff"));
    const QString distribution = kDistributions.value(m_ui->csDistributionCombo->currentIndex());
    m_ui->csMsSpin->setEnabled(distribution == QLatin1String("fixed"));
    m_ui->csMinSpin->setEnabled(distribution == QLatin1String("uniform"));
    m_ui->csMaxSpin->setEnabled(distribution == QLatin1String("uniform"));
    m_ui->csMeanSpin->setEnabled(distribution == QLatin1String("exponential"));
    m_ui->counterInitialSpin->setEnabled(m_ui->counterCheck->isChecked());
    m_ui->fencedStoreCheck->setEnabled(m_ui->counterCheck->isChecked());
    m_ui->removeFaultButton->setEnabled(m_ui->faultsTable->rowCount() > 0);
    // A real library waits, retries and keeps its connections its own way, one worker per process.
    const QString id = m_ui->algorithmCombo->currentData().toString();
    const bool client = id.startsWith(kClientPrefix) || id == kYourClient;
    for (QWidget *w : {static_cast<QWidget *>(m_ui->retryCombo), static_cast<QWidget *>(m_ui->poolSizeSpin),
                       static_cast<QWidget *>(m_ui->clockCombo), static_cast<QWidget *>(m_ui->threadsSpin),
                       static_cast<QWidget *>(m_ui->watchdogPeriodSpin), static_cast<QWidget *>(m_ui->engineCombo)}) {
        if (client)
            w->setEnabled(false);
    }
    if (client) {
        m_ui->retryIntervalSpin->setEnabled(false);
        m_ui->retryJitterSpin->setEnabled(false);
        m_ui->retryMaxSpin->setEnabled(false);
        m_ui->fencedStoreCheck->setEnabled(false);
    }
}

void ScenarioEditor::updateWorkerLimits()
{
    // The parser's limits: a thread per worker stops at 1,024 workers, fibers go to 10,000.
    const bool events = kEngines.value(m_ui->engineCombo->currentIndex()) == QLatin1String("events");
    m_ui->processesSpin->setMaximum(events ? 1000 : 64);
    m_ui->threadsSpin->setMaximum(events ? 10000 : 512);
    m_ui->threadsSpinLabel->setText(events ? tr("Workers per process") : tr("Threads per process"));
}

void ScenarioEditor::onEdited()
{
    if (m_loading)
        return;
    updateWorkerLimits();
    m_modified = true;
    updateAlgorithmInfo();
    updateEnabled();
    validate();
    emit changed();
}

void ScenarioEditor::validate()
{
    Scenario s;
    QStringList errors;
    const bool valid = scenario(&s, &errors);
    if (valid) {
        m_ui->errorsLabel->clear();
        m_ui->errorsLabel->hide();
    } else {
        const TimelinePalette tp = TimelinePalette::forPalette(palette());
        QString html = tr("<b style='color:%1'>This scenario cannot run:</b><ul style='margin:0'>")
                           .arg(tp.stale.name());
        for (const QString &e : errors)
            html += QStringLiteral("<li>%1</li>").arg(e.toHtmlEscaped());
        m_ui->errorsLabel->setText(html + QStringLiteral("</ul>"));
        m_ui->errorsLabel->show();
    }
    if (valid != m_valid) {
        m_valid = valid;
        emit validityChanged(valid);
    }
}
