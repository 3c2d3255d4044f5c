// LockPlayground: the editors, the starting points (shipped in the app from resources/locks/) and the folder
// format; the check runs on a sandbox started for it in Qt's pool, so the page never waits on a server.
#include "lockplayground.h"

#include "common/backgroundtask.h"
#include "common/luahighlighter.h"
#include "outputfile.h"
#include "redis/redisconnection.h"
#include "redis/sandboxserver.h"
#include "sim/presetlibrary.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPalette>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>

namespace {

const char *const kScripts[] = {"acquire", "release", "renew"};

struct StartingPoint
{
    const char *folder;
    const char *label;
};
// The textbook lock first, then the mistakes students make, each breaking in a way of its own.
const StartingPoint kStartingPoints[] = {
    {"textbook", QT_TRANSLATE_NOOP("LockPlayground", "The textbook lock (SET NX PX, compare-and-delete)")},
    {"plain-del", QT_TRANSLATE_NOOP("LockPlayground", "Mistake: release with a plain DEL")},
    {"no-expiry", QT_TRANSLATE_NOOP("LockPlayground", "Mistake: no lease (SETNX)")},
    {"no-nx", QT_TRANSLATE_NOOP("LockPlayground", "Mistake: SET without NX")},
};

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

LockPlayground::LockPlayground(QWidget *parent)
    : QWidget(parent)
{
    buildLayout();
    connect(&m_check, &QFutureWatcher<CustomLockScripts::Problem>::finished, this, [this] {
        BackgroundTask::resultsArrived();
        m_problem = m_check.result();
        m_checkButton->setEnabled(true);
        if (m_problem.isSet())
            showProblem(m_problem);
        else
            m_status->setText(tr("Checked on a sandbox: every script compiles, and the lock took, refused, released "
                                 "and renewed as the convention says."));
        emit checked();
    });
    connect(&m_stories, &QFutureWatcher<QList<StoriesAgainstLock::Row>>::finished, this, [this] {
        BackgroundTask::resultsArrived();
        const QList<StoriesAgainstLock::Row> rows = m_stories.result();
        for (int i = 0; i < rows.size(); ++i)
            showStoryRow(i, rows.at(i)); // every row, whatever the posted progress did
        int broken = 0, held = 0;
        for (const StoriesAgainstLock::Row &r : rows) {
            broken += r.ran && r.broken;
            held += r.ran && !r.broken;
        }
        m_storiesButton->setText(tr("Run the stories against it"));
        m_status->setText(tr("The stories against your lock: %1 broke it, %2 did not in their one run each (which "
                             "proves nothing), %3 could not be told with it.")
                              .arg(broken)
                              .arg(held)
                              .arg(rows.size() - broken - held));
        emit storiesDone();
    });
    loadStartingPoint(QStringLiteral("textbook"));
}

LockPlayground::~LockPlayground()
{
    if (m_storiesCancel)
        m_storiesCancel->store(true);
    m_check.waitForFinished(); // the check's sandbox stops with it, within its script timeout
    m_stories.waitForFinished(); // the story running now is stopped
    BackgroundTask::resultsArrived();
}

void LockPlayground::runStories()
{
    if (m_stories.isRunning())
        return;
    CustomLockScripts::Problem problem;
    const std::shared_ptr<const CustomLockScripts> lua = scripts(&problem);
    if (!lua) {
        showProblem(problem);
        return;
    }
    const QStringList ids = StoriesAgainstLock::storyIds();
    m_storyTable->setRowCount(int(ids.size()));
    for (int i = 0; i < ids.size(); ++i) {
        const PresetLibrary::Preset *p = PresetLibrary::find(ids.at(i));
        m_storyTable->setItem(i, 0, new QTableWidgetItem(p ? p->scenario.title : ids.at(i)));
        m_storyTable->item(i, 0)->setData(Qt::UserRole, ids.at(i));
        m_storyTable->setItem(i, 1, new QTableWidgetItem(tr("waiting")));
    }
    m_tabs->setCurrentWidget(m_storyTable);
    m_storiesButton->setText(tr("Stop the stories"));
    m_status->setText(tr("Running %1 stories against your lock on sandboxes, one after another (each takes the time "
                         "its story takes)…")
                          .arg(ids.size()));
    m_storiesCancel = std::make_shared<std::atomic_bool>(false);
    std::shared_ptr<std::atomic_bool> cancel = m_storiesCancel;
    const QPointer<LockPlayground> self(this);
    m_stories.setFuture(BackgroundTask::run([lua, cancel, self] {
        return StoriesAgainstLock::run(
            lua,
            [self](const StoriesAgainstLock::Row &row, int done, int) {
                QMetaObject::invokeMethod(
                    QCoreApplication::instance(),
                    [self, row, done] {
                        if (self)
                            self->showStoryRow(done - 1, row);
                    },
                    Qt::QueuedConnection);
            },
            [cancel] { return cancel->load(); });
    }));
}

void LockPlayground::showStoryRow(int index, const StoriesAgainstLock::Row &row)
{
    if (index < 0 || index >= m_storyTable->rowCount())
        return;
    QString text;
    if (!row.ran)
        text = row.note;
    else if (row.broken)
        text = tr("broken: %1 — %2").arg(row.property, row.verdict);
    else
        text = row.verdict;
    if (row.ran && !row.note.isEmpty())
        text += QStringLiteral(" (%1)").arg(row.note);
    auto *item = new QTableWidgetItem(text);
    item->setToolTip(text);
    if (row.ran && row.broken)
        item->setForeground(QColor(0xb0, 0x00, 0x20));
    m_storyTable->setItem(index, 1, item);
    m_storyTable->resizeRowToContents(index);
}

QStringList LockPlayground::storyLines() const
{
    QStringList lines;
    for (int i = 0; i < m_storyTable->rowCount(); ++i) {
        const QTableWidgetItem *story = m_storyTable->item(i, 0);
        const QTableWidgetItem *verdict = m_storyTable->item(i, 1);
        lines << QStringLiteral("%1: %2").arg(story ? story->data(Qt::UserRole).toString() : QString(),
                                              verdict ? verdict->text() : QString());
    }
    return lines;
}

QStringList LockPlayground::startingPoints()
{
    QStringList names;
    for (const StartingPoint &p : kStartingPoints)
        names << QString::fromLatin1(p.folder);
    return names;
}

void LockPlayground::buildLayout()
{
    auto *v = new QVBoxLayout(this);
    auto *title = new QLabel(tr("Write your own lock"), this);
    QFont big = title->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    title->setFont(big);
    v->addWidget(title);
    auto *convention = new QLabel(CustomLockScripts::conventionText().toHtmlEscaped().replace(u'\n', QStringLiteral("<br>")),
                                  this);
    convention->setTextFormat(Qt::RichText);
    convention->setWordWrap(true);
    convention->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(convention);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Start from:"), this));
    m_start = new QComboBox(this);
    for (const StartingPoint &p : kStartingPoints)
        m_start->addItem(tr(p.label), QString::fromLatin1(p.folder));
    top->addWidget(m_start, 1);
    auto *open = new QPushButton(tr("Open folder…"), this);
    auto *save = new QPushButton(tr("Save as folder…"), this);
    open->setToolTip(tr("A folder with acquire.lua, release.lua, renew.lua and lock.json, as `lockscope-cli explore "
                        "--lua DIR` reads it"));
    save->setToolTip(open->toolTip());
    top->addWidget(open);
    top->addWidget(save);
    v->addLayout(top);
    connect(m_start, &QComboBox::activated, this, [this](int index) {
        loadStartingPoint(m_start->itemData(index).toString());
    });
    connect(open, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a lock folder"));
        if (!dir.isEmpty())
            openFolder(dir);
    });
    connect(save, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Save the lock into a folder"));
        if (dir.isEmpty())
            return;
        QString error;
        if (!saveFolder(dir, &error))
            QMessageBox::warning(this, tr("Save the lock"), error);
        else
            m_status->setText(tr("Saved in %1: lockscope-cli explore --lua %1").arg(QDir::toNativeSeparators(dir)));
    });

    auto *nameRow = new QHBoxLayout;
    nameRow->addWidget(new QLabel(tr("Its name:"), this));
    m_title = new QLineEdit(this);
    m_title->setPlaceholderText(tr("your lock"));
    nameRow->addWidget(m_title, 1);
    m_lease = new QSpinBox(this);
    m_lease->setRange(20, 600000);
    m_lease->setValue(500);
    m_lease->setSuffix(tr(" ms"));
    m_workers = new QSpinBox(this);
    m_workers->setRange(2, 8);
    m_workers->setValue(3);
    nameRow->addWidget(new QLabel(tr("Lease:"), this));
    nameRow->addWidget(m_lease);
    nameRow->addWidget(new QLabel(tr("Workers:"), this));
    nameRow->addWidget(m_workers);
    v->addLayout(nameRow);

    m_tabs = new QTabWidget(this);
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (const char *name : kScripts) {
        auto *edit = new QPlainTextEdit(m_tabs);
        edit->setObjectName(QString::fromLatin1(name));
        edit->setFont(mono);
        edit->setLineWrapMode(QPlainTextEdit::NoWrap);
        edit->setTabStopDistance(4 * QFontMetricsF(mono).horizontalAdvance(u' '));
        new LuaHighlighter(edit->document(), dark);
        m_tabs->addTab(edit, QString::fromLatin1(name) + QStringLiteral(".lua"));
        connect(edit, &QPlainTextEdit::textChanged, this, [this] {
            if (!m_filling)
                markEdited(true);
            clearProblem();
        });
    }
    m_acquire = editor(QStringLiteral("acquire"));
    m_release = editor(QStringLiteral("release"));
    m_renew = editor(QStringLiteral("renew"));
    m_renew->setPlaceholderText(tr("-- Optional: renew the lease while the caller still owns the lock (a watchdog "
                                   "calls it). Leave empty for a lock that is never renewed."));
    // The stories' verdicts, a tab beside the scripts: the scripts stay one click away.
    m_storyTable = new QTableWidget(0, 2, m_tabs);
    m_storyTable->setObjectName(QStringLiteral("storyVerdicts"));
    m_storyTable->setHorizontalHeaderLabels({tr("Story (its faults and lease, your lock)"), tr("What this run showed")});
    m_storyTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_storyTable->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_storyTable->verticalHeader()->hide();
    m_storyTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_storyTable->setWordWrap(true);
    m_tabs->addTab(m_storyTable, tr("Stories against it"));
    v->addWidget(m_tabs, 1);

    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(m_status);

    auto *actions = new QHBoxLayout;
    m_checkButton = new QPushButton(tr("Check it"), this);
    m_checkButton->setToolTip(tr("Compile the scripts on a sandbox and try the lock once"));
    m_run = new QPushButton(QIcon(QStringLiteral(":/icons/run.svg")), tr("Run it"), this);
    m_run->setToolTip(tr("A contention run of this lock on the sandbox, in the Simulator"));
    m_storiesButton = new QPushButton(tr("Run the stories against it"), this);
    m_storiesButton->setToolTip(tr("The seed stories, each with its own faults and lease, with this lock in place of "
                                   "theirs: one verdict per story"));
    m_break = new QPushButton(tr("Try to break it"), this);
    m_break->setToolTip(tr("Search fault schedules against this lock on the sandbox until it breaks"));
    for (QPushButton *b : {m_checkButton, m_run, m_storiesButton, m_break}) {
        b->setMinimumHeight(32);
        actions->addWidget(b);
    }
    actions->addStretch(1);
    v->addLayout(actions);
    connect(m_checkButton, &QPushButton::clicked, this, &LockPlayground::check);
    connect(m_storiesButton, &QPushButton::clicked, this, [this] {
        if (m_stories.isRunning()) {
            m_storiesCancel->store(true);
            m_status->setText(tr("Stopping after the story running now…"));
        } else {
            runStories();
        }
    });
    connect(m_run, &QPushButton::clicked, this, [this] {
        if (const std::optional<Scenario> s = scenario())
            emit runRequested(*s);
    });
    connect(m_break, &QPushButton::clicked, this, [this] {
        if (const std::optional<ExploreTarget::Options> t = exploreTarget())
            emit breakRequested(*t, lockTitle());
    });
}

QPlainTextEdit *LockPlayground::editor(const QString &name) const
{
    return m_tabs->findChild<QPlainTextEdit *>(name);
}

void LockPlayground::markEdited(bool edited)
{
    m_edited = edited;
}

bool LockPlayground::mayReplaceEdits()
{
    if (!m_edited || !isVisible())
        return true;
    return QMessageBox::question(this, tr("Replace your lock?"),
                                 tr("Your edits to these scripts are not saved. Replace them?"))
        == QMessageBox::Yes;
}

bool LockPlayground::loadStartingPoint(const QString &name)
{
    const QString dir = QStringLiteral(":/locks/") + name;
    if (!QFile::exists(dir + QStringLiteral("/acquire.lua")))
        return false;
    if (!openFolder(dir))
        return false;
    m_start->setCurrentIndex(std::max(0, m_start->findData(name)));
    return true;
}

bool LockPlayground::openFolder(const QString &dir)
{
    if (!QFile::exists(dir + QStringLiteral("/acquire.lua")) || !QFile::exists(dir + QStringLiteral("/release.lua"))) {
        m_status->setText(tr("%1 holds no lock: a lock folder has acquire.lua and release.lua.")
                              .arg(QDir::toNativeSeparators(dir)));
        return false;
    }
    if (!mayReplaceEdits())
        return false;
    const QJsonObject settings = QJsonDocument::fromJson(readFile(dir + QStringLiteral("/lock.json"))).object();
    m_filling = true;
    m_acquire->setPlainText(QString::fromUtf8(readFile(dir + QStringLiteral("/acquire.lua"))));
    m_release->setPlainText(QString::fromUtf8(readFile(dir + QStringLiteral("/release.lua"))));
    m_renew->setPlainText(QString::fromUtf8(readFile(dir + QStringLiteral("/renew.lua"))));
    m_title->setText(settings.value(QStringLiteral("title")).toString());
    m_fencing = settings.value(QStringLiteral("fencing")).toBool();
    m_filling = false;
    markEdited(false);
    clearProblem();
    m_status->setText(dir.startsWith(u':') ? QString()
                                           : tr("Opened %1.").arg(QDir::toNativeSeparators(dir)));
    return true;
}

bool LockPlayground::saveFolder(const QString &dir, QString *error) const
{
    QJsonObject settings;
    if (!m_title->text().trimmed().isEmpty())
        settings.insert(QStringLiteral("title"), m_title->text().trimmed());
    if (m_fencing)
        settings.insert(QStringLiteral("fencing"), true);
    const QList<QPair<QString, QByteArray>> files {
        {QStringLiteral("acquire.lua"), m_acquire->toPlainText().toUtf8()},
        {QStringLiteral("release.lua"), m_release->toPlainText().toUtf8()},
        {QStringLiteral("renew.lua"), m_renew->toPlainText().toUtf8()},
        {QStringLiteral("lock.json"), QJsonDocument(settings).toJson(QJsonDocument::Compact) + '\n'},
    };
    for (const auto &[name, content] : files) {
        const QString path = dir + u'/' + name;
        if (name == QLatin1String("renew.lua") && content.trimmed().isEmpty()) {
            QFile::remove(path); // no renew.lua: a lock that is never renewed
            continue;
        }
        QString reason;
        if (!OutputFile::writeWhole(path, content, &reason)) {
            *error = tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), reason);
            return false;
        }
    }
    return true;
}

std::shared_ptr<const CustomLockScripts> LockPlayground::scripts(CustomLockScripts::Problem *problem) const
{
    QJsonObject settings;
    if (!m_title->text().trimmed().isEmpty())
        settings.insert(QStringLiteral("title"), m_title->text().trimmed());
    settings.insert(QStringLiteral("fencing"), m_fencing);
    return CustomLockScripts::fromSources(m_acquire->toPlainText().toUtf8(), m_release->toPlainText().toUtf8(),
                                          m_renew->toPlainText().trimmed().isEmpty() ? QByteArray()
                                                                                     : m_renew->toPlainText().toUtf8(),
                                          settings, problem);
}

QString LockPlayground::lockTitle() const
{
    const QString t = m_title->text().trimmed();
    return t.isEmpty() ? tr("your lock") : t;
}

std::optional<ExploreTarget::Options> LockPlayground::exploreTarget() const
{
    CustomLockScripts::Problem problem;
    const std::shared_ptr<const CustomLockScripts> lua = scripts(&problem);
    if (!lua) {
        const_cast<LockPlayground *>(this)->showProblem(problem);
        return std::nullopt;
    }
    ExploreTarget::Options t;
    t.lua = lua;
    t.leaseMs = m_lease->value();
    t.workers = m_workers->value();
    return t;
}

std::optional<Scenario> LockPlayground::scenario() const
{
    const std::optional<ExploreTarget::Options> t = exploreTarget();
    if (!t)
        return std::nullopt;
    QString error;
    const std::optional<ExploreTarget> target = ExploreTarget::make(*t, &error);
    if (!target) {
        const_cast<LockPlayground *>(this)->showProblem({QString(), 0, error});
        return std::nullopt;
    }
    // The explorer's workload (scaled by the lease) without its faults, for ten seconds instead of a few
    // acquisitions: a plain contention run.
    Scenario s = target->base();
    s.id = QStringLiteral("my-lock");
    s.title = tr("Your lock: %1").arg(lockTitle());
    s.summary = tr("%1 workers contend for your lock (lease %2 ms) on the sandbox, with no fault injected.")
                    .arg(t->workers)
                    .arg(t->leaseMs);
    s.faults.clear();
    s.workload.operations = 0;
    s.workload.durationS = 10;
    return s;
}

void LockPlayground::check()
{
    if (m_check.isRunning())
        return;
    CustomLockScripts::Problem problem;
    const std::shared_ptr<const CustomLockScripts> lua = scripts(&problem);
    if (!lua) {
        m_problem = problem;
        showProblem(problem);
        emit checked();
        return;
    }
    m_checkButton->setEnabled(false);
    m_status->setText(tr("Checking on a sandbox…"));
    m_check.setFuture(BackgroundTask::run([lua]() -> CustomLockScripts::Problem {
        SandboxServer::Options o;
        o.name = QStringLiteral("lock check sandbox");
        SandboxServer sandbox(o);
        if (!sandbox.start())
            return {QString(), 0, QStringLiteral("cannot start a sandbox redis-server: %1").arg(sandbox.errorString())};
        ConnectionSettings settings = sandbox.connectionSettings();
        settings.readOnly = false;
        RedisConnection connection(settings);
        if (const RedisError e = connection.open())
            return {QString(), 0, QStringLiteral("cannot reach the sandbox: %1").arg(e.message())};
        return lua->check(connection);
    }));
}

void LockPlayground::clearProblem()
{
    for (const char *name : kScripts)
        editor(QString::fromLatin1(name))->setExtraSelections({});
}

void LockPlayground::showProblem(const CustomLockScripts::Problem &problem)
{
    clearProblem();
    m_status->setText(QStringLiteral("<span style='color:#b00020'>%1</span>").arg(problem.text().toHtmlEscaped()));
    const QString name = problem.script.section(u'.', 0, 0);
    QPlainTextEdit *edit = name.isEmpty() ? nullptr : editor(name);
    if (!edit)
        return;
    m_tabs->setCurrentWidget(edit);
    if (problem.line <= 0)
        return;
    const QTextBlock block = edit->document()->findBlockByNumber(problem.line - 1);
    if (!block.isValid())
        return;
    // The line Redis named, underlined as a compiler's editor does.
    QTextEdit::ExtraSelection mark;
    mark.cursor = QTextCursor(block);
    mark.cursor.select(QTextCursor::LineUnderCursor);
    mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    mark.format.setUnderlineColor(QColor(0xd0, 0x00, 0x20));
    mark.format.setToolTip(problem.text());
    edit->setExtraSelections({mark});
    edit->setTextCursor(QTextCursor(block));
}

void LockPlayground::setScript(const QString &name, const QString &text)
{
    if (QPlainTextEdit *e = editor(name))
        e->setPlainText(text);
}

void LockPlayground::showScript(const QString &name)
{
    if (QPlainTextEdit *e = editor(name))
        m_tabs->setCurrentWidget(e);
}

QString LockPlayground::script(const QString &name) const
{
    QPlainTextEdit *e = editor(name);
    return e ? e->toPlainText() : QString();
}

int LockPlayground::underlinedLine(const QString &name) const
{
    QPlainTextEdit *e = editor(name);
    if (!e || e->extraSelections().isEmpty())
        return 0;
    return e->extraSelections().first().cursor.blockNumber() + 1;
}
