// The timeline with what goes around it: the story's current step in a banner (with Back and Next while
// stepping through a recorded story), the legend, and the replay bar (scrub slider, replay at a chosen speed,
// follow live, zoom).
#pragma once

#include "timelinerenderer.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QToolButton;
class TimelineView;
class TimelineLegend;

class TimelinePanel : public QWidget
{
    Q_OBJECT
public:
    explicit TimelinePanel(QWidget *parent = nullptr);

    TimelineView *view() const { return m_view; }
    void setData(const TimelineData *data, TimelineRenderer::TextLookup lookup, qint64 plannedUs);
    // New events (30 Hz while a run goes on).
    void refresh();
    // Stepping through a recorded story: the banner says so and offers Back and Next.
    struct Stepping
    {
        bool on = false;
        bool canBack = false;
        bool canNext = false;
        bool recording = false; // the run is still going on (being recorded)
        bool canFork = false; // a finished recording: Fork from Here is possible
    };
    void setStepping(const Stepping &stepping);
    // A sentence above the timeline (errors, hints); empty hides it.
    void setMessage(const QString &html, bool error);

    void startReplay();
    void stopReplay();
    bool isReplaying() const { return m_replay.isActive(); }

signals:
    void backRequested();
    void nextRequested();
    void leaveSteppingRequested();
    void forkRequested();

protected:
    void resizeEvent(QResizeEvent *event) override; // a short panel gives the legend's rows to the lanes

private:
    void updateBanner();
    void updateSlider();
    void replayTick();

    QLabel *m_message = nullptr;
    QWidget *m_banner = nullptr;
    QLabel *m_bannerText = nullptr;
    QPushButton *m_back = nullptr;
    QPushButton *m_next = nullptr;
    QPushButton *m_leave = nullptr;
    QPushButton *m_fork = nullptr;
    TimelineView *m_view = nullptr;
    TimelineLegend *m_legend = nullptr;
    QToolButton *m_legendButton = nullptr;
    bool m_legendChosen = false; // the user showed or hid the legend: no longer the panel's height's call
    QToolButton *m_replayButton = nullptr;
    QComboBox *m_speed = nullptr;
    QSlider *m_slider = nullptr;
    QLabel *m_time = nullptr;
    QToolButton *m_follow = nullptr;
    QTimer m_replay;
    QElapsedTimer m_replayClock;
    Stepping m_stepping;
    bool m_updatingSlider = false;
};
