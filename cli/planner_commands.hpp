// The verbs that ask the Sizer: recommend, fit, finetune, command, serve, calibrate, check-log.
#pragma once
#include <vector>

#include "arguments.hpp"
#include "llmsizer/launch_commands.hpp"

namespace llmsizer::cli {

inline bool is_planner_verb(Verb v) {
  return v == Verb::recommend || v == Verb::fit || v == Verb::finetune || v == Verb::command || v == Verb::serve ||
         v == Verb::calibrate || v == Verb::check_log;
}

// Runs the verb, prints its answer (table or --json) and returns the exit status.
int run_planner_command(const Command& c);

// Launch commands as `command` prints them: each engine's steps, its note as a comment (or --json).
void print_commands(const std::vector<LaunchCommand>& commands, bool json);

}  // namespace llmsizer::cli
