// LockDetailsPane: mostly rich text built from the record; the countdown and timeline refresh on tick().
#include "lockdetailspane.h"

#include "historytimeline.h"
#include "inspect/inspectclock.h"
#include "inspect/inspectformat.h"
#include "inspect/ownerevidence.h"
#include "redis/bytes.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>

namespace {

QString esc(const QString &text)
{
    return text.toHtmlEscaped();
}

QString bytes(const QByteArray &b, int max = 120)
{
    return esc(Bytes::display(b, max));
}

QLabel *heading(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(QStringLiteral("<b>%1</b>").arg(esc(text)), parent);
    label->setContentsMargins(0, 8, 0, 0);
    return label;
}

QLabel *richLabel(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::RichText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    // A 36-character owner id would set the whole pane's width and push every sentence past the edge of a
    // narrow window: prose wraps to the pane, and only such a token runs over (the raw data shows it whole).
    label->setMinimumWidth(1);
    return label;
}

QString table(const QStringList &headers, const QList<QStringList> &rows)
{
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='2'><tr>");
    for (const QString &h : headers)
        html += QStringLiteral("<td style='color:palette(placeholder-text);padding-right:10px'>%1</td>")
                    .arg(esc(h));
    html += QStringLiteral("</tr>");
    for (const QStringList &row : rows) {
        html += QStringLiteral("<tr>");
        for (const QString &cell : row)
            html += QStringLiteral("<td style='padding-right:10px'>%1</td>").arg(cell);
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

} // namespace

LockDetailsPane::LockDetailsPane(QWidget *parent)
    : QWidget(parent)
    , m_stack(new QStackedWidget(this))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    // The actions sit above the scrolled details, always in view: at the bottom of the pane they were cut
    // off, or a scroll away, on a 1024 × 700 screen.
    m_actionBar = new QWidget(this);
    auto *actions = new QHBoxLayout(m_actionBar);
    actions->setContentsMargins(4, 0, 4, 4);
    m_forceUnlock = new QPushButton(tr("Force Unlock…"), m_actionBar);
    m_extend = new QPushButton(tr("Set TTL…"), m_actionBar);
    m_removeQueue = new QPushButton(tr("Remove Orphan Queue…"), m_actionBar);
    for (QPushButton *b : {m_forceUnlock, m_extend, m_removeQueue}) {
        b->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
        b->setMinimumWidth(1); // they share a narrow pane rather than push it wider
        actions->addWidget(b);
    }
    actions->addStretch();
    outer->addWidget(m_actionBar);
    outer->addWidget(m_stack, 1);

    m_placeholder = new QLabel(tr("Select a lock to see its owners, waiters, companions and history."), this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setForegroundRole(QPalette::PlaceholderText);
    m_stack->addWidget(m_placeholder);

    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *content = new QWidget(scroll);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 4, 8, 4);
    m_title = richLabel(content);
    m_reason = richLabel(content);
    m_reason->setForegroundRole(QPalette::PlaceholderText);
    m_ttl = richLabel(content);
    m_diagnoses = richLabel(content);
    m_facts = richLabel(content);
    m_cadenceLabel = richLabel(content);
    m_timeline = new HistoryTimeline(content);
    m_eventsLabel = richLabel(content);
    m_raw = new QPlainTextEdit(content);
    m_manual = new QPlainTextEdit(content);
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (QPlainTextEdit *edit : {m_raw, m_manual}) {
        edit->setReadOnly(true);
        edit->setFont(fixed);
        edit->setMaximumHeight(110);
        edit->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    }
    m_manual->setObjectName(QStringLiteral("manualUnlock"));

    layout->addWidget(m_title);
    layout->addWidget(m_reason);
    layout->addWidget(m_ttl);
    layout->addWidget(m_diagnoses);
    layout->addWidget(m_facts);
    layout->addWidget(heading(tr("History"), content));
    layout->addWidget(m_cadenceLabel);
    layout->addWidget(m_timeline);
    layout->addWidget(m_eventsLabel);
    layout->addWidget(heading(tr("Raw data"), content));
    layout->addWidget(m_raw);
    auto *manualRow = new QHBoxLayout;
    manualRow->addWidget(heading(tr("Unlock by hand (redis-cli)"), content), 1);
    auto *copy = new QPushButton(tr("Copy"), content);
    copy->setToolTip(tr("Copy the command: paste it into redis-cli connected with a user allowed to write"));
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(manualCommand()); });
    manualRow->addWidget(copy);
    layout->addLayout(manualRow);
    layout->addWidget(m_manual);

    m_actionsNote = richLabel(content);
    m_actionsNote->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_actionsNote);
    layout->addStretch();
    connect(m_forceUnlock, &QPushButton::clicked, this,
            [this] { emit actionRequested(LockAction::Type::ForceUnlock); });
    connect(m_extend, &QPushButton::clicked, this,
            [this] { emit actionRequested(LockAction::Type::ExtendTtl); });
    connect(m_removeQueue, &QPushButton::clicked, this,
            [this] { emit actionRequested(LockAction::Type::RemoveOrphanQueue); });

    scroll->setWidget(content);
    m_stack->addWidget(scroll);
    showNothing();
}

void LockDetailsPane::showNothing()
{
    m_hasLock = false;
    m_stack->setCurrentIndex(0);
    m_actionBar->hide();
}

void LockDetailsPane::showLock(const LockRecord &r, const LockHistory *history, qint64 leaseMs)
{
    m_record = r;
    m_hasLock = true;
    m_gone = !r.exists() && r.kind != LockKind::Fair;
    m_lease = leaseMs;
    m_stack->setCurrentIndex(1);
    m_actionBar->show();

    QString title = QStringLiteral("<span style='font-size:large'><b>%1</b></span><br>%2 · %3")
                        .arg(bytes(r.key, 300), esc(LockKinds::label(r.kind)),
                             esc(r.formatName.isEmpty() ? r.library
                                                        : r.formatName + QStringLiteral(" — ") + r.library));
    if (!r.alsoLibraries.isEmpty())
        title += QStringLiteral("<br><i>%1</i>")
                     .arg(esc(
                         tr("also written this way by %1").arg(r.alsoLibraries.join(QStringLiteral(", ")))));
    if (!r.groupKeys.isEmpty()) {
        QStringList keys;
        for (const QByteArray &k : r.memberKeys())
            keys << bytes(k, 80);
        title += QStringLiteral("<br>one lock on %1 keys: %2")
                     .arg(r.memberKeys().size())
                     .arg(keys.join(QStringLiteral(", ")));
    }
    m_title->setText(title);
    m_reason->setText(
        esc(r.reason)
        + (r.formatNote.isEmpty() ? QString() : QStringLiteral("<br><i>%1</i>").arg(esc(r.formatNote))));

    if (r.diagnoses.isEmpty()) {
        m_diagnoses->setText(
            QStringLiteral("<span style='color:#2e7d32'>%1</span>").arg(tr("No problems seen.")));
    } else {
        QString html;
        for (const LockDiagnosis &d : r.diagnoses)
            html += QStringLiteral("<p style='margin:2px 0'><span "
                                   "style='background:#fdecea;color:#b71c1c'>&nbsp;%1&nbsp;</span> %2"
                                   "<br><span style='color:#666'>%3</span></p>")
                        .arg(esc(d.code), esc(d.text),
                             d.evidence.isEmpty() ? QString() : esc(tr("Evidence: %1").arg(d.evidence)));
        m_diagnoses->setText(html);
    }

    QString facts;
    if (!r.owners.isEmpty()) {
        // Parsed owners (client + thread) show their parts; opaque tokens show the value itself.
        const bool parsed = std::all_of(r.owners.cbegin(), r.owners.cend(), [](const LockOwner &o) {
            return !o.client.isEmpty() && !o.thread.isEmpty();
        });
        QList<QStringList> rows;
        for (const LockOwner &o : r.owners) {
            QStringList extra;
            if (!o.display.isEmpty())
                extra << o.display;
            if (!o.mode.isEmpty())
                extra << o.mode;
            if (o.sinceEpochMs >= 0)
                extra << tr("since %1").arg(InspectFormat::clockTime(o.sinceEpochMs));
            if (o.untilEpochMs >= 0)
                extra << (o.untilEpochMs < InspectClock::wallMs() ? tr("EXPIRED at %1") : tr("until %1"))
                             .arg(InspectFormat::clockTime(o.untilEpochMs));
            if (!o.note.isEmpty())
                extra << o.note;
            const QString count = o.count >= 0 ? QString::number(o.count) : QStringLiteral("—");
            if (parsed)
                rows << QStringList {esc(o.client), esc(o.thread), count,
                                     esc(extra.join(QStringLiteral(" · ")))};
            else if (OwnerEvidence::isRandomBytes(o.id)) // binary: its hex (the display) says more
                rows << QStringList {esc(tr("%1 raw random bytes").arg(o.id.size())), count,
                                     esc(extra.join(QStringLiteral(" · ")))};
            else
                rows << QStringList {bytes(o.id, 80), count, esc(extra.join(QStringLiteral(" · ")))};
        }
        facts += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b></p>").arg(tr("Owners"));
        facts += parsed ? table({tr("client"), tr("thread"), tr("count"), QString()}, rows)
                        : table({tr("owner value"), tr("count"), QString()}, rows);
    } else if (r.exists()) {
        const QString why = r.unknownReason(QStringLiteral("owners"));
        facts += QStringLiteral("<p>%1</p>").arg(esc(why.isEmpty() ? tr("No owner recorded.") : why));
    }
    if (r.kind == LockKind::Semaphore)
        facts
            += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b> %2</p>")
                   .arg(tr("Permits:"),
                        esc(r.ownerSummary()
                            + (r.permitsTotal < 0 ? tr(" (the limit is not stored in Redis)") : QString())));
    if (r.kind == LockKind::JobLock) {
        QStringList job {tr("queue %1, job %2").arg(r.job.queue, r.job.id)};
        if (!r.job.jobKey.isEmpty())
            job << (r.job.jobFound ? tr("job %1 present").arg(QString::fromUtf8(r.job.jobKey))
                                   : tr("job %1 NOT FOUND").arg(QString::fromUtf8(r.job.jobKey)));
        if (r.job.attempts >= 0)
            job << tr("%n attempt(s) made", nullptr, int(r.job.attempts));
        if (r.job.stalledCount > 0)
            job << tr("taken back as stalled %n time(s)", nullptr, int(r.job.stalledCount));
        if (r.job.markedStalled)
            job << tr("in the queue's stalled set since its last check (cleared at the next renewal)");
        facts += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b> %2</p>")
                     .arg(tr("Job:"), esc(job.join(QStringLiteral("; "))));
        if (!r.job.reclaim.isEmpty())
            facts += QStringLiteral("<p style='margin:2px 0;color:#555'>%1</p>").arg(esc(r.job.reclaim));
    }
    if (!r.renewal.shown().isEmpty()) {
        // What the watch saw overrules the format's prior (RenewalPolicy::observed): a lock its library does
        // not renew may still be renewed by the application or by another library built on it.
        QString renewal = r.renewal.shown();
        const qint64 now = InspectClock::monotonicMs();
        if (history && history->renewals() > 0 && !r.renewal.observed.isEmpty()
            && history->lastRenewalMs() >= 0)
            renewal += tr("; the last one %1 ago")
                           .arg(InspectFormat::duration(now - history->lastRenewalMs()));
        else if (history && history->renewals() > 0 && r.renewal.rule != RenewalPolicy::Rule::Unknown)
            renewal += tr("; seen while watched: %1").arg(history->cadenceText(now));
        facts += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b> %2</p>")
                     .arg(tr("Renewal:"), esc(renewal));
    }
    if (!r.node.isEmpty())
        facts += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b> %2</p>")
                     .arg(tr("Cluster:"), tr("on master %1, slot %2").arg(esc(r.node)).arg(r.slot));
    QStringList waiting;
    if (r.subscribers >= 0)
        waiting << (r.waitersBasis.isEmpty()
                        ? tr("%1 subscribed to its channel").arg(r.subscribers)
                        : tr("%1 subscribed to its channel: %2").arg(r.subscribers).arg(r.waitersBasis));
    if (r.queueLength > 0 || r.kind == LockKind::Fair)
        waiting << tr("%1 in the fair queue").arg(std::max<qint64>(r.queueLength, 0));
    if (r.subscribers >= 0 && !r.unknownReason(QStringLiteral("waiters")).isEmpty())
        waiting << r.unknownReason(QStringLiteral("waiters")); // the count is a floor: why
    if (waiting.isEmpty())
        waiting << tr("unknown: %1")
                       .arg(r.unknownReason(QStringLiteral("waiters")).isEmpty()
                                ? tr("clients of this library poll, they do not subscribe")
                                : r.unknownReason(QStringLiteral("waiters")));
    facts += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b> %2</p>")
                 .arg(tr("Waiters:"), esc(waiting.join(QStringLiteral(", "))));
    if (!r.queue.isEmpty()) {
        QList<QStringList> rows;
        const qint64 now = InspectClock::wallMs();
        int position = 1;
        for (const FairWaiter &w : r.queue) {
            const QString left = w.deadlineEpochMs < 0 ? QStringLiteral("—")
                : w.deadlineEpochMs <= now
                ? tr("deadline passed %1 ago").arg(InspectFormat::duration(now - w.deadlineEpochMs))
                : tr("%1 left").arg(InspectFormat::duration(w.deadlineEpochMs - now));
            rows << QStringList {QString::number(position++), bytes(w.id, 60), esc(left)};
        }
        facts += table({tr("#"), tr("waiter"), tr("deadline")}, rows);
        if (r.queueLength > r.queue.size())
            facts += tr("… and %1 more").arg(r.queueLength - r.queue.size());
    }
    if (r.hasFencingToken)
        facts += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b> %2</p>")
                     .arg(tr("Fencing token:"))
                     .arg(r.fencingToken);
    if (!r.companions.isEmpty()) {
        QList<QStringList> rows;
        for (const LockCompanion &c : r.companions)
            rows << QStringList {esc(LockCompanion::roleName(c.role)), bytes(c.key, 90),
                                 c.pttlMs == -3 ? QStringLiteral("—") : esc(InspectFormat::ttl(c.pttlMs)),
                                 esc(c.summary)};
        facts += QStringLiteral("<p style='margin:6px 0 2px 0'><b>%1</b></p>").arg(tr("Companions"));
        facts += table({tr("role"), tr("key"), tr("TTL"), tr("")}, rows);
    }
    QStringList unread;
    for (const LockUnknown &u : r.unknowns) {
        if (u.refused)
            unread << QStringLiteral("<li><b>%1</b>: %2</li>").arg(esc(u.field), esc(u.reason));
    }
    if (!unread.isEmpty())
        facts += QStringLiteral(
                     "<p style='margin:6px 0 2px 0;color:#b71c1c'><b>%1</b></p><ul style='margin:0'>%2</ul>")
                     .arg(tr("Not read — shown as unknown, not as a value:"), unread.join(QString()));
    m_facts->setText(facts);

    QString raw;
    if (r.type == "string") {
        raw = Bytes::display(r.value, 2000);
        if (r.valueLength > r.value.size())
            raw += tr("\n… (%1 of %2 bytes read)").arg(r.value.size()).arg(r.valueLength);
    } else if (r.type == "hash") {
        QStringList lines;
        for (const auto &[field, value] : r.fields)
            lines << Bytes::display(field, 200) + QStringLiteral(" → ") + Bytes::display(value, 200);
        if (r.fieldCount > r.fields.size())
            lines << tr("… (%1 of %2 fields read)").arg(r.fields.size()).arg(r.fieldCount);
        raw = lines.join(u'\n');
    } else if (r.exists()) {
        raw = tr("a %1 of %2 elements (not read)").arg(QString::fromLatin1(r.type)).arg(r.size);
    } else {
        raw = tr("(the lock key does not exist)");
    }
    m_raw->setPlainText(
        QStringLiteral("%1 · %2\n%3")
            .arg(QString::fromLatin1(r.type.isEmpty() ? "?" : r.type), InspectFormat::ttl(r.pttlMs), raw));

    const LockAction unlock = LockActions::forceUnlock(r);
    m_manual->setPlainText(unlock.isAvailable() ? unlock.commandText() : unlock.unavailable);
    updateHistory(history);
    updateTtl();
    updateActions();
}

void LockDetailsPane::showGone(const LockHistory *history)
{
    if (!m_hasLock)
        return;
    m_gone = true;
    m_record.type = "none";
    m_record.pttlMs = -2;
    updateHistory(history);
    updateTtl();
    updateActions();
}

void LockDetailsPane::updateHistory(const LockHistory *history)
{
    const qint64 now = InspectClock::monotonicMs();
    m_events = history ? history->events() : QList<LockEvent>();
    m_timeline->setEvents(m_events);
    m_cadence = history ? history->cadenceText(now) : tr("not watched yet");
    m_cadenceLabel->setText(esc(m_cadence.left(1).toUpper() + m_cadence.mid(1)) + QLatin1Char('.'));
    QStringList lines;
    const int shown = 8;
    for (qsizetype i = m_events.size() - 1; i >= 0 && lines.size() < shown; --i) {
        const LockEvent &e = m_events.at(i);
        lines << QStringLiteral("<span style='color:%1'>■</span> %2 <b>%3</b> %4")
                     .arg(HistoryTimeline::colorOf(e.type).name(),
                          esc(InspectFormat::clockTime(InspectClock::wallFromMonotonic(e.atMs))),
                          esc(LockEvent::typeName(e.type)), esc(e.detail));
    }
    m_eventsLabel->setText(lines.join(QStringLiteral("<br>")));
}

void LockDetailsPane::updateTtl()
{
    const qint64 now = m_staleAtMs >= 0 ? m_staleAtMs : InspectClock::monotonicMs();
    if (m_gone) {
        // Say how it went: its last event (released, expired, lost in an outage) is what the user watched for.
        const LockEvent *last = m_events.isEmpty() ? nullptr : &m_events.last();
        const QString how = last
            ? tr("Gone: %1 at %2%3.")
                  .arg(LockEvent::typeName(last->type),
                       InspectFormat::clockTime(InspectClock::wallFromMonotonic(last->atMs)),
                       last->detail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(last->detail))
            : tr("Gone.");
        m_ttl->setText(QStringLiteral("<b>%1</b> %2")
                           .arg(esc(how), tr("Its last snapshot and history stay here until you choose "
                                             "another lock.")));
        return;
    }
    const qint64 left = m_record.remainingMs(now);
    QString text;
    if (left == -1)
        text = QStringLiteral("<b style='color:#c62828'>%1</b>").arg(tr("No TTL"));
    else if (left == LockRecord::kPttlUnknown)
        text = QStringLiteral("<b style='color:#b26a00'>%1</b> %2")
                   .arg(tr("TTL unknown:"), esc(m_record.unknownReason(QStringLiteral("pttl_ms"))));
    else if (left < -1)
        text = QStringLiteral("<b>%1</b>").arg(tr("No lock key"));
    else
        text = tr("TTL <b>%1</b>").arg(InspectFormat::duration(left))
            + (m_lease > 0 ? tr(" of %1 seen").arg(InspectFormat::duration(m_lease)) : QString());
    text += m_staleAtMs >= 0
        ? tr(" · <b>not live</b>: the last reading, %1 before the server stopped answering")
              .arg(InspectFormat::duration(now - m_record.readAtMs))
        : tr(" · read %1 ago").arg(InspectFormat::duration(now - m_record.readAtMs));
    m_ttl->setText(text);
}

void LockDetailsPane::setStale(bool stale)
{
    if (stale == (m_staleAtMs >= 0))
        return;
    m_staleAtMs = stale ? InspectClock::monotonicMs() : -1;
    if (m_hasLock)
        updateTtl();
}

void LockDetailsPane::setActionsAllowed(bool allowed, const QString &why)
{
    m_actionsAllowed = allowed;
    m_actionsWhy = why;
    updateActions();
}

void LockDetailsPane::updateActions()
{
    const LockAction unlock = LockActions::forceUnlock(m_record);
    const LockAction extend = LockActions::extendTtl(m_record, 30000);
    const LockAction queue = LockActions::removeOrphanQueue(m_record);
    const auto set = [&](QPushButton *b, const LockAction &a) {
        b->setEnabled(m_actionsAllowed && a.isAvailable() && m_hasLock);
        b->setToolTip(!m_actionsAllowed ? m_actionsWhy : a.isAvailable() ? a.title : a.unavailable);
    };
    set(m_forceUnlock, unlock);
    set(m_extend, extend);
    set(m_removeQueue, queue);
    m_removeQueue->setVisible(m_record.queueLength > 0 || !m_record.queue.isEmpty());
    m_actionsNote->setText(m_actionsAllowed
                               ? tr("Every action shows its exact command and checks the lock is still "
                                    "exactly as shown here before changing anything.")
                               : esc(m_actionsWhy));
}

void LockDetailsPane::tick()
{
    if (!m_hasLock || !isVisible())
        return;
    updateTtl();
    m_timeline->update();
}

QString LockDetailsPane::manualCommand() const
{
    return m_manual->toPlainText();
}

QString LockDetailsPane::text() const
{
    QStringList parts;
    for (const QLabel *l :
         {m_title, m_reason, m_ttl, m_diagnoses, m_facts, m_cadenceLabel, m_eventsLabel, m_actionsNote}) {
        QTextDocument doc;
        doc.setHtml(l->text());
        parts << doc.toPlainText();
    }
    parts << m_raw->toPlainText() << m_manual->toPlainText();
    return parts.join(u'\n');
}
