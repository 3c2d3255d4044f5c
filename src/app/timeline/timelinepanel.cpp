// TimelinePanel: layout, the narrative banner and replay.
#include "timelinepanel.h"
#include "common/textformat.h"

#include "timelinelegend.h"
#include "timelineview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QResizeEvent>
#include <QSlider>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

TimelinePanel::TimelinePanel(QWidget *parent)
    : QWidget(parent)
    , m_view(new TimelineView(this))
    , m_legend(new TimelineLegend(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("timelineMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    layout->addWidget(m_message);

    // The story's narrative: the step the run (or the cursor) is at.
    m_banner = new QWidget(this);
    m_banner->setObjectName(QStringLiteral("storyBanner"));
    auto *bannerLayout = new QHBoxLayout(m_banner);
    bannerLayout->setContentsMargins(10, 6, 6, 6);
    m_bannerText = new QLabel(m_banner);
    m_bannerText->setWordWrap(true);
    m_bannerText->setTextFormat(Qt::RichText);
    bannerLayout->addWidget(m_bannerText, 1);
    m_back = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekBackward), tr("Back"), m_banner);
    m_back->setToolTip(tr("The previous step of the recorded run (Shift+F8)"));
    m_next = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Next"), m_banner);
    m_next->setToolTip(tr("The next step of the recorded run (F8)"));
    m_fork = new QPushButton(tr("Fork…"), m_banner);
    m_fork->setObjectName(QStringLiteral("forkButton"));
    m_fork->setToolTip(tr("Fork from here: run the story again with one thing changed, beside this "
                          "recording (Ctrl+K)"));
    m_leave = new QPushButton(tr("Show all"), m_banner);
    m_leave->setToolTip(tr("Leave stepping: show the whole run"));
    for (QPushButton *b : {m_back, m_next, m_fork, m_leave}) {
        b->hide();
        bannerLayout->addWidget(b);
    }
    connect(m_back, &QPushButton::clicked, this, &TimelinePanel::backRequested);
    connect(m_next, &QPushButton::clicked, this, &TimelinePanel::nextRequested);
    connect(m_leave, &QPushButton::clicked, this, &TimelinePanel::leaveSteppingRequested);
    connect(m_fork, &QPushButton::clicked, this, &TimelinePanel::forkRequested);
    m_banner->hide();
    layout->addWidget(m_banner);

    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend);

    auto *bar = new QHBoxLayout;
    bar->setSpacing(4);
    m_replayButton = new QToolButton(this);
    m_replayButton->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_replayButton->setText(tr("Replay"));
    m_replayButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_replayButton->setToolTip(tr("Replay the finished run from the start, at the chosen speed (Ctrl+P)"));
    m_replayButton->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    connect(m_replayButton, &QToolButton::clicked, this,
            [this] { isReplaying() ? stopReplay() : startReplay(); });
    bar->addWidget(m_replayButton);
    m_speed = new QComboBox(this);
    for (double s : {0.25, 0.5, 1.0, 2.0, 5.0, 20.0})
        m_speed->addItem(QStringLiteral("%1×").arg(s), s);
    m_speed->setCurrentIndex(2);
    m_speed->setToolTip(tr("Replay speed (1× = real time)"));
    bar->addWidget(m_speed);
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setRange(0, 1000);
    m_slider->setToolTip(tr("Scrub through the run: the timeline shows everything up to this moment "
                            "(also: drag on the time ruler, ← → to step)"));
    connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
        if (m_updatingSlider || !m_view->data())
            return;
        stopReplay();
        m_view->setCursorTime(value >= m_slider->maximum() ? TimelineData::kOpen
                                                           : m_view->totalUs() * value / m_slider->maximum());
    });
    bar->addWidget(m_slider, 1);
    m_time = new QLabel(this);
    m_time->setMinimumWidth(110);
    m_time->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    bar->addWidget(m_time);
    m_follow = new QToolButton(this);
    m_follow->setText(tr("Follow live"));
    m_follow->setCheckable(true);
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Keep the newest events in view while the run goes on (L)"));
    connect(m_follow, &QToolButton::toggled, m_view, &TimelineView::setFollowLive);
    connect(m_view, &TimelineView::followLiveChanged, m_follow, &QToolButton::setChecked);
    bar->addWidget(m_follow);
    m_legendButton = new QToolButton(this);
    m_legendButton->setText(tr("Legend"));
    m_legendButton->setCheckable(true);
    m_legendButton->setChecked(true);
    m_legendButton->setToolTip(tr("Show or hide what the colours and marks mean (hidden by itself when the "
                                  "timeline is short, so that its lanes keep the room)"));
    connect(m_legendButton, &QToolButton::clicked, this, [this](bool on) {
        m_legendChosen = true;
        m_legend->setVisible(on);
    });
    bar->addWidget(m_legendButton);
    auto *fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show the whole run (F)"));
    connect(fit, &QToolButton::clicked, m_view, &TimelineView::zoomToFit);
    bar->addWidget(fit);
    auto *zoomIn = new QToolButton(this);
    zoomIn->setText(QStringLiteral("+"));
    zoomIn->setToolTip(tr("Zoom in (+, Ctrl+wheel)"));
    connect(zoomIn, &QToolButton::clicked, this,
            [this] { m_view->zoomBy(0.5, (m_view->viewStart() + m_view->viewEnd()) / 2); });
    bar->addWidget(zoomIn);
    auto *zoomOut = new QToolButton(this);
    zoomOut->setText(QStringLiteral("−"));
    zoomOut->setToolTip(tr("Zoom out (-, Ctrl+wheel)"));
    connect(zoomOut, &QToolButton::clicked, this,
            [this] { m_view->zoomBy(2.0, (m_view->viewStart() + m_view->viewEnd()) / 2); });
    bar->addWidget(zoomOut);
    layout->addLayout(bar);

    m_replay.setInterval(33);
    connect(&m_replay, &QTimer::timeout, this, &TimelinePanel::replayTick);
    connect(m_view, &TimelineView::cursorMoved, this, [this] {
        updateBanner();
        updateSlider();
    });
    setData(nullptr, {}, 0);
}

void TimelinePanel::setData(const TimelineData *data, TimelineRenderer::TextLookup lookup, qint64 plannedUs)
{
    stopReplay();
    m_view->setData(data, std::move(lookup));
    m_view->setPlannedUs(plannedUs);
    refresh();
}

void TimelinePanel::refresh()
{
    m_view->refresh();
    const TimelineData *d = m_view->data();
    const bool finished = d && d->isFinished();
    m_replayButton->setEnabled(finished);
    m_slider->setEnabled(finished);
    m_speed->setEnabled(finished);
    m_follow->setEnabled(d && !finished);
    m_legend->setShowsVotes(d && d->hasRounds());
    updateBanner();
    updateSlider();
}

void TimelinePanel::setStepping(const Stepping &stepping)
{
    m_stepping = stepping;
    for (QPushButton *b : {m_back, m_next, m_fork, m_leave})
        b->setVisible(stepping.on);
    m_fork->setEnabled(stepping.canFork);
    m_back->setEnabled(stepping.canBack);
    m_next->setEnabled(stepping.canNext);
    if (stepping.on && stepping.canNext)
        m_next->setDefault(true);
    updateBanner();
}

void TimelinePanel::setMessage(const QString &html, bool error)
{
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    m_message->setText(html);
    m_message->setStyleSheet(
        error
            ? QStringLiteral("QLabel { color: %1; border: 1px solid %1; border-radius: 4px; padding: 6px; }")
                  .arg(tp.stale.name())
            : QStringLiteral("QLabel { padding: 4px; }"));
    m_message->setVisible(!html.isEmpty());
}

void TimelinePanel::updateBanner()
{
    const TimelineData *d = m_view->data();
    const TimelinePalette tp = TimelinePalette::forPalette(palette());
    const bool hasStory = d && !d->layout().steps.isEmpty();
    if (!hasStory) {
        m_banner->hide();
        return;
    }
    int total = 0;
    for (const Scenario::Step &s : d->layout().steps)
        total += s.note.isEmpty() ? 0 : 1;
    QString html;
    const qint64 at = m_view->cursorTime() != TimelineData::kOpen ? m_view->cursorTime() : d->nowUs();
    const TimelineData::Step *step = d->stepAt(at);
    if (step)
        html = tr("<span style='color:%1'><b>Step %2 of %3</b></span> &nbsp;at %4 &nbsp;—&nbsp; %5")
                   .arg(tp.step.name())
                   .arg(step->number)
                   .arg(total)
                   .arg(TextFormat::runTime(step->timeUs, 100000), step->note.toHtmlEscaped());
    else if (m_stepping.on)
        html = tr("<span style='color:%1'><b>Step 1 of %2</b></span> comes as soon as the run gets there.")
                   .arg(tp.step.name())
                   .arg(total);
    else
        html = tr("<span style='color:%1'><b>The story</b></span> begins when the run starts: each "
                  "numbered step appears on the timeline as it happens.")
                   .arg(tp.step.name());
    // What the class is looking at: the run as it happens, or a recording walked step by step.
    if (m_stepping.on)
        html += tr("<br><small><b>A recording, stepped through</b> (%1): the run goes on at Redis' own pace, "
                   "so reading a step cannot change what happens next. Back (Shift+F8) · Next (F8).</small>")
                    .arg(m_stepping.recording ? tr("still being recorded") : tr("recorded in full"));
    else if (!d->isFinished())
        html += tr("<br><small><b>Live</b>: the run is happening now.</small>");
    m_bannerText->setText(html);
    m_banner->setStyleSheet(QStringLiteral("QWidget#storyBanner { border-left: 4px solid %1; background: %2; "
                                           "border-radius: 3px; }")
                                .arg(tp.step.name(), palette().color(QPalette::Base).name()));
    m_banner->show();
}

void TimelinePanel::updateSlider()
{
    const TimelineData *d = m_view->data();
    m_updatingSlider = true;
    const qint64 total = std::max<qint64>(1, m_view->totalUs());
    const qint64 cursor = m_view->cursorTime();
    const qint64 at = cursor != TimelineData::kOpen ? cursor : (d ? d->nowUs() : 0);
    m_slider->setValue(cursor == TimelineData::kOpen ? m_slider->maximum()
                                                     : int(at * m_slider->maximum() / total));
    m_time->setText(d ? tr("%1 / %2").arg(TextFormat::runTime(at, 100000),
                                          TextFormat::runTime(total, 100000))
                      : QString());
    m_updatingSlider = false;
}

void TimelinePanel::startReplay()
{
    const TimelineData *d = m_view->data();
    if (!d || !d->isFinished())
        return;
    if (m_view->cursorTime() == TimelineData::kOpen || m_view->cursorTime() >= m_view->totalUs())
        m_view->setCursorTime(0);
    m_replayClock.start();
    m_replay.start();
    m_replayButton->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    m_replayButton->setText(tr("Pause"));
}

void TimelinePanel::stopReplay()
{
    m_replay.stop();
    m_replayButton->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_replayButton->setText(tr("Replay"));
}

void TimelinePanel::replayTick()
{
    const double speed = m_speed->currentData().toDouble();
    const qint64 step = qint64(double(m_replayClock.restart()) * 1000.0 * speed);
    const qint64 next = m_view->cursorTime() + step;
    if (next >= m_view->totalUs()) {
        stopReplay();
        m_view->clearCursor();
        return;
    }
    m_view->setCursorTime(next);
}

void TimelinePanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (m_legendChosen)
        return;
    // Below this the legend's rows would take the lanes' room (a 700 px screen, the Fork tab open).
    constexpr int kLegendFromHeight = 400;
    const bool shown = height() >= kLegendFromHeight;
    m_legend->setVisible(shown);
    m_legendButton->setChecked(shown);
}
