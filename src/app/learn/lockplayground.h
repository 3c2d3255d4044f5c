// Learn's "Write your own lock": three Lua editors (acquire, release, renew) under the calling convention, with
// syntax colours and the errors Redis reports underlined at their line; a lease and a workers setting; and the
// actions that put the lock to work on the sandbox — run it in the Simulator, run the seed stories against it
// (a verdict per story), or try to break it. It starts
// from a shipped starting point (the textbook lock, or a common mistake), and a lock is saved as, and opened
// from, the folder `lockscope-cli explore --lua DIR` reads. Only sandboxes ever run these scripts: the check
// starts one of its own, and a script that does not end is stopped there (SCRIPT KILL) and reported.
#pragma once

#include "explore/exploretarget.h"
#include "explore/storiesagainstlock.h"
#include "locks/customlockscripts.h"
#include "sim/scenario.h"

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableWidget;

class LockPlayground : public QWidget
{
    Q_OBJECT
public:
    explicit LockPlayground(QWidget *parent = nullptr);
    ~LockPlayground() override;

    // The shipped starting points ("textbook", "plain-del", "no-expiry", "no-nx"), in the order offered.
    static QStringList startingPoints();
    bool loadStartingPoint(const QString &name);
    // Reads a lock folder (acquire.lua, release.lua, renew.lua, lock.json); false with a message shown.
    bool openFolder(const QString &dir);
    // Writes the lock as such a folder; false with `error`.
    bool saveFolder(const QString &dir, QString *error) const;

    // The scripts as edited; null with `problem` when they cannot make a lock (a script missing, bad lock.json).
    std::shared_ptr<const CustomLockScripts> scripts(CustomLockScripts::Problem *problem) const;
    // A contention run of this lock on the sandbox, as the Simulator takes it (null when the scripts cannot).
    std::optional<Scenario> scenario() const;
    // What "Try to break it" searches: this lock with the lease and workers set here.
    std::optional<ExploreTarget::Options> exploreTarget() const;
    QString lockTitle() const;

    // "Run the stories against it": the seed stories with this lock in place of theirs, in the background,
    // each row of the table filled as its story ends; storiesDone() follows.
    void runStories();
    bool isRunningStories() const { return m_stories.isRunning(); }
    // What the table shows: one line per story ("seed-short-lease: broken: overlap — …").
    QStringList storyLines() const;

    // Compiles and tries the scripts on a sandbox of the check's own, in the background; checked() follows.
    void check();
    bool isChecking() const { return m_check.isRunning(); }
    // The last check's problem (none: the lock ran its tries), and the editors' texts for tests.
    const CustomLockScripts::Problem &lastProblem() const { return m_problem; }
    void setScript(const QString &name, const QString &text);
    // Brings the editor of `name` ("acquire", "release", "renew") to the front.
    void showScript(const QString &name);
    QString script(const QString &name) const;
    // The line underlined in `name`'s editor (0: none).
    int underlinedLine(const QString &name) const;

signals:
    void runRequested(const Scenario &scenario);
    void breakRequested(const ExploreTarget::Options &target, const QString &title);
    void checked();
    void storiesDone();

private:
    void buildLayout();
    void showProblem(const CustomLockScripts::Problem &problem);
    void clearProblem();
    QPlainTextEdit *editor(const QString &name) const;
    // Asks before the user's edits are replaced; true to go on.
    bool mayReplaceEdits();
    void markEdited(bool edited);
    void showStoryRow(int index, const StoriesAgainstLock::Row &row);

    QComboBox *m_start = nullptr;
    QLineEdit *m_title = nullptr;
    QTabWidget *m_tabs = nullptr;
    QPlainTextEdit *m_acquire = nullptr;
    QPlainTextEdit *m_release = nullptr;
    QPlainTextEdit *m_renew = nullptr;
    QSpinBox *m_lease = nullptr;
    QSpinBox *m_workers = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_checkButton = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_break = nullptr;
    QPushButton *m_storiesButton = nullptr;
    QTableWidget *m_storyTable = nullptr;
    QFutureWatcher<QList<StoriesAgainstLock::Row>> m_stories;
    std::shared_ptr<std::atomic_bool> m_storiesCancel;
    QFutureWatcher<CustomLockScripts::Problem> m_check;
    CustomLockScripts::Problem m_problem;
    bool m_fencing = false; // lock.json's "fencing", kept from the folder or starting point it came from
    bool m_edited = false;
    bool m_filling = false;
};
