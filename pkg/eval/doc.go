// Package eval is the evaluation harness (SPEC sections 5 and 7.6): each
// reviewer persona alone, with its own prompt (seed 002), the whole
// pipeline after synthesis, the gate and the validator, and the validator
// alone, scored against labelled cases.
//
// Cases live in suites under fixtures/eval/: "scripted" (invented code and
// hand-written answers: they test the scorer) and "real" (real code with
// known defects, and real clean changes). A case directory holds:
//
//	diff.patch          a `git diff`, git headers included
//	pr.json             {"title": "...", "body": "..."}
//	case.json           provenance and licence (required for real cases)
//	ground_truth.jsonl  one Issue a line: id, file, line..line_end (new
//	                    side), severity, category, personas (persona: the
//	                    first of them), description, excluded
//	head/               full head versions of changed files (optional)
//	recorded/           source.json (who wrote the answers: scripted by
//	                    hand, or recorded from MODEL on DATE), <persona>.json
//	                    answers, validator.jsonl verdicts by file:line
//
// LoadSuite reads and parses a suite, listing every broken case; Check and
// CheckCorpus add the integrity rules (labels on added lines, provenance,
// permissive licence, clean cases unlabelled).
//
// Run evaluates every (persona, case) pair with an Answerer (Recorded
// replays recorded/; the CLI's live answerer asks the model), then reviews
// each case with the real orchestrator (pkg/review: selection, synthesis,
// validator, verdict; pkg/report: the check conclusion) over those same
// answers, and scores what would be posted. Offline, the validator's
// verdicts come from recorded/validator.jsonl and cases without recordings
// are listed as not scored. RunValidator scores the validator alone on the
// labelled pool in fixtures/eval/validator/.
//
// Matching. A finding points at its own line, at the new-side line of each
// code quote in its evidence (the occurrence nearest its line), and at the
// lines its evidence names ("line 53", "file.go:53"). It matches an issue
// when the files are equal and one of those lines lies in the issue's
// range widened by LineTolerance (3) on each side; for a persona alone the
// issue must list that persona, for the pipeline any issue counts. A Judge
// (--judge-model) may reject a match as another issue. Each issue is
// matched at most once, by a maximum matching. Every finding gets one
// Outcome: a true positive; a duplicate (a further finding on an issue
// already matched); an excluded hit (on an issue marked excluded);
// pre-existing (flagged pre_existing, never posted, so unscored); or a
// false positive (counted as off-persona too when it lands on another
// persona's issue).
//
// Recall is TP/(TP+FN), precision TP/(TP+FP), F1 2TP/(2TP+FP+FN), severity
// agreement the share of TPs at the labelled severity; a 0/0 ratio is
// undefined, printed "-" and null in JSONL. Summaries sum counts before
// dividing (micro-average). Calibration gives, for each anchor, how many
// scored findings sat there and the share that matched. Every table and
// JSONL summary line says where its answers came from.
package eval
