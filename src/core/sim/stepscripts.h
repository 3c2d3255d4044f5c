// Which of an algorithm's Lua scripts a story step runs: the acquire scripts for an acquire, the unlock ones
// for a release, the fenced write for a write. Teaching views show them next to the step.
#pragma once

#include "scenario.h"

#include <QStringList>

struct LockAlgorithmInfo;

namespace StepScripts {

// Script names (resources/lua/<name>.lua) from `info.scripts`; empty when the step runs none — a plain
// command (SET NX, DEL) or no Redis command of the lock at all (work, a pause, a server fault).
QStringList forStep(const LockAlgorithmInfo &info, Scenario::Step::Action action, bool fencing);

// Whether the step sends the lock's own commands at all (acquire, release, a fenced write).
bool touchesTheLock(Scenario::Step::Action action);

} // namespace StepScripts
