package sarif_test

import (
	"fmt"

	"github.com/anchor-review/anchor-review/pkg/finding"
	"github.com/anchor-review/anchor-review/pkg/sarif"
)

// Example maps one finding to a SARIF result.
func Example() {
	f := finding.Finding{Number: 1, Title: "Token compared with ==", Severity: finding.P1, File: "auth/token.go", Line: 12, Confidence: 100, Reviewers: []string{"security"}}
	l := sarif.Build([]finding.Finding{f}, sarif.Options{Complete: true, Fingerprints: map[int]string{1: "0123456789abcdef"}})
	r := l.Runs[0].Results[0]
	fmt.Println(l.Version, r.RuleID, r.Level, r.Locations[0].PhysicalLocation.ArtifactLocation.URI, r.Locations[0].PhysicalLocation.Region.StartLine, r.PartialFingerprints[sarif.FingerprintKey])
	fmt.Println(l.Runs[0].Tool.Driver.Rules[r.RuleIndex].ShortDescription.Text)
	// Output:
	// 2.1.0 anchor-review/security/0123456789abcdef error auth/token.go 12 0123456789abcdef
	// Token compared with ==
}
