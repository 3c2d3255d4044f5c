// StoryStepPanel: a caption over a key table and a tab per Lua script; rebuilt for each step shown.
#include "storysteppanel.h"
#include "common/textformat.h"

#include "locks/lockcatalog.h"
#include "locks/luascript.h"
#include "common/luahighlighter.h"
#include "sim/stepscripts.h"
#include "common/timelinepalette.h"
#include "timeline/timelinerenderer.h"

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {
QString ttlText(const StorySnapshot::Key &k)
{
    if (!k.unread.isEmpty() || k.type.isEmpty())
        return QStringLiteral("unknown");
    if (k.pttlMs == -2 || k.type == QLatin1String("none"))
        return QStringLiteral("—");
    if (k.pttlMs == -1)
        return QStringLiteral("no expiry");
    return QStringLiteral("%1 ms").arg(k.pttlMs);
}
} // namespace

StoryStepPanel::StoryStepPanel(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_headline = new QLabel(this);
    m_headline->setWordWrap(true);
    m_headline->setTextFormat(Qt::RichText);
    layout->addWidget(m_headline);
    auto *split = new QSplitter(Qt::Horizontal, this);
    auto *keysPage = new QWidget(split);
    auto *keysLayout = new QVBoxLayout(keysPage);
    keysLayout->setContentsMargins(0, 0, 0, 0);
    m_keysCaption = new QLabel(keysPage);
    m_keysCaption->setWordWrap(true);
    keysLayout->addWidget(m_keysCaption);
    m_keys = new QTableWidget(0, 5, keysPage);
    m_keys->setHorizontalHeaderLabels({tr("Server"), tr("Key"), tr("Type"), tr("TTL"), tr("Value")});
    m_keys->verticalHeader()->hide();
    m_keys->horizontalHeader()->setStretchLastSection(true);
    m_keys->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_keys->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_keys->setWordWrap(false);
    keysLayout->addWidget(m_keys, 1);
    split->addWidget(keysPage);
    auto *scriptsPage = new QWidget(split);
    auto *scriptsLayout = new QVBoxLayout(scriptsPage);
    scriptsLayout->setContentsMargins(0, 0, 0, 0);
    m_scriptsCaption = new QLabel(scriptsPage);
    m_scriptsCaption->setWordWrap(true);
    scriptsLayout->addWidget(m_scriptsCaption);
    m_scripts = new QTabWidget(scriptsPage);
    m_scripts->setDocumentMode(true);
    scriptsLayout->addWidget(m_scripts, 1);
    split->addWidget(scriptsPage);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    clear();
}

void StoryStepPanel::clear()
{
    m_headline->setText(tr("Stories run <b>step by step</b> (Ctrl+T, then Run) show each step here: what the "
                           "story's keys held in Redis at that moment and the Lua the step ran."));
    m_keysCaption->clear();
    m_keys->setRowCount(0);
    m_scriptsCaption->clear();
    while (m_scripts->count() > 0) {
        QWidget *w = m_scripts->widget(0);
        m_scripts->removeTab(0);
        w->deleteLater();
    }
    m_scriptNames.clear();
}

void StoryStepPanel::showStep(const Scenario &scenario, int stepIndex, int number, int total,
                              const StorySnapshot *snapshot)
{
    if (stepIndex < 0 || stepIndex >= scenario.story.steps.size()) {
        clear();
        return;
    }
    const Scenario::Step &step = scenario.story.steps.at(stepIndex);
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    m_headline->setText(tr("<span style='color:%1'><b>Step %2 of %3</b></span> — %4")
                            .arg(tp.step.name())
                            .arg(number)
                            .arg(total)
                            .arg(step.note.toHtmlEscaped()));

    m_keys->setRowCount(0);
    if (!snapshot) {
        m_keysCaption->setText(tr("Redis: not read yet — the keys are read when the next step comes due; the "
                                  "run is still being recorded."));
    } else {
        const QString when = snapshot->stepIndex < 0
            ? tr("at the story's end")
            : tr("as the next step came due");
        m_keysCaption->setText(
            tr("Redis at %1, %2 (read during the run):")
                .arg(TextFormat::runTime(snapshot->readUs, 1000), when)
            + (snapshot->late ? tr(" — read late: the server was slow to answer and the next step had already "
                                   "begun, so some of its effects may show")
                              : QString()));
        const bool several = snapshot->servers.size() > 1;
        for (int s = 0; s < snapshot->servers.size(); ++s) {
            const StorySnapshot::Server &server = snapshot->servers.at(s);
            const QString serverName = several ? tr("%1 (%2)").arg(s + 1).arg(server.endpoint) : server.endpoint;
            const auto addRow = [&](const QStringList &cells, const QString &tip, bool grey) {
                const int row = m_keys->rowCount();
                m_keys->insertRow(row);
                for (int c = 0; c < cells.size(); ++c) {
                    auto *item = new QTableWidgetItem(cells.at(c));
                    item->setToolTip(tip.isEmpty() ? cells.at(c) : tip);
                    if (grey)
                        item->setForeground(palette().color(QPalette::PlaceholderText));
                    m_keys->setItem(row, c, item);
                }
            };
            if (!server.unread.isEmpty()) {
                addRow({serverName, tr("(every key)"), tr("unknown"), tr("unknown"),
                        tr("could not be read: %1").arg(server.unread)},
                       QString(), true);
                continue;
            }
            for (const StorySnapshot::Key &k : server.keys) {
                if (!k.unread.isEmpty()) {
                    addRow({serverName, QString::fromUtf8(k.key), tr("unknown"), tr("unknown"),
                            tr("could not be read: %1").arg(k.unread)},
                           QString(), true);
                    continue;
                }
                const bool absent = k.type == QLatin1String("none");
                addRow({serverName, QString::fromUtf8(k.key), absent ? tr("(no key)") : k.type, ttlText(k),
                        k.value},
                       QString(), absent);
            }
        }
        m_keys->resizeColumnsToContents();
    }
    showScripts(scenario, step);
}

void StoryStepPanel::showScripts(const Scenario &scenario, const Scenario::Step &step)
{
    while (m_scripts->count() > 0) {
        QWidget *w = m_scripts->widget(0);
        m_scripts->removeTab(0);
        w->deleteLater();
    }
    m_scriptNames.clear();
    const LockAlgorithmInfo *info = LockCatalog::find(scenario.algorithm.id);
    const QString who = step.actor.isEmpty() ? tr("the servers") : step.actor;
    if (step.action == Scenario::Step::Action::Note) {
        // A narrator's line: what it tells of happened in an earlier step (story 1's crash, with A's SETNX).
        m_scriptsCaption->setText(tr("This step is the narrator's: it sends no command and changes nothing; "
                                     "what it tells of happened before it, on the timeline."));
        return;
    }
    if (!StepScripts::touchesTheLock(step.action)) {
        m_scriptsCaption->setText(
            tr("This step sends no command of the lock: it is something that happens to %1.").arg(who));
        return;
    }
    if (!info) {
        m_scriptsCaption->setText(tr("No lock: %1 goes straight into the critical section.").arg(who));
        return;
    }
    m_scriptNames = StepScripts::forStep(*info, step.action, scenario.resource.fencedStore);
    if (m_scriptNames.isEmpty()) {
        m_scriptsCaption->setText(tr("No script: %1 sends plain commands (this lock's are %2).")
                                      .arg(who, info->commands.join(QStringLiteral(", "))));
        return;
    }
    m_scriptsCaption->setText(tr("The Lua this step runs (%1, EVALSHA):").arg(info->title));
    for (const QString &name : std::as_const(m_scriptNames)) {
        if (const LuaScript *script = LuaScript::find(name))
            m_scripts->addTab(LuaHighlighter::scriptView(*script, m_scripts), name + QStringLiteral(".lua"));
    }
}

QStringList StoryStepPanel::keyLines() const
{
    QStringList out;
    for (int r = 0; r < m_keys->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < m_keys->columnCount(); ++c)
            cells << (m_keys->item(r, c) ? m_keys->item(r, c)->text() : QString());
        out << cells.join(u' ');
    }
    return out;
}

QStringList StoryStepPanel::scriptNames() const
{
    return m_scriptNames;
}

QString StoryStepPanel::headline() const
{
    return m_headline->text();
}

QString StoryStepPanel::scriptsCaption() const
{
    return m_scriptsCaption->text();
}
