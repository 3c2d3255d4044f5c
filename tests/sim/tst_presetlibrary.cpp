// PresetLibrary: every shipped preset parses, carries its teaching text and expectations, and the ones the
// issues name are all there.
#include "sim/presetlibrary.h"
#include "sim/scenarioparser.h"

#include <QTest>

class TestPresetLibrary : public QObject
{
    Q_OBJECT
private slots:
    void everyPresetParses();
    void requiredPresetsExist_data();
    void requiredPresetsExist();
    void everyPresetTeachesAndExpects();
    void variantsResolve();
};

void TestPresetLibrary::everyPresetParses()
{
    QVERIFY2(PresetLibrary::loadErrors().isEmpty(), qPrintable(PresetLibrary::loadErrors().join(u'\n')));
    QVERIFY(PresetLibrary::all().size() >= 14);
}

void TestPresetLibrary::requiredPresetsExist_data()
{
    QTest::addColumn<QString>("id");
    for (const char *id :
         {"seed-setnx-expire-crash", "seed-unconditional-del", "seed-get-then-del-race", "seed-short-lease",
          "seed-watchdog", "seed-redisson-reentrant", "seed-inventory", "polling-vs-pubsub", "fair-vs-unfair",
          "gc-pause", "redlock-basic", "redlock-restart", "failover", "redlock-split-vote", "cluster-locks",
          "partitioned-holder", "failover-sentinel"})
        QTest::newRow(id) << QString::fromLatin1(id);
}

void TestPresetLibrary::requiredPresetsExist()
{
    QFETCH(QString, id);
    const PresetLibrary::Preset *p = PresetLibrary::find(id);
    QVERIFY2(p, qPrintable(id));
    QCOMPARE(p->id, id);
    QCOMPARE(p->resourcePath, QStringLiteral(":/scenarios/%1.json").arg(id));
}

void TestPresetLibrary::everyPresetTeachesAndExpects()
{
    for (const PresetLibrary::Preset &p : PresetLibrary::all()) {
        QVERIFY2(!p.scenario.title.isEmpty(), qPrintable(p.id));
        QVERIFY2(p.scenario.teaching.size() > 200,
                 qPrintable(p.id + QStringLiteral(": teaching text too short")));
        QVERIFY2(!p.scenario.summary.isEmpty(), qPrintable(p.id));
        QVERIFY2(!p.scenario.expect.isEmpty(), qPrintable(p.id + QStringLiteral(": no expectations")));
        if (p.scenario.kind == Scenario::Kind::Story) {
            bool narrated = false;
            for (const Scenario::Step &s : p.scenario.story.steps)
                narrated = narrated || !s.note.isEmpty();
            QVERIFY2(narrated, qPrintable(p.id + QStringLiteral(": a story needs narrated steps")));
        }
    }
}

void TestPresetLibrary::variantsResolve()
{
    const ScenarioParser parser;
    for (const PresetLibrary::Preset &p : PresetLibrary::all()) {
        for (int i = 0; i < p.scenario.variants.size(); ++i) {
            Scenario v;
            QStringList errors;
            QVERIFY2(parser.variant(p.scenario, i, &v, &errors),
                     qPrintable(p.id + u' ' + errors.join(u'\n')));
        }
    }
    Scenario fenced;
    QStringList errors;
    const PresetLibrary::Preset *gc = PresetLibrary::find(QStringLiteral("gc-pause"));
    QVERIFY(gc);
    QVERIFY(parser.variant(gc->scenario, 1, &fenced, &errors));
    QCOMPARE(fenced.algorithm.id, QStringLiteral("fenced"));
    QVERIFY(fenced.algorithm.fencing);
    QVERIFY(fenced.resource.fencedStore);
}

QTEST_GUILESS_MAIN(TestPresetLibrary)
#include "tst_presetlibrary.moc"
