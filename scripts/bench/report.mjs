// One JSON line per figure: {"figure", "value", "unit", "budget", "met"}.
export function figure(name, value, unit, budget) {
  const line = { figure: name, value: Math.round(value * 1000) / 1000, unit };
  if (budget != null) {
    line.budget = Math.round(budget * 1000) / 1000;
    line.met = value <= budget;
  }
  console.log(JSON.stringify(line));
  return line;
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
