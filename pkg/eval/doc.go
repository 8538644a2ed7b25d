// Package eval is the per-persona evaluation harness (SPEC section 5, after
// seed 002): each reviewer persona is evaluated alone, with its own prompt,
// against hand-labelled cases, so a regression or a prompt change is
// attributed to the persona that caused it.
//
// A case is a directory (fixtures/eval/<case>/ by default) holding:
//
//	diff.patch          a `git diff`, git headers included
//	pr.json             {"title": "...", "body": "..."}
//	ground_truth.jsonl  one Issue a line: id, persona, file, line (new side),
//	                    severity, description, excluded, excluded_reason
//	recorded/<p>.json   persona p's recorded raw answer (findings schema)
//
// Load checks every case: strict JSON, known personas and severities, and
// every ground-truth line on the new side of a hunk of the case's diff.
//
// The unit of evaluation is a (persona, case) pair, for every persona a
// case's ground truth names or that has a recorded answer. Run asks an
// Answerer for each pair's raw answer (Recorded replays the fixtures, so the
// evaluation runs offline in CI; Recorder saves a live run's answers),
// parses it strictly with ParseAnswer (a malformed answer fails the pair,
// which is reported, and its issues count as misses) and scores it with the
// pure Score.
//
// Scoring. A finding matches an issue when the normalized files are equal,
// the lines are at most LineTolerance (3) apart, and the persona is
// the persona being evaluated. Each issue is matched at most once, by a
// maximum matching. Every finding gets one Outcome: a true positive; a
// duplicate (a further finding on an issue already matched: reported, but
// neither TP nor FP); an excluded hit (on an issue marked excluded: neither);
// pre-existing (flagged pre_existing, never posted, so unscored); or a false
// positive (counted as off-persona too when it lands on another persona's
// issue). Excluded issues are reported as such, never as misses.
//
// Recall is TP/(TP+FN), precision TP/(TP+FP), F1 2TP/(2TP+FP+FN); a 0/0
// ratio is undefined, printed "-" in the table and null in JSONL (precision
// with no scored finding, recall with nothing to find). Summaries sum counts
// before dividing (micro-average). Calibration gives, for each anchor, how
// many scored findings (TP+FP) sat there and the share that were TP.
package eval
