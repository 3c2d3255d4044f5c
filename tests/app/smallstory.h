// The small story the Simulator's GUI tests run: A works past its short lease (300 ms); B, waiting, gets in
// while A still works and is gone before A's late release, which finds no lock. Three narrated steps, about
// a second.
#pragma once

#include <QByteArray>

namespace SmallStory {

inline QByteArray json()
{
    return R"({
        "lockscope_scenario": 1, "id": "gui-test-story", "title": "GUI test story", "kind": "story",
        "algorithm": {"id": "set-nx-px-lua", "lease_ms": 300, "acquire_timeout_ms": 3000,
                      "retry": {"strategy": "fixed", "interval_ms": 20}},
        "resource": {"counter": false},
        "story": {"actors": ["A", "B"], "steps": [
            {"at_ms": 0, "actor": "A", "action": "acquire", "note": "A locks with a short lease."},
            {"at_ms": 50, "actor": "A", "action": "work", "ms": 600},
            {"at_ms": 100, "actor": "B", "action": "acquire", "note": "B waits for the lock."},
            {"at_ms": 150, "actor": "B", "action": "work", "ms": 100},
            {"at_ms": 200, "actor": "B", "action": "release"},
            {"at_ms": 700, "actor": "A", "action": "release", "note": "A releases."}]},
        "expect": ["overlaps >= 1"]
    })";
}

} // namespace SmallStory
