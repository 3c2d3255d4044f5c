// The timeline with what goes around it: the story's current step in a banner (and the Continue button of
// step mode), the legend, and the replay bar (scrub slider, replay at a chosen speed, follow live, zoom).
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
    // Step mode: waiting before `stepIndex` (scenario index, -1: not waiting) whose note is `note`.
    void setWaitingStep(int stepNumber, const QString &note);
    // A sentence above the timeline (errors, hints); empty hides it.
    void setMessage(const QString &html, bool error);

    void startReplay();
    void stopReplay();
    bool isReplaying() const { return m_replay.isActive(); }

signals:
    void continueRequested();

private:
    void updateBanner();
    void updateSlider();
    void replayTick();

    QLabel *m_message = nullptr;
    QWidget *m_banner = nullptr;
    QLabel *m_bannerText = nullptr;
    QPushButton *m_continue = nullptr;
    TimelineView *m_view = nullptr;
    TimelineLegend *m_legend = nullptr;
    QToolButton *m_replayButton = nullptr;
    QComboBox *m_speed = nullptr;
    QSlider *m_slider = nullptr;
    QLabel *m_time = nullptr;
    QToolButton *m_follow = nullptr;
    QTimer m_replay;
    QElapsedTimer m_replayClock;
    int m_waitingStep = 0;
    QString m_waitingNote;
    bool m_updatingSlider = false;
};
