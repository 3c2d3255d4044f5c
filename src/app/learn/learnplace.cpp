// LearnPlace: the stories in teaching order, each with narrative, hints for the timeline, algorithm and
// scripts.
#include "learnplace.h"

#include "lockplayground.h"

#include "common/appsettings.h"

#include "common/textformat.h"

#include "locks/lockcatalog.h"
#include "locks/luascript.h"
#include "common/luahighlighter.h"
#include "common/placeheader.h"
#include "sim/presetlibrary.h"
#include "common/timelinepalette.h"
#include "timeline/timelinerenderer.h"

#include <QAction>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QVBoxLayout>

namespace {

// The list's entry for "Write your own lock" (no preset has an id starting with '@').
const char kPlaygroundId[] = "@write-your-own-lock";

// The teaching order: the seeds' locks from the most broken to the fixed ones, then pauses and fencing,
// waiting strategies, then Redlock and replication. `watch` points at what the timeline will show; `next` is
// the story that fixes (or continues) this one.
struct Guide
{
    const char *id;
    const char *group;
    const char *watch;
    const char *next;
};
const Guide kGuides[] = {
    {"seed-setnx-expire-crash", "The seeds' locks: each flaw, then its fix",
     "A's lane goes dark (crashed) right after SETNX. The lock lane shows a key with <b>no TTL</b> for the "
     "rest of "
     "the run: nothing will ever delete it. B's amber bar spins for 4 s and ends in a red <b>gave up</b> "
     "cap.",
     "seed-unconditional-del"},
    {"seed-unconditional-del", nullptr,
     "At 2 s A's blue bar turns <b>hatched red</b>: its lease ran out while it still works, and B's lane "
     "turns "
     "blue. When A releases, a red line runs from A to the lock lane: its DEL deleted <b>B's key</b>. C "
     "walks in "
     "and the <b>red band</b> marks B and C inside together.",
     "seed-get-then-del-race"},
    {"seed-get-then-del-race", nullptr,
     "A's release is a long <b>dashed tail</b>: its GET saw its own id, then it stalled for 600 ms. The "
     "lease ends "
     "meanwhile and B takes the lock; the DEL at the end of the tail deletes B's key (red line) and C gets "
     "in: a "
     "<b>red band</b> over B and C.",
     "seed-short-lease"},
    {"seed-short-lease", nullptr,
     "A's bar turns <b>hatched red</b> at 1 s (lease expired, still working) and B's turns blue at the same "
     "moment: "
     "the <b>red band</b> is the time both are inside. A's Lua release at the end deletes nothing (a red ✕ "
     "on "
     "A's lane): the release is safe, the section was not.",
     "seed-watchdog"},
    {"seed-watchdog", nullptr,
     "Green <b>renewal ticks</b> on A's lane every 333 ms; the lock lane's TTL draws a <b>saw-tooth</b> that "
     "never "
     "reaches zero. B stays amber until A releases. No red anywhere.",
     "gc-pause"},
    {"gc-pause", "Pauses and fencing",
     "A's lane <b>greys out</b> (paused) and its renewal ticks stop. The lock lane's TTL drains to zero at 3 "
     "s and "
     "B takes the lock. When A wakes, it still believes it holds the lock (hatched red) and writes: B's "
     "update is "
     "lost. Then pick the <b>fenced</b> tab above the timeline: A's late write is <b>refused</b> (green "
     "diamond).",
     "partitioned-holder"},
    {"partitioned-holder", nullptr,
     "A's lane gets a <b>dashed orange frame</b> (cut off from the servers) while it keeps working: no "
     "pause, "
     "yet its renewal never arrives and its lease runs out at 3 s (hatched red). B, which waited the full "
     "lease, "
     "takes the lock; A's write after the network comes back loses B's update. In the <b>fenced</b> tab the "
     "store refuses it.",
     "seed-redisson-reentrant"},
    {"seed-redisson-reentrant", "Real locks under load",
     "Eight lanes take turns: the blue bars never overlap, the violations card stays at 0, and the counter "
     "ends "
     "exactly where it should. Hover a bar: each holder took the lock twice (reentrancy).",
     "seed-inventory"},
    {"seed-inventory", nullptr,
     "Two runs. <b>unlocked</b> has no lock at all: many lanes are blue at once and the lost updates pile "
     "up. "
     "<b>locked</b> takes turns and loses nothing: compare the violations card of the two tabs.",
     "polling-vs-pubsub"},
    {"polling-vs-pubsub", "Waiting for the lock",
     "Compare the <b>hand-off</b> card of the two tabs: sleeping on the release channel wakes the next "
     "waiter "
     "within a round trip or two; pollers notice only at their next try, up to 100 ms later.",
     "fair-vs-unfair"},
    {"fair-vs-unfair", nullptr,
     "Compare the <b>acquisitions per worker</b> chart and the fairness card of the two tabs: unfair lets "
     "the "
     "fastest threads win again and again; the fair lock's queue gives everyone a turn.",
     "redlock-basic"},
    {"redlock-basic", "Redlock and replication",
     "Five server lanes at the top. Under each blue bar, one cell per server shows who granted it; hover "
     "the cells or the bar for its <b>quorum</b> (e.g. 5/5 · validity 2.9 s). "
     "Six workers share the lock and never overlap.",
     "redlock-split-vote"},
    {"redlock-split-vote", nullptr,
     "The three amber bars start together; under each, a row of <b>five cells</b> per round: green granted, "
     "red refused, grey no answer, in a red frame when the round was lost. The votes split 2/2/1; one client "
     "wins after its random back-off (its cells sit under its blue bar, framed blue). Never two blue bars at "
     "once.",
     "redlock-restart"},
    {"redlock-restart", nullptr,
     "Servers 3 and 4 are down at the start; server 2 restarts empty at 0.8 s. B's acquire at 1.7 s gets a "
     "second majority: a <b>red band</b>. In the <b>delayed</b> tab, restarted servers stay down 4 s: no "
     "band.",
     "failover"},
    {"failover", nullptr,
     "The server lane shows the replica frozen, then the <b>failover</b> marker. B gets the lock on the "
     "promoted "
     "replica while A still holds it on the dead master: a <b>red band</b>.",
     "failover-sentinel"},
    {"failover-sentinel", nullptr,
     "The same flaw with three real sentinels. The server lane shows the replica frozen, then two "
     "<b>failover</b> markers: the master dies, and (about a second later) the sentinels have promoted the "
     "replica — hover them for how long it took. B's bar turns blue on the new master while A's is still "
     "blue on the dead one: a <b>red band</b>.",
     "cluster-locks"},
    {"cluster-locks", "Redis Cluster",
     "Eight workers, six locks, three masters: the lock lanes fill with blue bars side by side (different "
     "locks, different masters) and never two blue bars on one lock. Open the Inspector during a run to see "
     "each lock's master and slot.",
     nullptr},
};

const Guide *guideFor(const QString &id)
{
    for (const Guide &g : kGuides) {
        if (id == QLatin1String(g.id))
            return &g;
    }
    return nullptr;
}

QString describeOverrides(const QJsonObject &o, const QString &prefix = QString())
{
    QStringList parts;
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        const QString key = prefix.isEmpty() ? it.key() : prefix + u'.' + it.key();
        if (it.value().isObject()) {
            parts << describeOverrides(it.value().toObject(), key);
        } else if (key == QLatin1String("algorithm.id")) {
            const LockAlgorithmInfo *info = LockCatalog::find(it.value().toString());
            parts << QObject::tr("algorithm: %1").arg(info ? info->title : QObject::tr("no lock at all"));
        } else {
            const QJsonValue v = it.value();
            parts << QStringLiteral("%1 = %2").arg(
                key,
                v.isString()     ? v.toString()
                    : v.isBool() ? (v.toBool() ? QStringLiteral("yes") : QStringLiteral("no"))
                                 : QString::number(v.toDouble()));
        }
    }
    parts.removeAll(QString());
    return parts.join(QStringLiteral(", "));
}

QLabel *heading(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.1);
    label->setFont(f);
    label->setContentsMargins(0, 8, 0, 0);
    return label;
}

QLabel *body(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    return label;
}

} // namespace

LearnPlace::LearnPlace(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("learnPlace"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 0, 6, 6);
    layout->addWidget(
        new PlaceHeader(QStringLiteral(":/icons/learn.svg"), tr("Learn"),
                        tr("Each lock algorithm from the articles, run for real: read the story, "
                           "then watch its flaw happen on the timeline, step by step."),
                        this));
    auto *split = new QSplitter(Qt::Horizontal, this);
    m_list = new QListWidget(split);
    m_list->setMinimumWidth(260);
    m_list->setWordWrap(true);
    m_list->setSpacing(1);
    setFocusProxy(m_list); // Ctrl+3 lands on the story list
    split->addWidget(m_list);

    // Right: a story's page, or the page where one writes one's own lock.
    m_pages = new QStackedWidget(split);
    m_scroll = new QScrollArea(m_pages);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    auto *page = new QWidget(m_scroll);
    auto *v = new QVBoxLayout(page);
    v->setContentsMargins(16, 8, 16, 16);
    m_title = new QLabel(page);
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setWordWrap(true);
    v->addWidget(m_title);
    m_summary = body(page);
    v->addWidget(m_summary);

    // The buttons and the window's Learn menu trigger the same actions (and their shortcuts).
    const auto action
        = [this](const QIcon &icon, const QString &text, const QKeySequence &key, const QString &tip) {
              auto *a = new QAction(icon, text, this);
              a->setShortcut(key);
              a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
              a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
              addAction(a);
              return a;
          };
    m_runAction = action(QIcon(QStringLiteral(":/icons/run.svg")), tr("Run It in the Simulator"),
                         QKeySequence(Qt::CTRL | Qt::Key_Return),
                         tr("Runs the story on private sandbox servers, with the timeline following the "
                            "narrative"));
    connect(m_runAction, &QAction::triggered, this, [this] { emit runRequested(m_current, false); });
    m_stepAction = action(QIcon(QStringLiteral(":/icons/step.svg")), tr("Run It Step by Step"),
                          QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return),
                          tr("The story runs at its own pace and is recorded; walk it step by step with Next "
                             "(F8) and Back (Shift+F8)"));
    connect(m_stepAction, &QAction::triggered, this, [this] {
        const PresetLibrary::Preset *p = PresetLibrary::find(m_current);
        if (p && p->scenario.kind == Scenario::Kind::Story) // only stories have steps
            emit runRequested(m_current, true);
    });
    m_breakAction = action(QIcon(), tr("Try to Break It…"),
                           QKeySequence(Qt::CTRL | Qt::Key_B),
                           tr("Searches fault schedules against this story's lock on the sandbox until it breaks, "
                              "then shrinks the failure to a story you can step through"));
    connect(m_breakAction, &QAction::triggered, this, [this] {
        if (PresetLibrary::find(m_current))
            emit breakRequested(m_current);
    });
    const auto moveBy = [this](int by) {
        const QStringList ids = storyIds();
        showStory(ids.value(ids.indexOf(m_current) + by));
    };
    m_nextStoryAction = action(QIcon(), tr("Next Story"), QKeySequence(Qt::ALT | Qt::Key_Down),
                               tr("The story after this one"));
    connect(m_nextStoryAction, &QAction::triggered, this, [moveBy] { moveBy(1); });
    m_previousStoryAction = action(QIcon(), tr("Previous Story"), QKeySequence(Qt::ALT | Qt::Key_Up),
                                   tr("The story before this one"));
    connect(m_previousStoryAction, &QAction::triggered, this, [moveBy] { moveBy(-1); });

    auto *buttons = new QHBoxLayout;
    m_run = new QPushButton(m_runAction->icon(), tr("Run it in the Simulator"), page);
    m_run->setToolTip(m_runAction->toolTip());
    m_run->setDefault(true);
    m_step = new QPushButton(m_stepAction->icon(), tr("Run it step by step"), page);
    m_step->setToolTip(m_stepAction->toolTip());
    QFont big = m_run->font();
    big.setPointSizeF(big.pointSizeF() * 1.1);
    m_run->setFont(big);
    m_step->setFont(big);
    m_run->setMinimumHeight(34);
    m_step->setMinimumHeight(34);
    m_break = new QPushButton(m_breakAction->icon(), tr("Try to break it"), page);
    m_break->setToolTip(m_breakAction->toolTip());
    m_break->setFont(big);
    m_break->setMinimumHeight(34);
    buttons->addWidget(m_run);
    buttons->addWidget(m_step);
    buttons->addWidget(m_break);
    buttons->addStretch(1);
    v->addLayout(buttons);
    connect(m_run, &QPushButton::clicked, m_runAction, &QAction::trigger);
    connect(m_step, &QPushButton::clicked, m_stepAction, &QAction::trigger);
    connect(m_break, &QPushButton::clicked, m_breakAction, &QAction::trigger);

    v->addWidget(heading(tr("What happens"), page));
    m_narrative = body(page);
    v->addWidget(m_narrative);
    v->addWidget(heading(tr("What to watch for on the timeline"), page));
    m_watch = body(page);
    v->addWidget(m_watch);
    v->addWidget(heading(tr("Why"), page));
    m_teaching = body(page);
    v->addWidget(m_teaching);
    v->addWidget(heading(tr("The lock"), page));
    m_algorithms = body(page);
    v->addWidget(m_algorithms);
    v->addWidget(heading(tr("Its Lua scripts"), page));
    m_scripts = new QTabWidget(page);
    m_scripts->setObjectName(QStringLiteral("storyScripts"));
    m_scripts->setDocumentMode(true);
    m_scripts->setMinimumHeight(260);
    v->addWidget(m_scripts);
    v->addWidget(heading(tr("The run must show"), page));
    m_expect = body(page);
    v->addWidget(m_expect);
    m_next = body(page);
    connect(m_next, &QLabel::linkActivated, this, [this](const QString &link) { showStory(link); });
    v->addWidget(m_next);
    v->addStretch(1);
    m_scroll->setWidget(page);
    m_pages->addWidget(m_scroll);
    m_playground = new LockPlayground(m_pages);
    m_pages->addWidget(m_playground);
    split->addWidget(m_pages);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({300, 900});
    layout->addWidget(split, 1);

    buildList();
    connect(m_list, &QListWidget::currentItemChanged, this, [this](QListWidgetItem *item) {
        if (item && item->data(Qt::UserRole).toString() == QLatin1String(kPlaygroundId)) {
            showPlayground();
            return;
        }
        if (item && !item->data(Qt::UserRole).toString().isEmpty()
            && item->data(Qt::UserRole).toString() != m_current) {
            m_current = item->data(Qt::UserRole).toString();
            AppSettings().setValue(QStringLiteral("learn/story"), m_current);
            fill();
        }
    });
    // A sensible first screen: the last story looked at, or the first one, ready to run.
    const QString last = AppSettings().value(QStringLiteral("learn/story")).toString();
    if (!showStory(last))
        showStory(storyIds().value(0));
}

void LearnPlace::buildList()
{
    QStringList ids;
    for (const Guide &g : kGuides) {
        if (PresetLibrary::find(QLatin1String(g.id)))
            ids << QLatin1String(g.id);
    }
    for (const QString &id : PresetLibrary::ids()) {
        if (!ids.contains(id))
            ids << id;
    }
    // First, where a student writes a lock of their own and watches it break.
    const auto groupHeader = [this](const QString &group) {
        auto *header = new QListWidgetItem(group, m_list);
        QFont f = header->font();
        f.setBold(true);
        f.setCapitalization(QFont::AllUppercase);
        f.setPointSizeF(f.pointSizeF() * 0.85);
        header->setFont(f);
        header->setFlags(Qt::NoItemFlags);
        header->setForeground(palette().color(QPalette::PlaceholderText));
    };
    groupHeader(tr("Your own lock"));
    auto *own = new QListWidgetItem(tr("Write your own lock, then try to break it"), m_list);
    own->setData(Qt::UserRole, QString::fromLatin1(kPlaygroundId));
    own->setToolTip(tr("Three Lua scripts — acquire, release, renew — run on the sandbox, and searched for a way to "
                       "break them"));
    own->setIcon(QIcon(QStringLiteral(":/icons/learn.svg")));
    int number = 0;
    bool more = false;
    for (const QString &id : ids) {
        const Guide *g = guideFor(id);
        QString group;
        if (g && g->group)
            group = tr(g->group);
        else if (!g && !more)
            group = tr("More");
        more = more || !g;
        if (!group.isEmpty())
            groupHeader(group);
        const PresetLibrary::Preset *p = PresetLibrary::find(id);
        auto *item
            = new QListWidgetItem(QStringLiteral("%1. %2").arg(++number).arg(p->scenario.title), m_list);
        item->setData(Qt::UserRole, id);
        item->setToolTip(p->scenario.summary);
        item->setIcon(QIcon(p->scenario.kind == Scenario::Kind::Story
                                ? QStringLiteral(":/icons/step.svg")
                                : QStringLiteral(":/icons/simulator.svg")));
    }
}

QStringList LearnPlace::storyIds() const
{
    QStringList ids;
    for (int i = 0; i < m_list->count(); ++i) {
        const QString id = m_list->item(i)->data(Qt::UserRole).toString();
        if (!id.isEmpty() && id != QLatin1String(kPlaygroundId))
            ids << id;
    }
    return ids;
}

bool LearnPlace::showStory(const QString &id)
{
    if (id.isEmpty() || !PresetLibrary::find(id))
        return false;
    for (int i = 0; i < m_list->count(); ++i) {
        if (m_list->item(i)->data(Qt::UserRole).toString() == id) {
            m_current = id;
            AppSettings().setValue(QStringLiteral("learn/story"), id);
            m_list->setCurrentRow(i);
            m_pages->setCurrentWidget(m_scroll);
            fill();
            m_scroll->verticalScrollBar()->setValue(0);
            return true;
        }
    }
    return false;
}

void LearnPlace::showPlayground()
{
    for (int i = 0; i < m_list->count(); ++i) {
        if (m_list->item(i)->data(Qt::UserRole).toString() == QLatin1String(kPlaygroundId)) {
            const QSignalBlocker quiet(m_list);
            m_list->setCurrentRow(i);
        }
    }
    m_pages->setCurrentWidget(m_playground);
}

bool LearnPlace::isShowingPlayground() const
{
    return m_pages->currentWidget() == m_playground;
}

void LearnPlace::fill()
{
    const PresetLibrary::Preset *p = PresetLibrary::find(m_current);
    if (!p)
        return;
    const Scenario &s = p->scenario;
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    m_title->setText(s.title);
    m_summary->setText(s.summary.toHtmlEscaped());
    m_step->setVisible(s.kind == Scenario::Kind::Story);

    // The narrative: numbered like the markers on the timeline.
    QString narrative;
    if (s.kind == Scenario::Kind::Story) {
        narrative = tr("<p>Actors: %1, each in a process of its own. Lease %2 ms.</p><ol>")
                        .arg(s.story.actors.join(QStringLiteral(", ")).toHtmlEscaped())
                        .arg(s.algorithm.leaseMs);
        for (const Scenario::Step &step : s.story.steps) {
            if (step.note.isEmpty())
                continue;
            narrative += tr("<li><span style='color:%1'>at %2</span> — %3</li>")
                             .arg(tp.mutedText.name(),
                                  TextFormat::runTime(qint64(step.atMs * 1000), 100000),
                                  step.note.toHtmlEscaped());
        }
        narrative += QStringLiteral("</ol>");
    } else {
        narrative
            = tr("<p>%1 × %2 share %3 for up to %4 s; each thread loops: acquire, work %5 ms, release.</p>")
                  .arg(TextFormat::count(s.workload.processes, tr("process"), tr("processes")),
                       TextFormat::count(s.workload.threadsPerProcess, tr("thread"), tr("threads")),
                       TextFormat::count(s.workload.locks, tr("lock"), tr("locks")))
                  .arg(s.workload.durationS)
                  .arg(s.workload.criticalSection.ms);
    }
    if (!s.variants.isEmpty()) {
        narrative += tr("<p>It runs %1, one per variant, and compares them:</p><ul>")
                         .arg(TextFormat::count(s.variants.size(), tr("time"), tr("times")));
        for (const Scenario::Variant &variant : s.variants) {
            const QString changes = describeOverrides(variant.overrides);
            narrative += QStringLiteral("<li><b>%1</b>%2</li>")
                             .arg(variant.name.toHtmlEscaped(),
                                  changes.isEmpty() ? tr(": as described")
                                                    : QStringLiteral(": ") + changes.toHtmlEscaped());
        }
        narrative += QStringLiteral("</ul>");
    }
    m_narrative->setText(narrative);

    const Guide *g = guideFor(m_current);
    m_watch->setText(
        g ? QString::fromUtf8(g->watch)
          : tr("Blue bars are workers holding the lock, amber ones waiting; a red band means two "
               "holders at once."));
    m_teaching->setText(s.teaching.toHtmlEscaped());

    // The algorithms involved (a comparison may switch algorithm per variant).
    QStringList ids {s.algorithm.id};
    for (const Scenario::Variant &variant : s.variants) {
        const QString id = variant.overrides.value(QStringLiteral("algorithm"))
                               .toObject()
                               .value(QStringLiteral("id"))
                               .toString();
        if (!id.isEmpty() && !ids.contains(id))
            ids << id;
    }
    QString algorithms;
    QStringList scripts;
    for (const QString &id : ids) {
        const LockAlgorithmInfo *info = LockCatalog::find(id);
        if (!info) {
            algorithms += tr("<p><b>No lock</b>: every worker goes straight into the critical section.</p>");
            continue;
        }
        algorithms += tr("<p><b>%1</b> <span style='color:%2'>(%3)</span><br>%4<br><span "
                         "style='color:%5'><b>Flaw:</b> "
                         "%6</span><br><small>Commands: %7</small></p>")
                          .arg(info->title.toHtmlEscaped(), tp.mutedText.name(), info->origin.toHtmlEscaped(),
                               info->explanation.toHtmlEscaped(), tp.stale.name(), info->flaw.toHtmlEscaped(),
                               info->commands.join(QStringLiteral(", ")).toHtmlEscaped());
        for (const QString &script : info->scripts) {
            if (!scripts.contains(script))
                scripts << script;
        }
    }
    m_algorithms->setText(algorithms);

    while (m_scripts->count() > 0) {
        QWidget *w = m_scripts->widget(0);
        m_scripts->removeTab(0);
        w->deleteLater();
    }
    for (const QString &name : scripts) {
        if (const LuaScript *script = LuaScript::find(name))
            m_scripts->addTab(LuaHighlighter::scriptView(*script, m_scripts), name + QStringLiteral(".lua"));
    }
    if (scripts.isEmpty()) {
        auto *none = new QLabel(
            tr("This lock uses plain commands and no script — which is part of its story."), m_scripts);
        none->setWordWrap(true);
        none->setAlignment(Qt::AlignTop | Qt::AlignLeft);
        none->setMargin(8);
        m_scripts->addTab(none, tr("no scripts"));
        m_scripts->setMinimumHeight(60);
    } else {
        m_scripts->setMinimumHeight(260);
    }

    QString expect = QStringLiteral("<ul>");
    for (const Expectation &e : s.expect)
        expect += QStringLiteral("<li><code>%1</code></li>").arg(e.toString().toHtmlEscaped());
    m_expect->setText(expect + QStringLiteral("</ul>"));
    if (g && g->next && PresetLibrary::find(QLatin1String(g->next))) {
        const PresetLibrary::Preset *next = PresetLibrary::find(QLatin1String(g->next));
        m_next->setText(tr("<p>Next: <a href='%1'>%2</a></p>")
                            .arg(QLatin1String(g->next), next->scenario.title.toHtmlEscaped()));
        m_next->show();
    } else {
        m_next->hide();
    }
}

void LearnPlace::fillMenu(QMenu *menu)
{
    menu->addAction(m_runAction);
    menu->addAction(m_stepAction);
    menu->addAction(m_breakAction);
    menu->addSeparator();
    menu->addAction(m_previousStoryAction);
    menu->addAction(m_nextStoryAction);
    connect(menu, &QMenu::aboutToShow, this, [this] {
        const QStringList ids = storyIds();
        const PresetLibrary::Preset *p = PresetLibrary::find(m_current);
        m_stepAction->setEnabled(p && p->scenario.kind == Scenario::Kind::Story); // only stories have steps
        m_previousStoryAction->setEnabled(ids.indexOf(m_current) > 0);
        m_nextStoryAction->setEnabled(ids.indexOf(m_current) + 1 < ids.size());
    });
}

QString LearnPlace::narrativeText() const
{
    return m_narrative->text();
}

QStringList LearnPlace::scriptNames() const
{
    QStringList names;
    for (int i = 0; i < m_scripts->count(); ++i)
        names << m_scripts->tabText(i);
    return names;
}

void LearnPlace::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange && !m_current.isEmpty())
        fill(); // the highlighter and the texts' colours follow the theme
    QWidget::changeEvent(event);
}
