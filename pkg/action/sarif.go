package action

import (
	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/sarif"
)

// SARIFFile is the name of the sarif-path file under StepFileDir.
const SARIFFile = "anchor-review.sarif"

// writeSARIF writes the posted findings as SARIF 2.1.0 for the sarif-path
// output and returns the path, or "" when there is no complete review to
// describe: report-only mode (nothing posted), a skip, or an incomplete
// review. Code scanning closes every alert an upload leaves out, so a log
// of a review that missed files or personas would close alerts nobody
// re-checked: it is written only for a complete review.
func writeSARIF(workspace string, mode string, res review.Result, secrets []string, logf func(string, ...any)) string {
	if mode != ModeComment || res.Skipped {
		return ""
	}
	if !res.Complete() {
		logf("anchor-review: no SARIF log: the review was incomplete, and an upload would close alerts it did not re-check")
		return ""
	}
	fps := map[int]string{}
	for _, f := range res.Findings {
		fps[f.Number] = inline.FingerprintOf(f, res.Files)
	}
	o := sarif.Options{Fingerprints: fps, Complete: true, Secrets: secrets}
	b, err := sarif.Marshal(res.Findings, o)
	if err != nil {
		logf("anchor-review: cannot encode the SARIF log: %v", err)
		return ""
	}
	path, err := writeStepFile(workspace, SARIFFile, report.RedactJSON(b, secrets))
	if err != nil {
		logf("anchor-review: cannot write the SARIF log: %v", err)
		return ""
	}
	return path
}
