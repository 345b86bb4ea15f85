// The verbs that ask the Sizer: recommend, fit, finetune, command, serve, calibrate, check-log.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "llmsizer/launch_commands.hpp"
#include "llmsizer/suggestions.hpp"

namespace llmsizer::cli {

inline bool is_planner_verb(Verb v) {
  return v == Verb::recommend || v == Verb::fit || v == Verb::finetune || v == Verb::command || v == Verb::serve ||
         v == Verb::calibrate || v == Verb::check_log;
}

// Runs the verb, prints its answer (table or --json) and returns the exit status.
int run_planner_command(const Command& c);

// Launch commands as `command` prints them: each engine's steps, its note as a comment (or --json).
// preface: a line said before them (and in each engine's note in JSON).
void print_commands(const std::vector<LaunchCommand>& commands, bool json, const std::string& preface = "");

// A scenario's commands (catalog repositories, or a Hub repo's own).
using CommandsFor = std::function<std::vector<LaunchCommand>(const Scenario&, const Estimate&)>;
// The commands of what runs: the scenario's own when it fits, else its first
// suggestion's (ordered by suggest_fits with `startable`, as estimate orders
// them) with a line that names the change, else an error (exit 2).
int print_commands_that_fit(const Architecture& arch, const Scenario& scenario, const Estimate& estimate,
                            const Estimator& estimate_fn, const Startable& startable, bool json,
                            const CommandsFor& commands_for);

}  // namespace llmsizer::cli
