// Opening and saving scenario JSON files from the Simulator: the dialogs, and every problem said in a message
// box (a file that cannot be read, a scenario that does not parse, one saved while it cannot run yet).
#pragma once

#include <QString>

class QWidget;
class ScenarioEditor;
struct Scenario;

namespace ScenarioFiles {

// Asks for a file in `*dir` (remembered there) and parses it. False when cancelled or not a valid scenario
// (said to the user).
bool open(QWidget *parent, QString *dir, Scenario *out);
// Saves what `editor` holds as JSON, named after its id, in `*dir` (remembered there).
void save(QWidget *parent, QString *dir, ScenarioEditor *editor);

} // namespace ScenarioFiles
