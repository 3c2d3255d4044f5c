// The Learn place: every story (each seed algorithm's flaw and its fix, the inventory demo, polling vs
// pub/sub, fair vs unfair, the GC pause with and without fencing, Redlock, restarts, failover, the split
// vote) with its narrative in numbered steps, what to watch for on the timeline, the algorithm and its Lua
// scripts (read-only, highlighted), and buttons that run it in the Simulator — straight through or step by
// step, or that search for a way to break its lock ("Try to break it"); and a page to write one's own lock.
#pragma once

#include <QWidget>

class LockPlayground;
class QAction;
class QLabel;
class QMenu;
class QListWidget;
class QPushButton;
class QTabWidget;
class QScrollArea;
class QStackedWidget;

class LearnPlace : public QWidget
{
    Q_OBJECT
public:
    explicit LearnPlace(QWidget *parent = nullptr);

    // Shows a story (a preset id); false when there is none.
    bool showStory(const QString &id);
    QString currentStory() const { return m_current; }
    // "Write your own lock": the page and showing it.
    LockPlayground *playground() const { return m_playground; }
    void showPlayground();
    bool isShowingPlayground() const;
    // In the order the list shows them.
    QStringList storyIds() const;
    // For tests: the texts on screen.
    QString narrativeText() const;
    QStringList scriptNames() const;
    // The window's Learn menu: run the story (straight or step by step), the next and previous story.
    void fillMenu(QMenu *menu);

signals:
    void runRequested(const QString &presetId, bool stepByStep);
    // "Try to break it": the explorer's search against this story's lock.
    void breakRequested(const QString &presetId);

protected:
    void changeEvent(QEvent *event) override;

private:
    void buildList();
    void fill();

    QListWidget *m_list = nullptr;
    QStackedWidget *m_pages = nullptr;
    QScrollArea *m_scroll = nullptr;
    LockPlayground *m_playground = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_narrative = nullptr;
    QLabel *m_watch = nullptr;
    QLabel *m_teaching = nullptr;
    QLabel *m_algorithms = nullptr;
    QLabel *m_expect = nullptr;
    QLabel *m_next = nullptr;
    QTabWidget *m_scripts = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_step = nullptr;
    QPushButton *m_break = nullptr;
    QAction *m_runAction = nullptr;
    QAction *m_stepAction = nullptr;
    QAction *m_breakAction = nullptr;
    QAction *m_nextStoryAction = nullptr;
    QAction *m_previousStoryAction = nullptr;
    QString m_current;
};
