// ScenarioFiles: file dialogs around ScenarioParser and the editor's JSON.
#include "scenariofiles.h"

#include "outputfile.h"
#include "scenarioeditor.h"
#include "sim/scenarioparser.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMessageBox>
#include <QStandardPaths>

namespace ScenarioFiles {

bool open(QWidget *parent, QString *dir, Scenario *out)
{
    const QString path = QFileDialog::getOpenFileName(parent, QObject::tr("Open a scenario"), *dir,
                                                      QObject::tr("Scenarios (*.json)"));
    if (path.isEmpty())
        return false;
    *dir = QFileInfo(path).absolutePath();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        QMessageBox::warning(parent, QObject::tr("Cannot open the scenario"),
                             QObject::tr("Cannot read %1: %2").arg(path, file.errorString()));
        return false;
    }
    QStringList errors;
    if (!ScenarioParser().parse(file.readAll(), out, &errors)) {
        QMessageBox box(
            QMessageBox::Warning, QObject::tr("Not a valid scenario"),
            QObject::tr("%1 is not a valid scenario; nothing was changed.").arg(QFileInfo(path).fileName()),
            QMessageBox::Ok, parent);
        box.setDetailedText(errors.join(u'\n'));
        box.setInformativeText(errors.mid(0, 5).join(u'\n'));
        box.exec();
        return false;
    }
    return true;
}

void save(QWidget *parent, QString *dir, ScenarioEditor *editor)
{
    Scenario scenario;
    QStringList errors;
    const bool valid = editor->scenario(&scenario, &errors);
    const QString suggested
        = QDir(dir->isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation) : *dir)
              .filePath((scenario.id.isEmpty() ? QStringLiteral("scenario") : scenario.id)
                        + QStringLiteral(".json"));
    const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Save the scenario"), suggested,
                                                      QObject::tr("Scenarios (*.json)"));
    if (path.isEmpty())
        return;
    *dir = QFileInfo(path).absolutePath();
    QString reason;
    if (!OutputFile::writeWhole(path, QJsonDocument(editor->json()).toJson(QJsonDocument::Indented),
                                &reason)) {
        QMessageBox::warning(parent, QObject::tr("Cannot save"),
                             QObject::tr("Cannot write %1: %2").arg(path, reason));
        return;
    }
    editor->setModified(false);
    if (!valid)
        QMessageBox::information(
            parent, QObject::tr("Saved with problems"),
            QObject::tr("Saved, but the scenario cannot run yet:\n%1").arg(errors.join(u'\n')));
}

} // namespace ScenarioFiles
