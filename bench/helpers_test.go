package bench

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anchor-review/anchor-review/pkg/diff"
	"github.com/anchor-review/anchor-review/pkg/review"
)

// TestBenchHelpers runs every benchmark helper once, small and with a 1 ms
// model latency, so CI catches a broken benchmark without running -bench.
func TestBenchHelpers(t *testing.T) {
	t.Parallel()
	team, err := fullTeam()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("critical path", func(t *testing.T) {
		t.Parallel()
		c := newCritical(t, time.Millisecond)
		// run itself fails unless 11 personas ran and 15 findings were
		// validated.
		if wall := c.run(t, 16); wall < 2*time.Millisecond {
			t.Errorf("got wall %v; want at least two model latencies", wall)
		}
		if got, want := len(c.model.Requests()), len(c.pr.Personas)+wantFindings; got != want {
			t.Errorf("got %d model requests; want %d", got, want)
		}
	})

	t.Run("github requests", func(t *testing.T) {
		t.Parallel()
		pr := loadTeamPR(t)
		want := map[string]func(requestCounts) bool{
			"skipped-draft":    func(c requestCounts) bool { return c.total <= 2 && c.writes == 0 },
			"skipped-reviewed": func(c requestCounts) bool { return c.total <= 4 && c.writes == 1 },
			"full":             func(c requestCounts) bool { return c.writes == 2 && c.headFiles == 4 },
			"rerun":            func(c requestCounts) bool { return c.writes == 2 && c.headFiles == 4 },
		}
		for _, tc := range requestCases() {
			r := newActionRig(t, pr, time.Millisecond)
			c := countRequests(tc.run(t, r), pr.HeadSHA)
			r.close()
			if !want[tc.name](c) {
				t.Errorf("%s: got %+v requests; out of the expected bounds", tc.name, c)
			}
		}
	})

	t.Run("large PR", func(t *testing.T) {
		t.Parallel()
		text := genDiff(30, 1000)
		d, err := diff.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		changed := 0
		for _, f := range d.Files {
			changed += f.Added() + f.Deleted()
		}
		if len(d.Files) != 30 || changed != 1000 {
			t.Fatalf("got %d files, %d changed lines; want 30, 1000", len(d.Files), changed)
		}
		if n := chunksNeeded(t, d); n != 1 {
			t.Errorf("got %d chunks; want 1", n)
		}
		model := newInstantModel(t, team, d, 10)
		h := startHeapPeak()
		res, body := largeRun(t, []byte(text), team, model)
		if peak := h.Stop(); peak == 0 {
			t.Error("got heap peak 0; want the live heap")
		}
		if calls := model.persona.Load() + model.validation.Load(); calls == 0 || calls > 60 {
			t.Errorf("got %d model calls; want 1..60", calls)
		}
		if len(res.Findings) == 0 || !strings.Contains(body, "anchor-review:report") {
			t.Errorf("got %d findings and a comment without the marker", len(res.Findings))
		}
	})

	t.Run("review cost", func(t *testing.T) {
		t.Parallel()
		p := loadRealPR(t)
		if n := strings.Count(p.diff, "\n+") - strings.Count(p.diff, "\n+++"); n != 9*2*14 {
			t.Errorf("real PR adds %d lines; want 252", n)
		}
		if n := strings.Count(loadExpressPR(t).diff, "\n+") - strings.Count(loadExpressPR(t).diff, "\n+++"); n != 179 {
			t.Errorf("express PR adds %d lines; want 179", n)
		}
		// Validator calls: one per finding, or per file (realpr's 4
		// findings are in 3 files, express's 3 in 2).
		perFile := map[string]int{"realpr": 3, "express": 2}
		for _, pc := range costPRs(t) {
			for _, cfg := range pc.configs {
				c := runCost(t, pc.pr, cfg, time.Millisecond) // fails unless every seeded finding was posted
				if c.personaCalls != len(c.team) || c.billed() <= 0 || c.billed() > float64(c.prompt) {
					t.Errorf("%s/%s: %d persona calls for %d personas, billed %.0f of %d; want one each and 0 < billed <= prompt", pc.name, cfg.name, c.personaCalls, len(c.team), c.billed(), c.prompt)
				}
				want := len(slices.Concat(slices.Collect(maps.Values(pc.pr.findings))...))
				if cfg.batching == review.ValidatePerFile || cfg.defaults && cfg.batching == "" {
					want = perFile[pc.name] // the action's default is per file
				}
				if c.validatorCall != want {
					t.Errorf("%s/%s: %d validator calls; want %d", pc.name, cfg.name, c.validatorCall, want)
				}
				// At 1 ms calls rarely overlap, so only the warm-up's
				// effect is certain here.
				if (cfg.warmCache || cfg.defaults) && c.cached == 0 {
					t.Errorf("%s/%s: no cached tokens; want the warm-up to fill the cache", pc.name, cfg.name)
				}
			}
		}
	})

	t.Run("prompt shape", func(t *testing.T) {
		t.Parallel()
		s := shapeRun(t, team, 2, 50)
		if s.share() <= 0.5 || s.share() >= 1 {
			t.Errorf("got shared share %.3f; want within (0.5, 1)", s.share())
		}
		if got := commonPrefix("abcX", "abcY"); got != 3 {
			t.Errorf("commonPrefix: got %d; want 3", got)
		}
	})

	t.Run("first request", func(t *testing.T) {
		t.Parallel()
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		defer target.Close()
		fr := newFirstRequest(t, target.URL)
		defer fr.Close()
		start := time.Now()
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, fr.URL+"/x", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		first, ok := fr.Wait(make(chan struct{}))
		if !ok || first.Before(start) {
			t.Errorf("got first request %v (seen %v); want after %v", first, ok, start)
		}
	})
}
