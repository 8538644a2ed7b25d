package eval

import (
	"errors"
	"strings"
	"testing"
)

const goodFinding = `{"title":"t","severity":"P1","file":"a.go","line":3,"why_it_matters":"w","autofix_class":"manual","owner":"human","requires_verification":true,"confidence":75,"evidence":["e"],"pre_existing":false}`

func answerWith(findingJSON string) string {
	return `{"reviewer":"correctness","findings":[` + findingJSON + `],"residual_risks":[],"testing_gaps":[]}`
}

func TestParseAnswerAccepts(t *testing.T) {
	withFix := strings.Replace(goodFinding, `"pre_existing":false`, `"pre_existing":false,"suggested_fix":"do x"`, 1)
	a, err := ParseAnswer([]byte(" \n" + answerWith(goodFinding+","+withFix) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Findings) != 2 || a.Findings[0].Confidence != 75 || a.Findings[1].SuggestedFix != "do x" || a.Reviewer != "correctness" {
		t.Errorf("got %+v", a)
	}
}

func TestParseAnswerRejects(t *testing.T) {
	swap := func(from, to string) string { return answerWith(strings.Replace(goodFinding, from, to, 1)) }
	for _, tc := range []struct {
		name, in, want string
	}{
		{"not json", "findings: none", "invalid character"},
		{"float confidence", swap(`"confidence":75`, `"confidence":0.85`), "cannot unmarshal number 0.85"},
		{"confidence 72", swap(`"confidence":75`, `"confidence":72`), "finding 1: confidence must be one of"},
		{"string confidence", swap(`"confidence":75`, `"confidence":"75"`), "cannot unmarshal string"},
		{"unknown finding field", swap(`"line":3`, `"line":3,"category":"x"`), `unknown field "category"`},
		{"unknown top field", `{"reviewer":"r","findings":[],"residual_risks":[],"testing_gaps":[],"verdict":"ok"}`, `unknown field "verdict"`},
		{"missing testing_gaps", `{"reviewer":"r","findings":[],"residual_risks":[]}`, "testing_gaps is required"},
		{"null findings", `{"reviewer":"r","findings":null,"residual_risks":[],"testing_gaps":[]}`, "findings is required"},
		{"missing reviewer", `{"findings":[],"residual_risks":[],"testing_gaps":[]}`, "reviewer is required"},
		{"bad severity", swap(`"P1"`, `"high"`), "severity must be"},
		{"line zero", swap(`"line":3`, `"line":0`), "line must be"},
		{"no evidence", swap(`["e"]`, `[]`), "evidence needs"},
		{"bad owner", swap(`"owner":"human"`, `"owner":"bot"`), "owner must be"},
		{"bad autofix", swap(`"manual"`, `"auto"`), "autofix_class must be"},
		{"missing pre_existing", swap(`,"pre_existing":false`, ``), "pre_existing is required"},
		{"missing requires_verification", swap(`"requires_verification":true,`, ``), "requires_verification is required"},
		{"empty why", swap(`"why_it_matters":"w"`, `"why_it_matters":" "`), "why_it_matters is required"},
		{"long title", swap(`"title":"t"`, `"title":"`+strings.Repeat("x", 101)+`"`), "longer than 100"},
		{"two objects", answerWith(goodFinding) + answerWith(goodFinding), "trailing data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseAnswer([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v; want an error containing %q", err, tc.want)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("got %v; want it to wrap ErrMalformed", err)
			}
		})
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(answerWith(goodFinding)))
	f.Add([]byte(`{"reviewer":"r","findings":[],"residual_risks":[],"testing_gaps":[]}`))
	f.Add([]byte(answerWith(strings.Replace(goodFinding, "75", "0.85", 1))))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ParseAnswer(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for _, fd := range a.Findings {
			if !fd.Severity.Valid() || fd.Line < 1 || len(fd.Evidence) == 0 || fd.Confidence%25 != 0 || fd.Confidence > 100 || fd.Confidence < 0 {
				t.Fatalf("accepted invalid finding %+v", fd)
			}
		}
	})
}
