package action

import (
	"os"
	"path/filepath"

	"github.com/anchor-review/anchor-review/pkg/inline"
	"github.com/anchor-review/anchor-review/pkg/report"
	"github.com/anchor-review/anchor-review/pkg/review"
	"github.com/anchor-review/anchor-review/pkg/sarif"
)

// SARIFFile is the name of the sarif-path file in the runner's temp
// directory.
const SARIFFile = "anchor-review.sarif"

// writeSARIF writes the posted findings as SARIF 2.1.0 for the sarif-path
// output and returns the path, or "" when there is nothing reviewed to
// describe: report-only mode (nothing posted), a skip, or a review that
// could not run. An empty log would read as "no problems" and close every
// code-scanning alert, so it is written only for a review that ran.
func writeSARIF(dir string, mode string, res review.Result, secrets []string, logf func(string, ...any)) string {
	if mode != ModeComment || res.Skipped || res.AllFailed {
		return ""
	}
	if dir == "" {
		dir = os.TempDir()
	}
	fps := map[int]string{}
	for _, f := range res.Findings {
		fps[f.Number] = inline.FingerprintOf(f, res.Files)
	}
	o := sarif.Options{Fingerprints: fps, Complete: !res.Partial && res.Verdict != review.Degraded, Secrets: secrets}
	if !o.Complete {
		o.Note = "the review was incomplete (see the report's Coverage): findings may be missing"
	}
	b, err := sarif.Marshal(res.Findings, o)
	if err != nil {
		logf("anchor-review: cannot encode the SARIF log: %v", err)
		return ""
	}
	b = report.RedactJSON(b, secrets)
	path := filepath.Join(dir, SARIFFile)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		logf("anchor-review: cannot write %s: %v", path, err)
		return ""
	}
	return path
}
